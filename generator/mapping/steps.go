package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// stepScope tracks the steps declared so far in one step list, so a
// binding may only read steps that come before it.
type stepScope map[string]*opInfo

// steps builds a step list, checking every binding against the schemas.
func (tb *taskBuilder) steps(in *taskInput, steps []*overrides.Step, path string) []ir.Step {
	scope := stepScope{}
	var out []ir.Step
	for i, s := range steps {
		sp := fmt.Sprintf("%s[%d]", path, i)
		info := tb.lookup(s.Operation, sp+".operation")
		if info == nil {
			continue
		}
		step := ir.Step{ID: s.ID, Op: info.call, Optional: s.Optional, When: s.When}
		after := map[string]bool{}
		for _, arg := range slices.Sorted(maps.Keys(s.Args)) {
			b, ok := tb.binding(in, info, s, arg, sp, scope, after)
			if ok {
				step.Args = append(step.Args, b)
			}
		}
		tb.checkRequiredArgs(info, s, sp)
		if !s.Optional && s.When == "" {
			// A write needs what it writes (an empty PUT means
			// nothing); required: false in the file says otherwise.
			for _, name := range info.emptyWriteInputs(step.Args) {
				in.required[name] = true
			}
		}
		if s.When != "" {
			in.add(s.When, map[string]any{"type": "boolean", "description": fmt.Sprintf("Set to true to also run the %s step.", s.ID)}, false, "")
		}
		step.After = slices.Sorted(maps.Keys(after))
		scope[s.ID] = info
		out = append(out, step)
		in.mergeDefs(info.defs)
	}
	return out
}

// binding checks and converts one step argument binding.
func (tb *taskBuilder) binding(in *taskInput, info *opInfo, s *overrides.Step, arg, sp string, scope stepScope, after map[string]bool) (ir.Binding, bool) {
	pos := sp + ".args." + arg
	rawSchema, ok := info.in.props[arg]
	argSchema, _ := rawSchema.(map[string]any)
	if !ok {
		fix := choices("bind one of", slices.Sorted(maps.Keys(info.in.props)), "the operation takes no inputs: remove this argument")
		if sug := oa2mcpimpl.Suggest(arg, slices.Sorted(maps.Keys(info.in.props))); sug != "" {
			fix = "did you mean " + sug + "?"
		}
		tb.problems.Errorf(tb.ov.Pos(pos), fix, "operation %s has no input %q", s.Operation, arg)
		return ir.Binding{}, false
	}
	if holdsReference(s.Args[arg]) {
		t := bindTarget{label: arg, schema: argSchema, required: info.required[arg], pos: pos}
		b, ok := tb.structuredBinding(in, info, s, s.Args[arg], t, scope, after)
		b.Arg = arg
		return b, ok
	}
	expr, err := overrides.ParseExpr(s.Args[arg])
	if err != nil {
		return ir.Binding{}, false // reported by the overrides package
	}
	if len(expr.Refs) == 0 {
		if p := valueProblem(argSchema, info.defs, expr.Const); p != "" {
			tb.problems.Errorf(tb.ov.Pos(pos), "bind a value the operation accepts: "+describeSchema(resolveDef(argSchema, info.defs)),
				"the constant %s does not fit %s.%s: %s", mustMarshal(expr.Const), s.Operation, arg, p)
		}
		c, _ := json.Marshal(expr.Const)
		return ir.Binding{Arg: arg, Const: string(c)}, true
	}
	for _, ref := range expr.Refs {
		tb.checkRef(in, info, s, bindTarget{label: arg, schema: argSchema, required: info.required[arg], pos: pos}, ref, expr.Whole, scope, after)
	}
	return ir.Binding{Arg: arg, Expr: expr.Template}, true
}

