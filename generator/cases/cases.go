// Package cases builds the call cases of a generated server and proves
// every tool callable before any file is written.
//
// For every tool, and every action of an action tool, it synthesises
// arguments from the tool's input schema (normal and boundary values,
// checked by the runtime's own validator), invalid arguments (a missing
// required input, a wrong type, an unknown input, an input the chosen
// action does not use), calls as a caller without the tool's scopes or
// with another caller's handle, upstream faults (each declared error
// status, a timeout, a reset, a malformed and an oversized body) and
// paging; and, for every operation the tools call, an upstream response
// synthesised from the spec's response schema. The generated
// oa2mcp_calls_test.go runs them all with runtime/oa2mcptest. Prove runs
// the success cases through the runtime itself, in process, at
// generation time: a tool that cannot be called is a generation error
// that names the tool and what to fix.
package cases

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// Build fills srv.CallCases and srv.UpstreamResponses. A tool for which
// no valid arguments can be built is an error at the tool's position.
func Build(srv *ir.Server) diag.List {
	var problems diag.List
	if !checkSchemas(srv, &problems) {
		return problems
	}
	srv.UpstreamResponses = responses(srv, &problems)
	srv.CallCases = nil
	// Tools are independent: their cases are built concurrently and
	// joined in tool order.
	perTool := make([][]oa2mcptest.Case, len(srv.Tools))
	errs := make([]*caseError, len(srv.Tools))
	workers.ForEach(len(srv.Tools), func(i int) {
		perTool[i], errs[i] = toolCases(srv, &srv.Tools[i])
	})
	for i := range srv.Tools {
		if err := errs[i]; err != nil {
			t := &srv.Tools[i]
			problems.Errorf(t.Pos, err.fix, "tool %s: %s", t.Name, err.what)
			continue
		}
		srv.CallCases = append(srv.CallCases, perTool[i]...)
	}
	dc, bad := discoveryCases(srv)
	for _, name := range bad {
		problems.Errorf(diag.Position{File: srv.Source}, "report this as an oa2mcp bug", "discovery operation %s: no valid arguments could be synthesised from its input schema", name)
	}
	srv.CallCases = append(srv.CallCases, dc...)
	return problems
}

// caseError says why a tool has no cases, and what to do.
type caseError struct{ what, fix string }

// toolCases builds the cases of one tool.
func toolCases(srv *ir.Server, t *ir.Tool) ([]oa2mcptest.Case, *caseError) {
	root, ok := decodeSchema(t.InputSchema)
	if !ok {
		return nil, &caseError{"its input schema is not a JSON object", "report this as an oa2mcp bug"}
	}
	b := &builder{srv: srv, t: t, root: root, synth: newSynth(root, false)}
	var normals []oa2mcptest.Case
	var firstRequired []string
	if len(t.Actions) > 0 {
		firstRequired = t.Actions[0].Required
		for _, a := range t.Actions {
			c, err := b.success("action "+a.Name, map[string]any{"action": a.Name}, a.Required, false)
			if err != nil {
				return nil, err
			}
			normals = append(normals, c)
		}
	} else {
		c, err := b.success("normal", nil, nil, false)
		if err != nil {
			return nil, err
		}
		normals = append(normals, c)
	}
	out := append([]oa2mcptest.Case(nil), normals...)
	if c, err := b.success("boundary", fixedAction(normals[0]), firstRequired, true); err == nil && c.Args != normals[0].Args {
		out = append(out, c)
	}
	out = append(out, b.invalid(normals[0])...)
	out = append(out, b.access(normals[0])...)
	out = append(out, b.faults(normals[0])...)
	for _, n := range normals {
		// Every action pages with its own shaping.
		out = append(out, b.paging(n)...)
	}
	return out, nil
}

// builder builds the cases of one tool.
type builder struct {
	srv   *ir.Server
	t     *ir.Tool
	root  map[string]any
	synth *synth
}

// fixedAction is the action input of a case's arguments, for building
// another case of the same action.
func fixedAction(c oa2mcptest.Case) map[string]any {
	var args map[string]any
	json.Unmarshal([]byte(c.Args), &args)
	if a, ok := args["action"]; ok {
		return map[string]any{"action": a}
	}
	return nil
}

// success builds a case that must succeed: the required inputs (those of
// the action too), values the spec gives for optional inputs, fixed
// inputs; boundary puts values on their bounds.
func (b *builder) success(name string, fixed map[string]any, required []string, boundary bool) (oa2mcptest.Case, *caseError) {
	root := b.root
	if len(required) > 0 || fixed != nil {
		root = withRequired(root, required, fixed)
	}
	args, ok := b.synth.object(root, boundary, 0, true)
	if !ok {
		return oa2mcptest.Case{}, b.noInput(root)
	}
	for k, v := range fixed {
		args[k] = v
	}
	b.placeholderHandles(args)
	b.dropUnused(args)
	b.fillPatch(args, boundary)
	if !b.synth.valid(b.root, args) {
		return oa2mcptest.Case{}, &caseError{fmt.Sprintf("the arguments %s built for case %q break its own input schema", encodeArgs(args), name),
			"report this as an oa2mcp bug, with the tool's input schema"}
	}
	return oa2mcptest.Case{Tool: b.t.Name, Name: name, Args: encodeArgs(args), Answers: b.answers(),
		WantUpstream: b.reachesUpstream(args)}, nil
}

