package mapping

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// taskInput collects the input properties of a task tool.
type taskInput struct {
	props    map[string]map[string]any
	required map[string]bool
	defs     map[string]any
	// usedBy lists, per input, the actions that read it (action tools).
	usedBy map[string][]string
	// unions marks inputs whose schema is an anyOf of several actions'.
	unions map[string]bool
	// explicit holds required: settings of the override file for the
	// inputs of action tools, which apply per action (finishActions).
	explicit map[string]bool
	// flatRequired marks inputs flattened out of an object that requires
	// them: needed whenever the object is.
	flatRequired map[string]bool
	// feeds marks inputs bound to an argument an operation requires, in
	// a step that may not run (optional, conditional): optional for the
	// tool, yet the step cannot do without them, so never dropped.
	feeds map[string]bool
	// actionExplicit holds, per action, the required: settings of that
	// action's own input: entries, which win over the tool's (explicit).
	actionExplicit map[string]map[string]bool
	// constraints are the whole-object checks of the flattened bodies
	// (inputBuilder.constraints), an action's under "if action is this
	// one"; the override file's renames are carried into them and a check
	// naming a removed input is dropped (constraints.go).
	constraints []map[string]any
}

func newTaskInput() *taskInput {
	return &taskInput{props: map[string]map[string]any{}, required: map[string]bool{}, defs: map[string]any{},
		usedBy: map[string][]string{}, unions: map[string]bool{}, explicit: map[string]bool{}, flatRequired: map[string]bool{},
		actionExplicit: map[string]map[string]bool{}, feeds: map[string]bool{}}
}

// explicitFor is the file's required: setting of input name for one
// action: the action's own input: entry, else the tool's.
func (in *taskInput) explicitFor(action, name string) (bool, bool) {
	if v, ok := in.actionExplicit[action][name]; ok {
		return v, true
	}
	v, ok := in.explicit[name]
	return v, ok
}

// mergeAction adds the inputs of one action (sub, after the action's
// own rewrites) to the tool's.
func (in *taskInput) mergeAction(action string, sub *taskInput) {
	for _, n := range slices.Sorted(maps.Keys(sub.props)) {
		in.add(n, sub.props[n], false, action)
	}
	in.mergeDefs(sub.defs)
	for _, c := range sub.constraints {
		in.constraints = append(in.constraints, actionConstraint(action, c))
	}
	if len(sub.explicit) > 0 {
		in.actionExplicit[action] = sub.explicit
	}
	for n := range sub.feeds {
		in.feeds[n] = true
	}
	for n, req := range sub.flatRequired {
		in.flatRequired[n] = in.flatRequired[n] || req
	}
}

// addOp adds every default input of an operation (used by one-operation
// tools and operation actions).
func (in *taskInput) addOp(info *opInfo, action string) {
	for _, name := range slices.Sorted(maps.Keys(info.in.props)) {
		in.add(name, info.in.props[name], info.required[name] && action == "", action)
	}
	if action == "" {
		// A copy: rewrites drop and rename checks in place, and other
		// tools read the operation's too.
		in.constraints = slices.Clone(info.in.constraints)
	}
	in.mergeDefs(info.defs)
}

// add records input name with a copy of schema; the first schema wins.
func (in *taskInput) add(name string, schema any, required bool, action string) {
	cur, ok := in.props[name]
	switch {
	case !ok:
		in.props[name] = deepCopy(schema)
	case action != "" && !sameJSON(constraints(cur), constraints(schema)):
		// Two actions read an input of the same name with different
		// schemas: accept either rather than reject one action's values.
		in.props[name] = unionSchema(cur, deepCopy(schema), in.unions[name])
		in.unions[name] = true
	}
	if required {
		in.required[name] = true
	}
	if action != "" {
		in.usedBy[name] = append(in.usedBy[name], action)
	}
}

func (in *taskInput) mergeDefs(defs map[string]any) {
	for k, v := range defs {
		if _, ok := in.defs[k]; !ok {
			in.defs[k] = v
		}
	}
}