// checkRef validates one reference and records what it implies: a new
// tool input, or a dependency on an earlier step.
func (tb *taskBuilder) checkRef(in *taskInput, info *opInfo, s *overrides.Step, t bindTarget, ref overrides.Ref, whole bool, scope stepScope, after map[string]bool) {
	at := tb.ov.Pos(t.pos)
	arg, argSchema := t.label, t.schema
	switch ref.Root {
	case "input":
		name := ref.Path[0]
		required := t.required && !s.Optional && s.When == ""
		schema := argSchema
		if !whole {
			// A template builds the argument from text: the input is a
			// part of it, so it never inherits the argument's schema (its
			// $ref, pattern or type); input.NAME.type may declare its own.
			schema = map[string]any{"type": "string"}
		}
		in.add(name, schema, required, "")
		if p := in.props[name]; p != nil && p["description"] == nil && p["$ref"] == nil {
			// A field of a bound object seldom says what it is; the
			// model sees it as an input of its own.
			p["description"] = synthDescriptionText(name, schemaType(p))
		}
		if info.required[arg] {
			in.feeds[name] = true
		}
		if f := tb.ovField(name); f != nil && f.Type != "" && whole && !tb.bindable(f.Type, argSchema, info) {
			tb.problems.Errorf(at, "make the types agree", "type mismatch: input %q is %s but %s.%s wants %s", name, f.Type, s.Operation, arg, describeSchema(resolveDef(argSchema, info.defs)))
		}
	case "identity":
		if whole {
			tb.checkIdentityTarget(argSchema, info.defs, ref.Path[0], s.Operation+"."+arg, t.pos)
		}
	case "config":
		if _, ok := tb.ov.Config[ref.Path[0]]; !ok {
			tb.problems.Errorf(at, "add it under config:", "unknown config value %q", ref.Path[0])
		}
	case "handle":
		if tb.checkHandleRef(ref, at) || tb.cur.Input[ref.Path[0]] != nil {
			in.add(ref.Path[0], map[string]any{"type": "string"}, true, "")
		}
	case "steps":
		id := ref.Path[0]
		src, ok := scope[id]
		if !ok {
			tb.problems.Errorf(at, "refer to a step declared earlier in the list", "%s refers to unknown or later step %q", ref, id)
			return
		}
		after[id] = true
		if ref.Path[1] == "body" {
			tb.checkBodyPath(src, ref, argSchema, info, whole, at, s.Operation, arg)
		}
	}
}

// checkBodyPath resolves ${steps.ID.body.PATH} in the step's success
// response schema: an unknown field or a type mismatch is an error.
func (tb *taskBuilder) checkBodyPath(src *opInfo, ref overrides.Ref, argSchema map[string]any, target *opInfo, whole bool, at load.Position, op, arg string) {
	s := successSchema(src.op)
	w := src.in.w
	for _, seg := range ref.Path[2:] {
		name, indexed := strings.CutSuffix(seg, "]")
		if indexed {
			name = name[:strings.IndexByte(name, '[')]
		}
		r := w.resolve(s)
		if r == nil || (len(r.Properties) == 0 && len(r.AllOf) == 0) {
			return // unknown shape: nothing to check against
		}
		props, _, _, ok := (&inputBuilder{w: w}).objectShape(r)
		next, found := props[name]
		if !ok || !found {
			tb.problems.Errorf(at, "fields there: "+strings.Join(slices.Sorted(maps.Keys(props)), ", "), "%s: the response of %s has no field %q", ref, src.op.ID, name)
			return
		}
		s = next
		if indexed {
			if rr := w.resolve(s); rr != nil {
				s = rr.Items
			}
		}
	}
	if got := loadType(w.resolve(s)); whole && got != "" && !tb.bindable(got, argSchema, target) {
		tb.problems.Errorf(at, "bind a field of the right type", "type mismatch: %s is %s but %s.%s wants %s", ref, got, op, arg, describeSchema(resolveDef(argSchema, target.defs)))
	}
}