// placeholderHandles gives every handle input in args a well-formed
// placeholder, which the driver replaces by a handle it creates.
func (b *builder) placeholderHandles(args map[string]any) {
	for _, in := range b.t.HandleInputs {
		if _, ok := args[in.Arg]; !ok {
			continue
		}
		for _, h := range b.srv.Handles {
			if h.Name == in.Type {
				args[in.Arg] = h.Prefix + strings.Repeat("a", 32)
			}
		}
	}
}

// withRequired narrows an action tool's schema to one action: its
// required inputs required, the action fixed.
func withRequired(root map[string]any, required []string, fixed map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range root {
		out[k] = v
	}
	var req []any
	seen := map[string]bool{}
	for _, r := range asList(root["required"]) {
		req = append(req, r)
		seen[fmt.Sprint(r)] = true
	}
	for _, r := range required {
		if !seen[r] {
			req = append(req, r)
		}
	}
	for k := range fixed {
		if !seen[k] {
			req = append(req, k)
		}
	}
	out["required"] = req
	return out
}

// dropUnused removes, for an action tool, inputs the chosen action does
// not read (values the spec gave for other actions' inputs).
func (b *builder) dropUnused(args map[string]any) {
	name, _ := args["action"].(string)
	for _, a := range b.t.Actions {
		if a.Name != name || len(a.Inputs) == 0 {
			continue
		}
		keep := map[string]bool{"action": true}
		for _, in := range a.Inputs {
			keep[in] = true
		}
		for k := range args {
			if !keep[k] {
				delete(args, k)
			}
		}
	}
}

// noInput explains which input has no valid value.
func (b *builder) noInput(root map[string]any) *caseError {
	props := mapOf(root["properties"])
	for _, r := range asList(root["required"]) {
		name, _ := r.(string)
		if _, ok := b.synth.value(mapOf(props[name]), false, 1); !ok {
			schema := encodeArgs(props[name])
			return &caseError{fmt.Sprintf("no valid value can be built for its required input %q (schema %s), so it cannot be called or tested", name, oa2mcpimpl.Clip(schema, 300)),
				fmt.Sprintf("give input %s an example that its schema accepts (input: %s: examples:), or loosen its pattern or bounds", name, name)}
		}
	}
	return &caseError{"no valid arguments can be built from its input schema", "give its inputs examples (input: NAME: examples:)"}
}

// answers are what the user answers when the tool asks (input_required).
func (b *builder) answers() string {
	if len(b.t.Asks) == 0 && b.t.Confirm == "" {
		return ""
	}
	out := map[string]any{}
	for _, a := range b.t.Asks {
		if s, ok := decodeSchema(a.Schema); ok {
			if v, ok := newSynth(s, false).value(s, false, 0); ok {
				out[a.Arg] = v
			}
		}
	}
	return encodeArgs(out)
}

// reachesUpstream reports whether a call with args calls the upstream:
// a one-operation tool, or a step that runs whatever the inputs.
func (b *builder) reachesUpstream(args map[string]any) bool {
	t := b.t
	if t.Op != nil {
		return true
	}
	action, _ := args["action"].(string)
	steps := t.StepsFor(action)
	for _, st := range steps {
		if st.When == "" || args[st.When] == true {
			return true
		}
	}
	return false
}

// requiredOp is the operation whose failure fails the call: the tool's,
// or the first required step's; nil when every step is optional.
func (b *builder) requiredOp(args map[string]any) *ir.Operation {
	t := b.t
	if t.Op != nil {
		return t.Op
	}
	action, _ := args["action"].(string)
	steps := t.StepsFor(action)
	for i := range steps {
		if !steps[i].Optional && steps[i].When == "" {
			return &steps[i].Op
		}
	}
	return nil
}

// invalid builds cases the server must refuse before any upstream call.
func (b *builder) invalid(normal oa2mcptest.Case) []oa2mcptest.Case {
	var args map[string]any
	json.Unmarshal([]byte(normal.Args), &args)
	mk := func(name string, a map[string]any, want ...string) oa2mcptest.Case {
		return oa2mcptest.Case{Tool: b.t.Name, Name: "invalid: " + name, Args: encodeArgs(a), Caller: normal.Caller,
			WantError: true, WantKind: runtime.KindInvalidInput, WantText: want}
	}
	var out []oa2mcptest.Case
	props := mapOf(b.root["properties"])
	for _, r := range sortedStrings(asList(b.root["required"])) {
		if r == "action" && len(b.t.Actions) > 0 {
			continue
		}
		a := copyArgs(args)
		delete(a, r)
		out = append(out, mk("missing "+r, a, r))
		break
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if wrong, ok := wrongType(typeOf(b.synth.resolve(mapOf(props[name])))); ok && name != "action" {
			a := copyArgs(args)
			a[name] = wrong
			out = append(out, mk("wrong type of "+name, a, name))
			break
		}
	}
	if b.root["additionalProperties"] == false {
		a := copyArgs(args)
		a["oa2mcp_unknown_input"] = true
		out = append(out, mk("unknown input", a, "oa2mcp_unknown_input"))
	}
	if c, ok := b.unusedInput(args); ok {
		out = append(out, mk(c.name, c.args, c.input))
	}
	return out
}

