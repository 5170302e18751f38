package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// State handles: handle types with state: true name a JSON object kept by
// the server (e.g. a basket). Pure state tools (no operation, steps or
// actions) create and grow it (updates_handle) or return it; bindings
// read it as ${handle.INPUT.PATH}; consumes_handle deletes it.

// checkHandleRef checks ${handle.INPUT...}: INPUT must be an input of the
// current tool declared with handle: of a state type.
func (tb *taskBuilder) checkHandleRef(ref overrides.Ref, at diag.Position) bool {
	name := ref.Path[0]
	var states []string
	if t := tb.cur; t != nil {
		for _, n := range slices.Sorted(maps.Keys(t.Input)) {
			if f := t.Input[n]; f != nil && f.Handle != "" && tb.ov.Handles[f.Handle] != nil && tb.ov.Handles[f.Handle].State {
				states = append(states, n)
			}
		}
		if u := t.UpdatesHandle; u != nil && t.Input[u.Input] == nil {
			states = append(states, u.Input)
		}
	}
	for _, n := range states {
		if n == name {
			return true
		}
	}
	if t := tb.cur; t != nil && t.Input[name] != nil && t.Input[name].Handle != "" {
		typ := t.Input[name].Handle
		tb.problems.Errorf(at, "add state: true to handles."+typ+", or read the id with ${input."+name+"}", "%s reads input %q, whose %s handles name an upstream id, not state", ref, name, typ)
		return false
	}
	fix := "declare input " + name + " with handle: TYPE, a handle type with state: true"
	if len(states) > 0 {
		fix = "use one of: " + strings.Join(states, ", ")
	}
	tb.problems.Errorf(at, fix, "%s reads input %q, which takes no state handle", ref, name)
	return false
}

// pureStateInputs starts a tool without upstream call: its handle inputs
// and the bindings of updates_handle.
func (tb *taskBuilder) pureStateInputs(tool *ir.Tool, in *taskInput, t *overrides.Tool, path string) {
	for _, name := range slices.Sorted(maps.Keys(t.Input)) {
		if f := t.Input[name]; f != nil && f.Handle != "" && f.Type == "" {
			in.add(name, map[string]any{"type": "string"}, true, "")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(t.Input)) {
		if f := t.Input[name]; f != nil && f.Handle == "" && f.Type != "" {
			in.add(name, map[string]any{"type": f.Type, "description": synthDescriptionText(name, f.Type)}, false, "")
		}
	}
	u := t.UpdatesHandle
	if u == nil {
		states := 0
		for _, f := range t.Input {
			if f != nil && f.Handle != "" && tb.ov.Handles[f.Handle] != nil && tb.ov.Handles[f.Handle].State {
				states++
			}
		}
		if states != 1 {
			tb.problems.Errorf(tb.ov.Pos(path), "give it one input with handle: of a state type", "tool %q has no operation and reads %d state handles", t.Name, states)
		}
		tool.Doc = []string{"Pure state tool from the override file: returns a state handle's state, no upstream call."}
		return
	}
	ht := tb.ov.Handles[u.Type]
	if ht == nil {
		return // reported by the overrides package
	}
	up := path + ".updates_handle"
	upd := &ir.HandleUpdate{Type: u.Type, Arg: u.Input}
	for _, kind := range []string{"append", "set"} {
		m := u.Append
		if kind == "set" {
			m = u.Set
		}
		for _, field := range slices.Sorted(maps.Keys(m)) {
			b, ok := tb.stateBinding(in, field, m[field], up+"."+kind+"."+field)
			if !ok {
				continue
			}
			if kind == "append" {
				upd.Append = append(upd.Append, b)
			} else {
				upd.Set = append(upd.Set, b)
			}
		}
	}
	tool.UpdatesHandle = upd
	if f := t.Input[u.Input]; f == nil || f.Handle == "" {
		in.props[u.Input] = map[string]any{"type": "string"}
		desc := fmt.Sprintf("The %s to add to; leave it out to start a new one.", orWord(ht.Description, u.Type))
		if f != nil && f.Description != "" {
			desc = f.Description
		}
		tb.handleInput(tool, in, u.Input, &overrides.Field{Handle: u.Type, Description: desc}, up)
	}
	delete(in.required, u.Input)
	tool.Doc = []string{"Pure state tool from the override file: creates or updates a " + u.Type + " handle, no upstream call."}
}

// stateBinding compiles one append/set value of updates_handle.
func (tb *taskBuilder) stateBinding(in *taskInput, field string, v any, p string) (ir.Binding, bool) {
	if obj, ok := v.(map[string]any); ok {
		b := ir.Binding{Arg: field}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			sub, ok := tb.stateBinding(in, k, obj[k], p+"."+k)
			if !ok {
				return b, false
			}
			b.Fields = append(b.Fields, sub)
		}
		return b, true
	}
	expr, err := overrides.ParseExpr(v)
	if err != nil {
		return ir.Binding{}, false // reported by the overrides package
	}
	if len(expr.Refs) == 0 {
		c, _ := json.Marshal(expr.Const)
		return ir.Binding{Arg: field, Const: string(c)}, true
	}
	at := tb.ov.Pos(p)
	ok := true
	for _, ref := range expr.Refs {
		switch ref.Root {
		case "input":
			if _, has := in.props[ref.Path[0]]; !has {
				tb.problems.Errorf(at, "declare it under input: with type:", "%s reads undeclared input %q", ref, ref.Path[0])
				ok = false
			}
		case "config":
			if _, has := tb.ov.Config[ref.Path[0]]; !has {
				tb.problems.Errorf(at, "add it under config:", "unknown config value %q", ref.Path[0])
				ok = false
			}
		case "handle":
			ok = tb.checkHandleRef(ref, at) && ok
		case "steps":
			tb.problems.Errorf(at, "read ${input.NAME}, ${config.NAME} or ${handle.INPUT.PATH}", "%s: a tool updating a handle has no steps", ref)
			ok = false
		}
	}
	return ir.Binding{Arg: field, Expr: expr.Template}, ok
}

