package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// rewriteInputs applies an input: section (a tool's, or one action's,
// at path): renames, hidden values, drops, flattening and schema
// refinements. Bindings that read a rewritten input follow it. A
// one-operation tool whose bindings end up as the identity needs no step
// and calls its operation directly.
func (tb *taskBuilder) rewriteInputs(tool *ir.Tool, in *taskInput, fields map[string]*overrides.Field, toolName, path string) {
	for _, name := range rewriteOrder(fields, in) {
		f := fields[name]
		fp := path + ".input." + name
		if f == nil {
			continue
		}
		if _, ok := in.props[name]; !ok && f.Type != "" {
			// A declared input no operation reads, e.g. a paging offset
			// the output shaping uses.
			in.add(name, map[string]any{"type": f.Type, "description": synthDescriptionText(name, f.Type)}, false, "")
		}
		if _, ok := in.props[name]; !ok && tb.curMissingOp {
			continue // the unknown operation is the error; it may have had this input
		}
		if _, ok := in.props[name]; !ok {
			fix := "declare it with type: to add it; the tool has no other inputs"
			if len(in.props) > 0 {
				fix = "declare it with type: to add it, or use one of: " + strings.Join(slices.Sorted(maps.Keys(in.props)), ", ")
			}
			if s := oa2mcpimpl.Suggest(name, slices.Sorted(maps.Keys(in.props))); s != "" {
				fix = "did you mean " + s + "?"
			}
			tb.problems.Errorf(tb.ov.Pos(fp), fix, "tool %q has no input %q", toolName, name)
			continue
		}
		tb.rewriteOne(tool, in, name, f, fp)
	}
	// Only a one-operation tool has an Op to fall back on: a file's own
	// step may be named "call" too.
	if tool.Op != nil && len(tool.Steps) == 1 && tool.Steps[0].ID == "call" && identityBindings(tool.Steps[0].Args) {
		tool.Steps = nil
	}
	if len(tool.Steps) > 0 || len(tool.Actions) > 0 {
		tool.Op = nil
	}
}

// rewriteOrder orders the input: keys so that every rewrite composes
// with every other: a flattened object comes before the fields it lifts
// (a field of it may be renamed, fixed, dropped or flattened again), and
// everything else by name.
func rewriteOrder(fields map[string]*overrides.Field, in *taskInput) []string {
	names := slices.Sorted(maps.Keys(fields))
	known := map[string]bool{}
	for n := range in.props {
		known[n] = true
	}
	var out []string
	done := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for _, n := range names {
			if done[n] || !known[n] {
				continue
			}
			done[n], progress = true, true
			out = append(out, n)
			if f := fields[n]; f != nil && f.Flatten {
				for _, sub := range flattenedNames(in.props[n], in.defs) {
					known[sub] = true
				}
			}
		}
	}
	for _, n := range names {
		if !done[n] {
			out = append(out, n) // a new or unknown input: reported in place
		}
	}
	return out
}