// unusedInput builds, for an action tool, arguments giving the chosen
// action an input only another action reads.
func (b *builder) unusedInput(args map[string]any) (struct {
	name, input string
	args        map[string]any
}, bool) {
	var res struct {
		name, input string
		args        map[string]any
	}
	name, _ := args["action"].(string)
	var mine map[string]bool
	for _, a := range b.t.Actions {
		if a.Name == name && len(a.Inputs) > 0 {
			mine = map[string]bool{}
			for _, in := range a.Inputs {
				mine[in] = true
			}
		}
	}
	if mine == nil {
		return res, false
	}
	props := mapOf(b.root["properties"])
	for _, a := range b.t.Actions {
		for _, in := range a.Inputs {
			if mine[in] || in == "action" {
				continue
			}
			v, ok := b.synth.value(mapOf(props[in]), false, 1)
			if !ok {
				continue
			}
			res.args = copyArgs(args)
			res.args[in] = v
			res.name, res.input = fmt.Sprintf("%s given to action %s", in, name), in
			return res, true
		}
	}
	return res, false
}

// access builds cases of other callers: one without the tool's scopes,
// one with another caller's handle, and, when the tool binds the
// caller's identity, another caller, whose own identity the upstream
// must receive (the fake upstream checks every identity-bound value).
func (b *builder) access(normal oa2mcptest.Case) []oa2mcptest.Case {
	var out []oa2mcptest.Case
	if len(b.t.IdentityClaims()) > 0 && normal.WantUpstream && !normal.WantError {
		c := normal
		c.Name, c.Caller = "another caller gets their own data", oa2mcptest.CallerOther
		out = append(out, c)
	}
	if len(b.t.Scopes) > 0 {
		c := normal
		c.Name, c.Caller, c.WantError, c.WantKind, c.WantUpstream = "caller without scope", oa2mcptest.CallerNoScope, true, runtime.KindForbidden, false
		c.HandleOwner = oa2mcptest.CallerDefault
		c.WantText = []string{b.t.Scopes[0]}
		out = append(out, c)
	}
	var args map[string]any
	json.Unmarshal([]byte(normal.Args), &args)
	for _, in := range b.t.HandleInputs {
		if _, ok := args[in.Arg]; !ok {
			continue
		}
		c := normal
		c.Name, c.Caller, c.HandleOwner = "another caller's "+in.Type+" handle", oa2mcptest.CallerOther, oa2mcptest.CallerDefault
		c.WantError, c.WantKind, c.WantUpstream, c.WantText = true, runtime.KindForbidden, false, []string{"not issued to you"}
		out = append(out, c)
		break
	}
	return out
}

// faults builds cases of a failing upstream: each error status the
// operation declares (and 500), a timeout, a reset connection, a
// malformed, an oversized and an HTML body. The call must fail with the
// kind the runtime promises for each.
func (b *builder) faults(normal oa2mcptest.Case) []oa2mcptest.Case {
	var args map[string]any
	json.Unmarshal([]byte(normal.Args), &args)
	op := b.requiredOp(args)
	if op == nil || !normal.WantUpstream {
		return nil
	}
	statuses := append([]int(nil), b.srv.Responses[op.Key()].Errors...)
	statuses = append(statuses, 500)
	seen := map[int]bool{}
	var out []oa2mcptest.Case
	add := func(name, fault, kind string) {
		c := normal
		c.Name, c.Fault, c.WantError, c.WantKind, c.WantUpstream = name, fault, true, kind, true
		c.WantText = nil
		out = append(out, c)
	}
	sort.Ints(statuses)
	for _, code := range statuses {
		if !seen[code] {
			seen[code] = true
			add(fmt.Sprintf("upstream %d", code), oa2mcptest.FaultStatus(code), oa2mcpimpl.ErrorKindForStatus(code))
		}
	}
	add("upstream timeout", oa2mcptest.FaultTimeout, runtime.KindTimeout)
	add("upstream reset", oa2mcptest.FaultReset, runtime.KindConnection)
	add("upstream malformed JSON", oa2mcptest.FaultMalformed, runtime.KindBadResponse)
	add("upstream oversized body", oa2mcptest.FaultOversized, runtime.KindTooLarge)
	add("upstream HTML page", oa2mcptest.FaultHTML, runtime.KindBadResponse)
	return out
}

func copyArgs(a map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	return out
}

func sortedStrings(l []any) []string {
	var out []string
	for _, v := range l {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func wrongType(t string) (any, bool) {
	switch t {
	case "string":
		return json.Number("12345"), true
	case "integer", "number", "boolean", "array", "object":
		return "not-a-" + t, true
	}
	return nil, false
}

// joinNames lists names for a message.
func joinNames(names []string) string { return strings.Join(names, ", ") }
