package jsonschema

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Validator collects violations for one call. A quiet validator only
// counts failures and stops at the first: anyOf, oneOf, not, if and
// contains need to know whether a branch fails, not why.
type Validator struct {
	out   []violation
	extra int // violations beyond maxViolations
	fails int
	quiet bool
}

// valuePath is one step of the path to a value: a property name or an array
// index. Paths are rendered only when a message is written, so a valid
// call builds no strings.
type valuePath struct {
	parent *valuePath
	key    string // the property name, or at the root the path prefix
	index  int    // array index; -1 for a property or the root
}

// String renders the path as "a.b[2].c". It copies into a fresh buffer
// and does not recurse, so that escape analysis can keep every valuePath
// of a call on the stack.
func (p *valuePath) String() string {
	var steps [maxSchemaDepth + 2]*valuePath
	n := 0
	for s := p; s != nil && n < len(steps); s = s.parent {
		steps[n] = s
		n++
	}
	var b []byte
	for i := n - 1; i >= 0; i-- {
		switch s := steps[i]; {
		case s.parent == nil:
			b = append(b, s.key...)
		case s.index >= 0:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		default:
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, s.key...)
		}
	}
	return string(b)
}

// report counts a failure and says whether to write its message; callers
// build the message's arguments only when it is wanted.
func (v *Validator) report() bool {
	if v.quiet {
		v.fails++
		return false
	}
	return true
}

// add records a violation at p; beyond maxViolations it only counts.
func (v *Validator) add(p *valuePath, format string, args ...any) {
	v.fails++
	if len(v.out) >= maxViolations {
		v.extra++
		return
	}
	v.out = append(v.out, violation{path: p.String(), msg: fmt.Sprintf(format, args...)})
}

// Failed reports whether any rule failed.
func (v *Validator) Failed() bool { return v.fails > 0 }

// stop says a quiet validator has its answer.
func (v *Validator) stop() bool { return v.quiet && v.fails > 0 }

// Check validates value against n; path names the value for messages.
// A first, quiet pass decides; only a value that fails is walked again to
// write the messages, so a valid call builds no paths or strings.
func (v *Validator) Check(n *Node, value any, path string, depth int) {
	if !v.quiet {
		probe := Validator{quiet: true}
		if probe.eval(n, value, nil, depth); !probe.Failed() {
			return
		}
	}
	v.eval(n, value, v.child(nil, path, -1), depth)
}

// child returns the path of a property (index -1) or an item; quiet
// validators write no messages and get nil.
func (v *Validator) child(p *valuePath, key string, index int) *valuePath {
	if v.quiet {
		return nil
	}
	return &valuePath{parent: p, key: key, index: index}
}

// matches reports whether value satisfies n, without messages. A quiet
// validator evaluates it itself, its failure count set aside.
func (v *Validator) matches(n *Node, value any, depth int) bool {
	if v.quiet {
		saved := v.fails
		v.fails = 0
		v.eval(n, value, nil, depth+1)
		ok := v.fails == 0
		v.fails = saved
		return ok
	}
	sub := Validator{quiet: true}
	sub.eval(n, value, nil, depth+1)
	return !sub.Failed()
}

// eval applies n to value at path p (nil for a quiet validator); depth
// bounds recursion through $ref and nesting.
func (v *Validator) eval(n *Node, value any, p *valuePath, depth int) {
	if depth > maxSchemaDepth {
		if v.report() {
			v.add(p, "is nested too deeply (more than %d levels)", maxSchemaDepth)
		}
		return
	}
	if n.alwaysFalse {
		if v.report() {
			v.add(p, "is not allowed here")
		}
		return
	}
	if n.ref != nil {
		if v.eval(n.ref, value, p, depth+1); v.stop() {
			return
		}
	}
	if n.types != 0 && !typeMatches(n.types, value) {
		if v.report() {
			v.add(p, "must be %s; got %s", typeList(n.types), DescribeValue(value))
		}
		return
	}
	v.evalValue(n, value, p)
	if v.stop() {
		return
	}
	switch x := value.(type) {
	case string:
		v.evalString(n, x, p)
	case json.Number:
		v.evalNumber(n, x, p)
	case float64:
		v.evalNumber(n, json.Number(strconv.FormatFloat(x, 'g', -1, 64)), p)
	case []any:
		v.evalArray(n, x, p, depth)
	case map[string]any:
		v.evalObject(n, x, p, depth)
	}
	if !v.stop() {
		v.evalComposition(n, value, p, depth)
	}
}

// evalValue checks const and enum.
func (v *Validator) evalValue(n *Node, value any, p *valuePath) {
	if n.hasConst && !jsonEqual(value, n.constVal) && v.report() {
		v.add(p, "must be exactly %s; got %s", ShowValue(n.constVal), ShowValue(value))
	}
	if n.enum != nil && !enumContains(n.enum, value) && v.report() {
		v.add(p, "must be one of %s; got %s", enumList(n.enum), ShowValue(value))
	}
}