// stateAnnotations: a pure state tool makes no upstream call.
func stateAnnotations(t *ir.Tool, ft *overrides.Tool) {
	t.ReadOnly = ft.UpdatesHandle == nil && ft.ConsumesHandle == ""
	t.Idempotent = t.ReadOnly
	t.Destructive = ft.UpdatesHandle == nil && ft.ConsumesHandle != ""
	t.OpenWorld = false
	overrideAnnotations(t, ft.Annotations)
}

// stateToolNotes adds the state settings to a built tool's description.
func (tb *taskBuilder) stateToolNotes(tool *ir.Tool, in *taskInput, t *overrides.Tool, path string) {
	if u := t.UpdatesHandle; u != nil && tool.UpdatesHandle != nil {
		ht := tb.ov.Handles[u.Type]
		d, _ := overrides.ParseLifetime(ht.Lifetime)
		life := lifetimePhrase(int(d.Seconds()), ht.Expiry == "fixed")
		use := "this tool"
		for _, name := range tb.handleTools(u.Type, false) {
			if name != tool.Name {
				use += " and " + name
			}
		}
		tool.Description += fmt.Sprintf(" Leave out %s to start a new %s. Returns %s, a handle for this %s to pass to %s, and its state; it expires %s, and only you can use it.",
			u.Input, orWord(ht.Description, u.Type), u.Input, orWord(ht.Description, u.Type), use, life)
	}
	if c := t.ConsumesHandle; c != "" {
		final := c
		if f := t.Input[c]; f != nil {
			final = finalName(c, f)
		}
		if _, ok := in.props[final]; !ok {
			tb.problems.Errorf(tb.ov.Pos(path+".consumes_handle"), "name a handle input of this tool", "consumes_handle: tool %q has no input %q", t.Name, final)
			return
		}
		tool.ConsumesHandle = final
		tool.Description += fmt.Sprintf(" Once it succeeds, the %s handle is used up and no longer valid.", final)
	}
}