// flattenedNames are the inputs flattening an object input creates.
func flattenedNames(schema map[string]any, defs map[string]any) []string {
	props, _ := resolveDef(schema, defs)["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

func (tb *taskBuilder) rewriteOne(tool *ir.Tool, in *taskInput, name string, f *overrides.Field, fp string) {
	schema := in.props[name]
	refine(schema, f)
	if len(f.Variants) > 0 {
		tb.narrow(in, name, f.Variants, fp+".variants")
	}
	tb.checkFieldValues(in, name, f, fp)
	switch {
	case f.Required != nil && len(tool.Actions) > 0:
		// Per action: an action tool's schema requires only "action".
		in.explicit[name] = *f.Required
	case f.Required != nil:
		in.required[name] = *f.Required
	}
	from := "${input." + name + "}"
	switch {
	case f.Drop:
		if in.required[name] || in.feeds[name] {
			// An optional step still needs what its operation requires.
			tb.problems.Errorf(tb.ov.Pos(fp+".drop"), "give it a fixed value with value:, env: or config: instead", "input %q is required and cannot be dropped", name)
			return
		}
		removeInput(in, name)
		replaceBindings(tool, from, nil)
	case f.Value != nil:
		c, _ := json.Marshal(f.Value)
		removeInput(in, name)
		replaceBindings(tool, from, &ir.Binding{Const: string(c)})
	case f.Env != "", f.Config != "", f.Identity != "":
		expr := "${env." + f.Env + "}"
		if f.Config != "" {
			if _, ok := tb.ov.Config[f.Config]; !ok {
				tb.problems.Errorf(tb.ov.Pos(fp+".config"), "add it under config:", "unknown config value %q", f.Config)
			}
			expr = "${config." + f.Config + "}"
		}
		if f.Identity != "" {
			expr = "${identity." + f.Identity + "}"
			tb.checkIdentityTarget(schema, in.defs, f.Identity, "input "+strconv.Quote(name), fp+".identity")
		}
		removeInput(in, name)
		replaceBindings(tool, from, &ir.Binding{Expr: expr})
	case f.Flatten:
		tb.flatten(tool, in, name, fp)
	case f.Rename != "" && f.Rename != name:
		if _, taken := in.props[f.Rename]; taken {
			tb.problems.Errorf(tb.ov.Pos(fp+".rename"), "choose a name no other input uses", "cannot rename %q to %q: that input exists", name, f.Rename)
			return
		}
		in.props[f.Rename], in.required[f.Rename] = schema, in.required[name]
		if v, ok := in.explicit[name]; ok {
			in.explicit[f.Rename] = v
		}
		for _, m := range in.actionExplicit {
			if v, ok := m[name]; ok {
				m[f.Rename] = v
			}
		}
		in.flatRequired[f.Rename] = in.flatRequired[name]
		in.feeds[f.Rename] = in.feeds[name]
		in.renameInConstraints(name, f.Rename)
		removeInput(in, name)
		replaceBindings(tool, from, &ir.Binding{Expr: "${input." + f.Rename + "}"})
	}
}

// narrow applies variants: to a union input; a name that matches no
// variant, or an input that is no union, is an error at the key.
func (tb *taskBuilder) narrow(in *taskInput, name string, wanted []string, at string) {
	unknown, known := narrowUnion(in.props[name], in.defs, wanted)
	switch {
	case len(known) == 0:
		tb.problems.Errorf(tb.ov.Pos(at), "remove variants:, or put it on an input whose schema is a oneOf or anyOf", "input %q is not a union of variants", name)
	case len(unknown) > 0:
		fix := "name variants by schema name, title or tag value: " + strings.Join(known, ", ")
		if sug := oa2mcpimpl.Suggest(unknown[0], known); sug != "" {
			fix = "did you mean " + sug + "?"
		}
		tb.problems.Errorf(tb.ov.Pos(at), fix, "input %q has no variant %s", name, oa2mcpimpl.JoinList(quoted(unknown)))
	}
}

func quoted(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strconv.Quote(s)
	}
	return out
}

// checkFieldValues checks the values the file gives an input (enum,
// default, examples, value) against the input's schema, each at its own
// position: a default the schema refuses would be published to the model,
// and a hidden value the schema refuses would fail every call.
func (tb *taskBuilder) checkFieldValues(in *taskInput, name string, f *overrides.Field, fp string) {
	schema := in.props[name]
	bare := without(schema, "enum", "default", "examples", "const")
	for i, e := range f.Enum {
		if p := valueProblem(bare, in.defs, e); p != "" {
			tb.problems.Errorf(tb.ov.Pos(fmt.Sprintf("%s.enum[%d]", fp, i)), "list values that are "+describeSchema(resolveDef(bare, in.defs)), "enum value %s of input %q does not fit its schema: %s", mustMarshal(e), name, p)
		}
	}
	check := func(key string, v any) {
		if p := valueProblem(without(schema, "default", "examples"), in.defs, v); p != "" {
			tb.problems.Errorf(tb.ov.Pos(fp+"."+key), "give "+describeSchema(resolveDef(schema, in.defs)), "%s %s of input %q does not fit its schema: %s", strings.ReplaceAll(key, "_", " "), mustMarshal(v), name, p)
		}
	}
	if f.Default != nil {
		check("default", f.Default)
	}
	for i, ex := range f.Examples {
		check(fmt.Sprintf("examples[%d]", i), ex)
	}
	if f.Value != nil {
		check("value", f.Value)
	}
}

// refine applies schema refinements from the file to one property.
func refine(schema map[string]any, f *overrides.Field) {
	set := func(key string, v any, ok bool) {
		if ok {
			schema[key] = v
		}
	}
	set("description", f.Description, f.Description != "")
	set("type", f.Type, f.Type != "")
	set("default", f.Default, f.Default != nil)
	set("enum", f.Enum, len(f.Enum) > 0)
	set("pattern", f.Pattern, f.Pattern != "")
	set("format", f.Format, f.Format != "")
	set("examples", f.Examples, len(f.Examples) > 0)
	if f.Minimum != nil {
		schema["minimum"] = *f.Minimum
	}
	if f.Maximum != nil {
		schema["maximum"] = *f.Maximum
	}
	if f.MinLen != nil {
		schema["minLength"] = *f.MinLen
	}
	if f.MaxLen != nil {
		schema["maxLength"] = *f.MaxLen
	}
}

// flatten lifts an object input's properties to the top level; the
// binding of the original argument becomes an object of field bindings.
func (tb *taskBuilder) flatten(tool *ir.Tool, in *taskInput, name, fp string) {
	// A copy: its lists come back as []any, as the checks below read them.
	obj := deepCopy(resolveDef(in.props[name], in.defs))
	props, _ := obj["properties"].(map[string]any)
	if len(props) == 0 {
		tb.problems.Errorf(tb.ov.Pos(fp+".flatten"), "flatten only object inputs with properties", "input %q is not an object with properties", name)
		return
	}
	req := map[string]bool{}
	if list, ok := obj["required"].([]any); ok {
		for _, r := range list {
			req[r.(string)] = true
		}
	}
	parentRequired := in.required[name]
	var fields []ir.Binding
	for _, sub := range slices.Sorted(maps.Keys(props)) {
		if _, taken := in.props[sub]; taken {
			tb.problems.Errorf(tb.ov.Pos(fp+".flatten"), "rename the other input first", "flattening %q: input %q exists already", name, sub)
			return
		}
		s, _ := props[sub].(map[string]any)
		if d, _ := s["description"].(string); d == "" && s != nil {
			// A field of a shared object seldom says what it is; the
			// model sees it as an input of its own now.
			s["description"] = synthDescriptionText(sub, schemaType(s))
		}
		in.add(sub, s, parentRequired && req[sub] && len(tool.Actions) == 0, "")
		in.flatRequired[sub] = req[sub]
		fields = append(fields, ir.Binding{Arg: sub, Expr: "${input." + sub + "}"})
	}
	removeInput(in, name)
	replaceBindings(tool, "${input."+name+"}", &ir.Binding{Fields: fields})
}

func removeInput(in *taskInput, name string) {
	in.dropConstraintsOn(name)
	delete(in.props, name)
	delete(in.required, name)
	delete(in.explicit, name)
	delete(in.flatRequired, name)
	delete(in.feeds, name)
	for _, m := range in.actionExplicit {
		delete(m, name)
	}
}

// replaceBindings rewrites every binding whose expression is exactly
// from, at any depth (fields of flattened or bound objects, elements of
// bound arrays): with repl (keeping the argument name), or removes it
// when repl is nil. Templates that mention from get the new expression
// spliced in. An object or array left with no parts is removed too.
func replaceBindings(tool *ir.Tool, from string, repl *ir.Binding) {
	for i := range tool.Steps {
		tool.Steps[i].Args = replaceIn(tool.Steps[i].Args, from, repl, true)
	}
	for i := range tool.Actions {
		for j := range tool.Actions[i].Steps {
			tool.Actions[i].Steps[j].Args = replaceIn(tool.Actions[i].Steps[j].Args, from, repl, true)
		}
	}
}

// replaceIn is replaceBindings over one list; named lists (arguments and
// object fields) stay sorted by name, array elements keep their order.
func replaceIn(args []ir.Binding, from string, repl *ir.Binding, named bool) []ir.Binding {
	out := args[:0]
	for _, b := range args {
		switch {
		case b.Expr == from && repl == nil:
			continue
		case b.Expr == from:
			nb := *repl
			nb.Arg, nb.Required = b.Arg, b.Required
			b = nb
		case repl != nil && repl.Expr != "" && strings.Contains(b.Expr, from):
			b.Expr = strings.ReplaceAll(b.Expr, from, repl.Expr)
		case len(b.Fields) > 0:
			if b.Fields = replaceIn(b.Fields, from, repl, true); len(b.Fields) == 0 {
				continue
			}
		case len(b.Items) > 0:
			if b.Items = replaceIn(b.Items, from, repl, false); len(b.Items) == 0 {
				continue
			}
		}
		out = append(out, b)
	}
	if named {
		sort.Slice(out, func(i, j int) bool { return out[i].Arg < out[j].Arg })
	}
	return out
}

func identityBindings(args []ir.Binding) bool {
	for _, b := range args {
		if b.Expr != "${input."+b.Arg+"}" {
			return false
		}
	}
	return true
}
