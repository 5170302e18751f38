package mapping

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// finishActions decides, once the input rewrites are done, which inputs
// each action of an action tool reads and which it needs, from the
// bindings as they finally are: renamed, hidden, dropped and flattened
// inputs follow. The runtime refuses an input the chosen action does not
// read and asks for one it needs; the schema says which action takes an
// input. Inputs the result shaping reads (the page input, hints) and
// inputs the user is asked for count for every action.
func (tb *taskBuilder) finishActions(tool *ir.Tool, in *taskInput, confirm string) {
	if len(tool.Actions) == 0 {
		return
	}
	shared := sharedInputs(tool, confirm)
	usedBy := map[string][]string{}
	for i := range tool.Actions {
		a := &tool.Actions[i]
		reads, needs := map[string]bool{}, map[string]bool{}
		for j := range a.Steps {
			tb.stepInputs(&a.Steps[j], in, reads, needs)
		}
		for name := range reads {
			if explicit, ok := in.explicit[name]; ok {
				needs[name] = explicit && reads[name]
			}
		}
		for name := range shared {
			reads[name] = true
		}
		a.Inputs, a.Required = nil, nil
		for _, name := range sortedKeys(reads) {
			if _, ok := in.props[name]; !ok {
				continue // hidden: filled by the server
			}
			a.Inputs = append(a.Inputs, name)
			if !shared[name] {
				usedBy[name] = append(usedBy[name], a.Name)
			}
			if needs[name] {
				a.Required = append(a.Required, name)
			}
		}
	}
	for name, acts := range usedBy {
		if len(acts) == len(tool.Actions) {
			continue
		}
		if p := in.props[name]; p != nil {
			d, _ := p["description"].(string)
			p["description"] = fmt.Sprintf("For action %s. %s", strings.Join(acts, ", "), d)
		}
	}
}

// sharedInputs are inputs every action accepts: those the shaping reads
// and those the user may be asked for.
func sharedInputs(tool *ir.Tool, confirm string) map[string]bool {
	out := map[string]bool{}
	if o := tool.Output; o != nil {
		if o.PageInput != "" {
			out[o.PageInput] = true
		}
		for _, h := range o.Hints {
			for _, name := range inputRefs(h.Path) {
				out[name] = true
			}
		}
	}
	for _, a := range tool.Asks {
		out[a.Arg] = true
	}
	for _, name := range inputRefs(confirm) {
		out[name] = true
	}
	return out
}

// stepInputs records the inputs a step reads, and those it needs: the
// inputs bound to arguments its operation requires, when the step runs
// on every call (neither optional nor conditional).
func (tb *taskBuilder) stepInputs(st *ir.Step, in *taskInput, reads, needs map[string]bool) {
	info := tb.ops[st.Op.Method+" "+st.Op.Path]
	always := !st.Optional && st.When == ""
	if st.When != "" {
		reads[st.When] = true
	}
	// level: 0 the step's arguments, 1 fields of a bound object, 2
	// elements of a bound array (needed whenever the array is).
	var walk func(bs []ir.Binding, required bool, level int)
	walk = func(bs []ir.Binding, required bool, level int) {
		for _, b := range bs {
			req := required && (level == 2 || level == 0 && (info == nil || info.required[b.Arg]) || level == 1 && b.Required || in.flatRequired[b.Arg])
			for _, name := range inputRefs(b.Expr) {
				reads[name] = true
				if req && always {
					needs[name] = true
				}
			}
			walk(b.Fields, req, 1)
			walk(b.Items, req, 2)
		}
	}
	walk(st.Args, true, 0)
}

// inputRefs lists the tool inputs an expression reads: ${input.NAME...}
// and ${handle.NAME...}, parsed by the runtime's own expression parser.
func inputRefs(expr string) []string {
	if !strings.Contains(expr, "${") {
		return nil
	}
	e, err := runtime.ParseExpr(expr)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range e.Refs {
		if (r.Root == "input" || r.Root == "handle") && len(r.Path) > 0 {
			out = append(out, r.Path[0])
		}
	}
	sort.Strings(out)
	return out
}