// checkRequiredArgs reports required operation inputs left unbound.
func (tb *taskBuilder) checkRequiredArgs(info *opInfo, s *overrides.Step, sp string) {
	var missing []string
	for name := range info.required {
		if _, ok := s.Args[name]; !ok {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		tb.problems.Errorf(tb.ov.Pos(sp), "bind them under args:, e.g. "+missing[0]+": ${input."+missing[0]+"}",
			"step %q: operation %s requires %s", s.ID, s.Operation, oa2mcpimpl.JoinList(missing))
	}
}

func (tb *taskBuilder) ovField(name string) *overrides.Field {
	for _, t := range tb.ov.Tools {
		if t != nil && t.Input[name] != nil {
			return t.Input[name]
		}
	}
	return nil
}

// successSchema is the schema of the first 2xx response with a body.
func successSchema(op *load.Operation) *load.Schema {
	for _, r := range op.Responses {
		if strings.HasPrefix(r.Status, "2") && r.Schema != nil {
			return r.Schema
		}
	}
	return nil
}

func loadType(s *load.Schema) string {
	if s == nil {
		return ""
	}
	return s.Type
}

func schemaType(s map[string]any) string {
	t, _ := s["type"].(string)
	return t
}

// typesCompatible allows integers where numbers are wanted, and numbers
// where plain text is wanted (values are serialised to text anyway).
func typesCompatible(got, want string) bool {
	return got == want || (got == "integer" && want == "number") || want == "string" && (got == "integer" || got == "number")
}

// bindable reports whether a value of type got may feed an argument of
// the operation: a number may fill a free-text string, never one with a
// pattern, enum or format (an integer cannot match "^B-[0-9]{4}$").
func (tb *taskBuilder) bindable(got string, argSchema map[string]any, info *opInfo) bool {
	target := resolveDef(argSchema, info.defs)
	want := schemaType(target)
	if want == "" {
		return true
	}
	if got != want && want == "string" && stringConstrained(target) {
		return false
	}
	return typesCompatible(got, want)
}

// actions builds an action tool: one step list per action, an "action"
// enum input and the union of the actions' inputs.
func (tb *taskBuilder) actions(tool *ir.Tool, in *taskInput, t *overrides.Tool, path string) {
	var lines []string
	for _, name := range slices.Sorted(maps.Keys(t.Actions)) {
		a := t.Actions[name]
		ap := path + ".actions." + name
		act := ir.Action{Name: name, Description: strings.TrimSpace(a.Description)}
		sub := newTaskInput()
		if a.Operation != "" {
			info := tb.lookup(a.Operation, ap+".operation")
			if info == nil {
				continue
			}
			sub.addOp(info, "")
			var args []ir.Binding
			for _, arg := range slices.Sorted(maps.Keys(info.in.props)) {
				args = append(args, ir.Binding{Arg: arg, Expr: "${input." + arg + "}"})
			}
			act.Steps = []ir.Step{{ID: name, Op: info.call, Args: args}}
			if act.Description == "" {
				act.Description = oa2mcpimpl.PlainText(firstNonEmpty(info.op.Summary, derivedPurpose(info.op)))
			}
		} else {
			act.Steps = tb.steps(sub, a.Steps, ap+".steps")
			if act.Description == "" {
				act.Description = tb.stepsPurpose(a.Steps)
			}
		}
		// The action's own input: rewrites only its own inputs and
		// bindings, before the tool's input: applies to all actions.
		one := &ir.Tool{}
		one.Actions = []ir.Action{act}
		tb.rewriteInputs(one, sub, a.Input, t.Name, ap)
		act = one.Actions[0]
		act.Required = sub.requiredNames()
		in.mergeAction(name, sub)
		tool.Actions = append(tool.Actions, act)
		lines = append(lines, fmt.Sprintf("%s: %s", name, strings.TrimSuffix(act.Description, ".")))
	}
	in.props["action"] = map[string]any{
		"type": "string", "enum": toAny(slices.Sorted(maps.Keys(t.Actions))),
		"description": "What to do. " + strings.Join(lines, "; ") + ".",
	}
	in.required["action"] = true
}

// requiredByAll are the inputs every action requires, in name order.
func requiredByAll(actions []ir.Action) []string {
	if len(actions) == 0 {
		return nil
	}
	out := actions[0].Required
	for _, a := range actions[1:] {
		var both []string
		for _, n := range out {
			if slices.Contains(a.Required, n) {
				both = append(both, n)
			}
		}
		out = both
	}
	return slices.Sorted(slices.Values(out))
}

// stepsPurpose says what an action of steps does when the file gives it
// no description: its operations' summaries in order ("Initiate a
// Droplet Action"), so the action enum never lists an empty line.
func (tb *taskBuilder) stepsPurpose(steps []*overrides.Step) string {
	var parts []string
	for _, st := range steps {
		info := tb.ops[st.Operation]
		if info == nil {
			continue
		}
		p := strings.TrimSuffix(oa2mcpimpl.PlainText(firstNonEmpty(info.op.Summary, derivedPurpose(info.op))), ".")
		if fixed := fixedArgs(st.Args, ""); len(fixed) > 0 {
			p += " with " + strings.Join(fixed, ", ")
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ", then ")
}

// fixedArgs are a step's constant bindings ("type reboot"), at any depth
// of structured bindings, in name order: what tells two actions of one
// operation apart.
func fixedArgs(args map[string]any, at string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		switch v := args[k].(type) {
		case map[string]any:
			out = append(out, fixedArgs(v, at+k+".")...)
		case string:
			if !strings.Contains(v, "${") {
				out = append(out, fmt.Sprintf("%s %s", strings.TrimPrefix(at+k, "body."), v))
			}
		case bool, int, int64, uint64, float64:
			out = append(out, fmt.Sprintf("%s %v", strings.TrimPrefix(at+k, "body."), v))
		}
	}
	return out
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}
