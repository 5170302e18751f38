package mapping

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// finishActions decides, once the input rewrites are done, which inputs
// each action of an action tool reads and which it needs, from the
// bindings as they finally are: renamed, hidden, dropped and flattened
// inputs follow. The runtime refuses an input the chosen action does not
// read and asks for one it needs; the schema says which action takes an
// input. Inputs the action's result shaping reads (its page input,
// hints) and inputs the user is asked for count for the action. An input
// the file itself binds into a write step of an action (args: of a POST,
// PUT, PATCH or DELETE step that always runs) is what that write means
// when the operation requires no body field: the action needs it, unless
// the file says required: false (emptyWriteInputs). An input every
// action needs is required by the tool's schema.
func (tb *taskBuilder) finishActions(tool *ir.Tool, in *taskInput, t *overrides.Tool) {
	if len(tool.Actions) == 0 {
		return
	}
	usedBy := map[string][]string{}
	for i := range tool.Actions {
		a := &tool.Actions[i]
		shared := sharedInputs(a.Output, tool.Asks, t.Confirm)
		written := t.Actions[a.Name] != nil && len(t.Actions[a.Name].Steps) > 0
		reads, needs := map[string]bool{}, map[string]bool{}
		for j := range a.Steps {
			tb.stepInputs(&a.Steps[j], in, written, reads, needs)
		}
		for name := range reads {
			if explicit, ok := in.explicitFor(a.Name, name); ok {
				needs[name] = explicit && reads[name]
			}
		}
		for name := range shared {
			reads[name] = true
		}
		a.Inputs, a.Required = nil, nil
		for _, name := range slices.Sorted(maps.Keys(reads)) {
			if _, ok := in.props[name]; !ok {
				continue // hidden: filled by the server
			}
			a.Inputs = append(a.Inputs, name)
			usedBy[name] = append(usedBy[name], a.Name)
			if needs[name] {
				a.Required = append(a.Required, name)
			}
		}
	}
	// An input every action needs is required by the tool's schema too,
	// so a client's form and a model's first call already carry it.
	for _, n := range requiredByAll(tool.Actions) {
		in.required[n] = true
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

// sharedInputs are inputs an action accepts besides those its calls
// read: those its result shaping reads and those the user may be asked
// for.
func sharedInputs(o *ir.Output, asks []ir.Ask, confirm string) map[string]bool {
	out := map[string]bool{}
	if o != nil {
		if o.PageInput != "" {
			out[o.PageInput] = true
		}
		for _, h := range o.Hints {
			for _, name := range inputRefs(h.Path) {
				out[name] = true
			}
		}
	}
	for _, a := range asks {
		out[a.Arg] = true
	}
	for _, name := range inputRefs(confirm) {
		out[name] = true
	}
	return out
}

// stepInputs records the inputs a step reads, and those it needs: the
// inputs bound to arguments its operation requires and, when the file
// wrote the step's args: (written), those without which a write would
// be empty (emptyWriteInputs); both only when the step runs on every
// call (neither optional nor conditional).
func (tb *taskBuilder) stepInputs(st *ir.Step, in *taskInput, written bool, reads, needs map[string]bool) {
	info := tb.opInfo(&st.Op)
	always := !st.Optional && st.When == ""

	if st.When != "" {
		reads[st.When] = true
	}
	if written && always {
		for _, name := range info.emptyWriteInputs(st.Args) {
			needs[name] = true
		}
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

// emptyWriteInputs are the inputs a write step must have to write
// anything: when the operation (POST, PUT, PATCH, DELETE) takes a body
// of which it requires no field, the inputs bound into the body's
// fields. Without them the step would send an empty body (a rename
// without the new name) and report success. Nil when the body has a
// required field (the step binds it) or the step writes no body.
func (info *opInfo) emptyWriteInputs(args []ir.Binding) []string {
	if info == nil || !isWriteMethod(info.op.Method) || info.call.Body == nil {
		return nil
	}
	body := map[string]bool{}
	if b := info.call.Body; b.Arg != "" {
		body[b.Arg] = true
	} else {
		for _, f := range b.Fields {
			body[f.Arg] = true
		}
	}
	var out []string
	for _, b := range args {
		if !body[b.Arg] {
			continue
		}
		if info.required[b.Arg] {
			return nil
		}
		out = append(out, bindingInputs(b)...)
	}
	return out
}

// bindingInputs are the inputs a binding and its field and element
// bindings read.
func bindingInputs(b ir.Binding) []string {
	out := inputRefs(b.Expr)
	for _, f := range append(append([]ir.Binding(nil), b.Fields...), b.Items...) {
		out = append(out, bindingInputs(f)...)
	}
	return out
}

// isWriteMethod reports an HTTP method that changes the upstream's data.
// It is what the tool annotations read from the method: not read-only.
func isWriteMethod(method string) bool {
	return !readOnlyMethod(strings.ToUpper(method))
}

// inputRefs lists the tool inputs an expression reads: ${input.NAME...}
// and ${handle.NAME...}, parsed by the runtime's own expression parser.
func inputRefs(expr string) []string {
	if !strings.Contains(expr, "${") {
		return nil
	}
	e, err := oa2mcpimpl.ParseExpr(expr)
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
