package lint

import (
	"fmt"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// writes reports calls that can write nothing: a POST, PUT, PATCH or
// DELETE whose body requires no field, with no required input feeding
// the body. The generator makes the inputs a step's own args: bind into
// such a body required; for an operation used as it is, it cannot tell
// which field the write needs.
func (c *checker) writes(t *ir.Tool, root map[string]any) {
	required := map[string]bool{}
	list, _ := root["required"].([]any)
	for _, r := range list {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	check := func(op *ir.Operation, args []ir.Binding, action string, need []string) {
		if !emptyWrite(op, args, required, need) {
			return
		}
		where := ""
		if action != "" {
			where = fmt.Sprintf("action %q ", action)
		}
		what := fmt.Sprintf("%scan send %s %s with an empty body: the operation's body requires no field and no required input fills it", where, op.Method, op.Path)
		if op.Method == "PATCH" {
			// The runtime refuses an empty merge patch, so nothing empty
			// is sent; the schema still lets a model make that call.
			what = fmt.Sprintf("%scalls PATCH %s with a body of optional fields only: a call that gives none of them is refused at run time (an empty patch changes nothing), and the input schema does not say so", where, op.Path)
		}
		c.add("write-empty-body", t.Name, "", what,
			"mark the field the write needs required: true in the override file, or bind it in steps: args:")
	}
	if t.Op != nil {
		check(t.Op, nil, "", nil)
	}
	for i := range t.Steps {
		if !t.Steps[i].Optional && t.Steps[i].When == "" {
			check(&t.Steps[i].Op, t.Steps[i].Args, "", nil)
		}
	}
	for _, a := range t.Actions {
		for i := range a.Steps {
			if !a.Steps[i].Optional && a.Steps[i].When == "" {
				check(&a.Steps[i].Op, a.Steps[i].Args, a.Name, a.Required)
			}
		}
	}
}

// emptyWrite: op writes a body that nothing required fills. args nil
// means the operation reads the tool's inputs by their own names.
func emptyWrite(op *ir.Operation, args []ir.Binding, required map[string]bool, need []string) bool {
	b := op.Body
	if b == nil || op.Method == "GET" || op.Method == "HEAD" || b.Arg != "" || len(b.Fields) == 0 {
		return false
	}
	inputOf := map[string]string{}
	for _, f := range b.Fields {
		if f.Required {
			return false
		}
		inputOf[f.Arg] = f.Arg
	}
	if args != nil {
		inputOf = map[string]string{}
		for _, a := range args {
			if _, isBody := bodyField(b, a.Arg); !isBody {
				continue
			}
			if a.Const != "" {
				return false // the file fixed a value: something is written
			}
			if name, ok := oa2mcpimpl.SoleInput(a.Expr); ok {
				inputOf[a.Arg] = name
			}
		}
	}
	for _, in := range inputOf {
		if required[in] || contains(need, in) {
			return false
		}
	}
	return true
}

func bodyField(b *ir.Body, arg string) (ir.BodyField, bool) {
	for _, f := range b.Fields {
		if f.Arg == arg {
			return f, true
		}
	}
	return ir.BodyField{}, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
