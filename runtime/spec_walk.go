package runtime

import (
	"slices"
	"strings"
)

// Walks over a definition that the runtime, the generator and the test
// driver all make: one definition of "every step" and "every operation".

// AllSteps are the tool's steps and every action's, in order.
func (t *Tool) AllSteps() []Step {
	steps := append([]Step(nil), t.Steps...)
	for _, a := range t.Actions {
		steps = append(steps, a.Steps...)
	}
	return steps
}

// StepsFor are the steps a call runs for the action named: the action's,
// or the tool's own when it has no such action.
func (t *Tool) StepsFor(action string) []Step {
	for _, a := range t.Actions {
		if a.Name == action {
			return a.Steps
		}
	}
	return t.Steps
}

// OutputFor is the output shaping of a call of the action named: the
// action's own, or the tool's when the action has none (or the tool has
// no such action).
func (t *Tool) OutputFor(action string) *Output {
	for _, a := range t.Actions {
		if a.Name == action && a.Output != nil {
			return a.Output
		}
	}
	return t.Output
}

// Lacks names the first argument the operation requires that args do
// not hold (a path, query, header or cookie parameter, a required body
// or a required field of a sent body); "" when none.
func (o *Operation) Lacks(args map[string]any) string {
	for _, p := range o.Params {
		if _, ok := args[p.Arg]; (p.Required || p.In == InPath) && !ok {
			return p.Arg
		}
	}
	b := o.Body
	if b == nil {
		return ""
	}
	if b.Arg != "" {
		if _, ok := args[b.Arg]; b.Required && !ok {
			return b.Arg
		}
		return ""
	}
	sent := false
	for _, f := range b.Fields {
		_, ok := args[f.Arg]
		sent = sent || ok
	}
	for _, f := range b.Fields {
		if _, ok := args[f.Arg]; f.Required && !ok && (sent || b.Required) {
			return f.Arg
		}
	}
	return ""
}

// Operations are the upstream operations the tool may call: its own, then
// those of its steps and actions.
func (t *Tool) Operations() []*Operation {
	var ops []*Operation
	if t.Op != nil {
		ops = append(ops, t.Op)
	}
	for i := range t.Steps {
		ops = append(ops, &t.Steps[i].Op)
	}
	for _, a := range t.Actions {
		for i := range a.Steps {
			ops = append(ops, &a.Steps[i].Op)
		}
	}
	return ops
}

// Key names the operation as upstream responses are keyed in generated
// call tests: "METHOD /path".
func (o *Operation) Key() string {
	if o == nil {
		return ""
	}
	return strings.ToUpper(o.Method) + " " + o.Path
}

// Scopes lists every scope the definition's tools need, sorted.
func (d *ServerDef) Scopes() []string { return toolScopes(d.Tools) }

// toolScopes is the sorted union of the tools' scopes.
func toolScopes(tools []*Tool) []string {
	var out []string
	for _, t := range tools {
		for _, sc := range t.Scopes {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	slices.Sort(out)
	return out
}