func (in *taskInput) requiredNames() []string {
	var out []string
	for name, req := range in.required {
		if _, ok := in.props[name]; ok && req {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// schema assembles the flat input object, with $defs pruned to what the
// remaining properties reference.
func (in *taskInput) schema() map[string]any {
	out := map[string]any{"type": "object", "additionalProperties": false, "$schema": oa2mcpimpl.SchemaDialect}
	props := map[string]any{}
	for k, v := range in.props {
		props[k] = v
	}
	if len(props) > 0 {
		out["properties"] = props
	}
	if req := in.requiredNames(); len(req) > 0 {
		out["required"] = req
	}
	addConstraints(out, in.constraints)
	if defs := reachableDefs(out, in.defs); len(defs) > 0 {
		out["$defs"] = defs
	}
	if hasLargeUnion(out) {
		// Summarise copies: in.props and in.defs stay whole for the
		// bindings and checks that read them.
		out = deepCopy(out)
		summarizeLargeUnions(out)
		if defs, ok := out["$defs"].(map[string]any); ok {
			if kept := reachableDefs(out["properties"], defs); len(kept) > 0 {
				out["$defs"] = kept
			} else {
				delete(out, "$defs")
			}
		}
	}
	return out
}

// reachableDefs keeps the definitions that root references, directly or
// through other definitions.
func reachableDefs(root any, defs map[string]any) map[string]any {
	out := map[string]any{}
	var walk func(v any)
	walk = func(v any) {
		switch n := v.(type) {
		case map[string]any:
			ref, _ := n["$ref"].(string)
			if name, ok := strings.CutPrefix(ref, "#/$defs/"); ok {
				if d, ok := defs[name]; ok {
					if _, seen := out[name]; !seen {
						out[name] = d
						walk(d)
					}
				}
			}
			for _, x := range n {
				walk(x)
			}
		case []any:
			for _, x := range n {
				walk(x)
			}
		}
	}
	walk(root)
	return out
}

// deepCopy copies a JSON-like value so rewrites of one tool never leak
// into another tool built from the same operation. The copy is what a
// trip through JSON gives (numbers become float64, an object is needed
// at the top, a value JSON cannot hold gives an empty object): directly
// for plain values (copyPlain), through encoding/json for the rest.
func deepCopy(v any) map[string]any {
	if c, ok := copyPlain(v); ok {
		if m, isObject := c.(map[string]any); isObject && m != nil {
			return m
		}
		return map[string]any{}
	}
	return copyThroughJSON(v)
}

// copyPlain copies v as json.Marshal then json.Unmarshal into an any
// would, for values made of maps, slices (of strings too), valid UTF-8
// strings, bools, finite float64 and integers; ok is false for anything else (the JSON
// trip then decides).
func copyPlain(v any) (out any, ok bool) {
	switch x := v.(type) {
	case nil, bool:
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case map[string]any:
		if x == nil {
			return nil, true
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyPlain(e)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			m[k] = c
		}
		return m, true
	case []string:
		if x == nil {
			return nil, true
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = e
		}
		return copyPlain(l)
	case []any:
		if x == nil {
			return nil, true
		}
		l := make([]any, len(x))
		for i, e := range x {
			c, ok := copyPlain(e)
			if !ok {
				return nil, false
			}
			l[i] = c
		}
		return l, true
	}
	return nil, false
}

// copyThroughJSON is deepCopy by json.Marshal and json.Unmarshal.
func copyThroughJSON(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	var out map[string]any
	if json.Unmarshal(b, &out) != nil || out == nil {
		return map[string]any{}
	}
	return out
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// unionSchema widens cur to also accept next, keeping one description.
func unionSchema(cur, next map[string]any, isUnion bool) map[string]any {
	desc, _ := cur["description"].(string)
	arms := []any{cur}
	if isUnion {
		arms, _ = cur["anyOf"].([]any)
	}
	for _, a := range arms {
		if sameJSON(a, next) {
			return cur
		}
	}
	if desc == "" {
		desc, _ = next["description"].(string)
	}
	return map[string]any{"anyOf": append(arms, next), "description": desc}
}

// constraints drops the annotation keywords of a schema's top level, so
// two schemas that differ only in wording count as the same.
func constraints(s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch k {
		case "description", "examples", "title", "deprecated":
		default:
			out[k] = v
		}
	}
	return out
}
