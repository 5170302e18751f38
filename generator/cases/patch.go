package cases

import (
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// fillPatch gives each PATCH the case would send with an empty body one
// of the inputs that fill that body: the runtime refuses an empty merge
// patch (it changes nothing), so a case that must succeed carries one
// field to change. Inputs the spec gives no buildable value are skipped.
func (b *builder) fillPatch(args map[string]any, boundary bool) {
	props := mapOf(b.root["properties"])
	for _, inputs := range b.patchInputs(args) {
		if givenAny(args, inputs) {
			continue
		}
		for _, in := range inputs {
			p, ok := props[in]
			if !ok {
				continue
			}
			if v, ok := b.synth.value(mapOf(p), boundary, 1); ok && b.synth.valid(mapOf(p), v) {
				args[in] = v
				break
			}
		}
	}
}

// patchInputs lists, per PATCH the call with args runs whose body is
// built from fields, the tool inputs that fill those fields, sorted.
func (b *builder) patchInputs(args map[string]any) [][]string {
	var out [][]string
	add := func(op *runtime.Operation, bindings []runtime.Binding) {
		if op == nil || !strings.EqualFold(op.Method, "PATCH") || op.Body == nil || op.Body.Arg != "" {
			return
		}
		var inputs []string
		for _, f := range op.Body.Fields {
			if in := boundInput(f.Arg, bindings); in != "" {
				inputs = append(inputs, in)
			}
		}
		sort.Strings(inputs)
		if len(inputs) > 0 {
			out = append(out, inputs)
		}
	}
	if b.t.Op != nil {
		add(b.t.Op, nil)
		return out
	}
	action, _ := args["action"].(string)
	for _, s := range b.t.StepsFor(action) {
		if s.When == "" {
			add(&s.Op, s.Args)
		}
	}
	return out
}

// boundInput is the tool input an operation argument reads: the argument
// itself when the operation reads the inputs by their own names (no
// bindings), else the input a binding passes through unchanged.
func boundInput(arg string, bindings []runtime.Binding) string {
	if bindings == nil {
		return arg
	}
	for _, bd := range bindings {
		if in, ok := oa2mcpimpl.SoleInput(bd.Expr); ok && bd.Arg == arg {
			return in
		}
	}
	return ""
}

func givenAny(args map[string]any, names []string) bool {
	for _, n := range names {
		if v, ok := args[n]; ok && v != nil {
			return true
		}
	}
	return false
}
