package ovgen

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// unit is one shaped result of a tool as the file wrote it: the tool's,
// or one action's (action is then its name).
type unit struct {
	action string
	out    *outPlan
	// src is the operation the result's list and picks come from.
	src *catOp
	// prefix is the src step's place in a multi-step result.
	prefix string
}

func units(tp *toolPlan) []unit {
	switch {
	case len(tp.actions) > 0:
		var out []unit
		for _, a := range tp.actions {
			src := a.op
			if src == nil {
				src = a.steps[0].op
			}
			out = append(out, unit{action: a.name, out: a.output, src: src})
		}
		return out
	case tp.op != nil:
		return []unit{{out: tp.output, src: tp.op}}
	case len(tp.steps) == 1:
		return []unit{{out: tp.output, src: tp.steps[0].op}}
	}
	u := unit{out: tp.output}
	if tp.output != nil {
		for _, st := range tp.steps {
			for _, p := range append(pickPaths(tp.output), listPath(tp.output)) {
				if strings.HasPrefix(p, st.id+".") || strings.HasPrefix(p, "steps."+st.id+".") || p == "steps."+st.id+".body" || p == st.id {
					u.src, u.prefix = st.op, st.id
				}
			}
		}
	}
	return []unit{u}
}

func pickPaths(o *outPlan) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(o.pick)) {
		out = append(out, o.pick[k])
	}
	return out
}

func listPath(o *outPlan) string {
	if o.list == nil {
		return ""
	}
	return o.list.path
}

// relPath is a result path relative to the source step's response.
func relPath(path, prefix string) string {
	if prefix == "" {
		return path
	}
	path = strings.TrimPrefix(path, "steps."+prefix+".body")
	path = strings.TrimPrefix(path, prefix)
	return strings.TrimPrefix(path, ".")
}

// normalArgs are the generated "normal" arguments of a tool or action,
// with the answers to its questions: a synthesised valid input.
func (h *harness) normalArgs(tool, action string) (map[string]any, bool) {
	name := "normal"
	if action != "" {
		name = "action " + action
	}
	for _, c := range h.ir.CallCases {
		if c.Tool != tool || c.Name != name || c.WantError {
			continue
		}
		v, err := oa2mcpimpl.DecodeJSON(c.Args)
		args, _ := v.(map[string]any)
		if err != nil || args == nil {
			return nil, false
		}
		if c.Answers != "" {
			a, _ := oa2mcpimpl.DecodeJSON(c.Answers)
			answers, _ := a.(map[string]any)
			for k, x := range answers {
				args[k] = x
			}
		}
		return args, true
	}
	return nil, false
}

// checkTool checks one tool: every action callable with a synthesised
// input, the requests on the wire, picks, output schemas, paging and
// error texts.
func (h *harness) checkTool(p *plan, i int, tp *toolPlan, tool *ir.Tool, st *stats) []failure {
	var out []failure
	fail := func(inv, format string, a ...any) {
		out = append(out, failure{inv, fmt.Sprintf("tool %s: ", tool.Name) + fmt.Sprintf(format, a...)})
	}
	forbidden := h.forbidden(tp, tool)
	if tp.op != nil {
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		json.Unmarshal([]byte(tool.InputSchema), &in)
		for name, prm := range tp.op.params {
			p := in.Properties[name]
			if prm.Required && p != nil && p["type"] == "array" && p["minItems"] == nil {
				st.checks++
				fail("a required list input takes at least one item", "%s is %v", name, p)
			}
		}
	}
	out = append(out, checkActionSchema(tool, st)...)
	for _, u := range units(tp) {
		args, ok := h.normalArgs(tool.Name, u.action)
		if !ok {
			fail("every tool is callable with a synthesised valid input", "no normal call case for action %q", u.action)
			continue
		}
		res, reqs, err := h.call(tool.Name, copyArgs(args), nil, 0)
		st.checks++
		if err != nil || res.IsError {
			fail("every tool is callable with a synthesised valid input", "action %q with %v: %v %s", u.action, args, err, resultText(res))
			continue
		}
		out = append(out, h.checkWire(tool, tp, args, reqs, st)...)
		out = append(out, h.checkPicks(tool, u, res, reqs, st)...)
		out = append(out, h.checkSchema(tool, u, res, st)...)
		if u.out != nil && u.out.list != nil {
			out = append(out, h.checkPaging(tool, u, args, st)...)
			st.paged[kindOf(tp)+"/"+pager(u.out.list)]++
		}
		out = append(out, h.checkErrors(tool, u, args, forbidden, st)...)
	}
	return out
}

func kindOf(tp *toolPlan) string {
	switch {
	case tp.op != nil:
		return "operation"
	case len(tp.actions) > 0:
		return "actions"
	}
	return "steps"
}

func pager(l *listPlan) string {
	switch {
	case l.pageInput == "":
		return "none"
	case l.wire != "":
		return "upstream/" + l.pageKind
	}
	return "server/" + l.pageKind
}

func copyArgs(a map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	return out
}

// checkWire: no request carries an unexpanded expression; every value
// in a request is one the caller, the file or an earlier answer gave;
// no write of a body the file bound goes out empty.
func (h *harness) checkWire(tool *ir.Tool, tp *toolPlan, args map[string]any, reqs []request, st *stats) []failure {
	var out []failure
	allowed := map[string]bool{"oa2mcp-test-a": true, "oa2mcp-test-credential": true}
	leaves(args, allowed)
	encodings(args, allowed)
	for _, v := range splitAll(allowed) {
		allowed[v] = true
	}
	fileValues(tp, allowed)
	written := map[string]bool{}
	for _, st := range tp.steps {
		written[st.op.key] = true
	}
	// Only the action called: another action may write the same
	// operation from the file while this one maps it as the spec has it
	// (an optional body may then be absent).
	for _, a := range tp.actions {
		if args["action"] != a.name {
			continue
		}
		for _, st := range a.steps {
			written[st.op.key] = true
		}
	}
	for _, r := range reqs {
		st.checks++
		if r.op == nil {
			out = append(out, failure{"every request is for an operation of the tool", fmt.Sprintf("tool %s: %s %s", tool.Name, r.method, r.path)})
			continue
		}
		raw := r.path + "?" + r.query.Encode() + " " + string(r.body)
		if strings.Contains(raw, "${") || strings.Contains(raw, "%24%7B") {
			out = append(out, failure{"no request carries an unexpanded expression", fmt.Sprintf("tool %s: %s %s", tool.Name, r.op.Key(), raw)})
		}
		var seen []string
		for _, vs := range r.query {
			for _, v := range vs {
				seen = append(seen, v)
			}
		}
		seen = append(seen, pathValues(r)...)
		if len(r.body) > 0 {
			if v, err := oa2mcpimpl.DecodeJSON(string(r.body)); err == nil {
				m := map[string]bool{}
				leaves(v, m)
				seen = append(seen, slices.Sorted(maps.Keys(m))...)
			}
		}
		for _, v := range seen {
			if !allowed[v] && !allowedParts(v, allowed) {
				out = append(out, failure{"every value in a request is one the caller or the file gave", fmt.Sprintf("tool %s: %s sent %q, which no input, constant or earlier answer holds (arguments %v)", tool.Name, r.op.Key(), v, args)})
			}
		}
		if m := map[string]bool{}; r.resp != "" {
			if v, err := oa2mcpimpl.DecodeJSON(r.resp); err == nil {
				leaves(v, m)
				for k := range m {
					allowed[k] = true
				}
			}
		}
		if written[r.op.Key()] && r.op.Body != nil && !strings.EqualFold(r.method, "GET") {
			if b := strings.TrimSpace(string(r.body)); b == "" || b == "{}" || b == "[]" {
				out = append(out, failure{"no write reaches the upstream with an empty body", fmt.Sprintf("tool %s: %s got body %q (arguments %v)", tool.Name, r.op.Key(), b, args)})
			}
		}
	}
	return out
}

// allowedParts accepts a value joined from allowed values (an array
// query parameter sent as "a,b").
func allowedParts(v string, allowed map[string]bool) bool {
	parts := strings.Split(v, ",")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if !allowed[p] {
			return false
		}
	}
	return true
}

func splitAll(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, strings.Split(k, ",")...)
	}
	return out
}

// fileValues are the constants the file gives (value:).
func fileValues(tp *toolPlan, out map[string]bool) {
	add := func(fields map[string]*fieldPlan) {
		for _, f := range fields {
			if f.value != nil {
				out[fmt.Sprint(f.value)] = true
			}
		}
	}
	add(tp.input)
	for _, a := range tp.actions {
		add(a.input)
	}
}

// pathValues are the values in a request's path parameters.
func pathValues(r request) []string {
	path, _, _ := strings.Cut(r.op.Path, "?")
	tmpl := strings.Split(strings.Trim(path, "/"), "/")
	segs := strings.Split(strings.Trim(r.path, "/"), "/")
	var out []string
	for i, t := range tmpl {
		if !strings.Contains(t, "{") || i >= len(segs) {
			continue
		}
		// A parameter inside a segment ("{id}.json") is the part between
		// the template's literals.
		vals := []string{segs[i]}
		if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
			vals = nil
			if m := segmentRE(t).FindStringSubmatch(segs[i]); m != nil {
				vals = m[1:]
			}
		}
		for _, seg := range vals {
			if v, err := url.PathUnescape(seg); err == nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// checkPicks: every picked field present in the upstream's answer is
// present in the result.
func (h *harness) checkPicks(tool *ir.Tool, u unit, res *mcp.CallToolResult, reqs []request, st *stats) []failure {
	if u.out == nil || u.out.list != nil || len(u.out.pick) == 0 || u.src == nil {
		return nil
	}
	var body any
	for _, r := range reqs {
		if r.op != nil && r.op.Key() == u.src.key && r.resp != "" {
			body, _ = oa2mcpimpl.DecodeJSON(r.resp)
		}
	}
	got := structured(res)
	var out []failure
	for _, name := range slices.Sorted(maps.Keys(u.out.pick)) {
		st.checks++
		if _, ok := lookup(body, relPath(u.out.pick[name], u.prefix)); ok {
			if _, has := got[name]; !has {
				out = append(out, failure{"every picked field the upstream sent is in the result", fmt.Sprintf("tool %s: %s (%s) missing from %v", tool.Name, name, u.out.pick[name], got)})
			}
		}
	}
	return out
}

// checkSchema: the result validates against the output schema (the
// tool's and the action's), which has a type wherever the response
// schema has one.
func (h *harness) checkSchema(tool *ir.Tool, u unit, res *mcp.CallToolResult, st *stats) []failure {
	var out []failure
	schemas := []string{tool.OutputSchema}
	for _, a := range tool.Actions {
		if a.Name == u.action {
			schemas = append(schemas, a.OutputSchema)
		}
	}
	got := structured(res)
	for _, text := range schemas {
		if text == "" {
			continue
		}
		st.checks++
		s, err := oa2mcpimpl.CompileSchema(text)
		if err != nil {
			out = append(out, failure{"the output schema compiles", err.Error()})
			continue
		}
		if err := s.Validate(got); err != nil {
			out = append(out, failure{"the result validates against the outputSchema", fmt.Sprintf("tool %s: %v", tool.Name, err)})
		}
	}
	if u.out == nil || len(u.out.pick) == 0 {
		return out
	}
	if tool.OutputSchema == "" && u.action == "" {
		return append(out, failure{"a shaped result has an outputSchema", "tool " + tool.Name})
	}
	text := tool.OutputSchema
	for _, a := range tool.Actions {
		if a.Name == u.action && a.OutputSchema != "" {
			text = a.OutputSchema
		}
	}
	if text == "" {
		return append(out, failure{"a shaped result has an outputSchema", "tool " + tool.Name + " action " + u.action})
	}
	var root map[string]any
	json.Unmarshal([]byte(text), &root)
	props := propsOf(root)
	if u.out.list != nil {
		items, _ := propsOf(root)["items"].(map[string]any)
		it, _ := items["items"].(map[string]any)
		props = propsOf(it)
	}
	for _, name := range slices.Sorted(maps.Keys(u.out.pick)) {
		st.checks++
		s, _ := props[name].(map[string]any)
		if u.out.pickTypes[name] != "" && untyped(s, root) {
			out = append(out, failure{"the outputSchema has no empty {} where the response schema has a type", fmt.Sprintf("tool %s: %s (%s, %s in the response) is %v", tool.Name, name, u.out.pick[name], u.out.pickTypes[name], s)})
		}
	}
	return out
}

func propsOf(s map[string]any) map[string]any {
	p, _ := s["properties"].(map[string]any)
	return p
}

// untyped: a schema that says nothing of its value's type.
func untyped(s, root map[string]any) bool {
	if s == nil {
		return true
	}
	for _, k := range []string{"type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const", "properties", "items"} {
		if _, ok := s[k]; ok {
			return false
		}
	}
	return true
}

// checkPaging: following nextPage from the first page gives the whole
// list the upstream holds, in order; totalCount is its size; hasMore is
// false exactly on the last page.
func (h *harness) checkPaging(tool *ir.Tool, u unit, args map[string]any, st *stats) []failure {
	l := u.out.list
	if l.pageInput != "" {
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		json.Unmarshal([]byte(tool.InputSchema), &in)
		st.checks++
		if p := in.Properties[l.pageInput]; p != nil && p["minimum"] == nil && p["$ref"] == nil {
			return []failure{{"a page input has the lower bound of its kind", fmt.Sprintf("tool %s: %s is %v", tool.Name, l.pageInput, p)}}
		}
	}
	base, _ := oa2mcpimpl.DecodeJSON(h.ir.UpstreamResponses[l.opKey].Body)
	var item any = map[string]any{}
	if list, ok := lookupList(base, l.rel); ok && len(list) > 0 {
		item = list[0]
	}
	n := 2*l.limit + 1
	pl := &pagedList{rel: l.rel, wire: l.wire, number: l.pageKind == "number", limit: l.limit, base: base, item: item, n: n}
	lists := map[string]*pagedList{l.opKey: pl}
	a := copyArgs(args)
	if l.pageInput != "" {
		delete(a, l.pageInput)
	}
	fail := func(format string, x ...any) []failure {
		return []failure{{"paging: the nextPage chain gives the whole list, totalCount its size, hasMore false exactly on the last page",
			fmt.Sprintf("tool %s action %q (%s paging by %q, wire %q, limit %d, %d items): ", tool.Name, u.action, l.pageKind, l.pageInput, l.wire, l.limit, n) + fmt.Sprintf(format, x...)}}
	}
	var all []any
	for page := 0; page < n+2; page++ {
		st.checks++
		res, _, err := h.call(tool.Name, copyArgs(a), lists, 0)
		if err != nil || res.IsError {
			return fail("page %d failed: %v %s", page+1, err, resultText(res))
		}
		got := structured(res)
		items, _ := got["items"].([]any)
		all = append(all, items...)
		more, _ := got["hasMore"].(bool)
		if tc, ok := got["totalCount"]; ok && fmt.Sprint(tc) != fmt.Sprint(n) {
			return fail("page %d says totalCount %v", page+1, tc)
		}
		if _, ok := got["totalCount"]; !ok && l.wire == "" {
			return fail("page %d has no totalCount although the server holds the whole list", page+1)
		}
		next, _ := got["nextPage"].(map[string]any)
		if !more {
			if next != nil {
				return fail("the last page still has nextPage %v", next)
			}
			break
		}
		if l.pageInput == "" {
			if len(items) != l.limit {
				return fail("the one page has %d items", len(items))
			}
			return nil
		}
		if next == nil {
			return fail("page %d has hasMore but no nextPage: %v", page+1, got)
		}
		a[l.pageInput] = next[l.pageInput]
	}
	if len(all) != n {
		return fail("the pages hold %d items in all", len(all))
	}
	if len(u.out.pick) == 0 {
		for i, it := range all {
			if m, ok := it.(map[string]any); ok && fmt.Sprint(m["oa2mcp_seq"]) != fmt.Sprint(i) {
				return fail("item %d of the pages is item %v of the list", i, m["oa2mcp_seq"])
			}
		}
	}
	return nil
}

func lookupList(v any, path string) ([]any, bool) {
	x, ok := lookup(v, path)
	list, isList := x.([]any)
	return list, ok && isList
}

// forbidden are names a model must never read in an error: step ids,
// names renamed away, operation ids, expressions.
func (h *harness) forbidden(tp *toolPlan, tool *ir.Tool) []string {
	var in struct {
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal([]byte(tool.InputSchema), &in)
	out := []string{"${"}
	for _, st := range tp.steps {
		out = append(out, st.id)
	}
	for _, a := range tp.actions {
		for _, st := range a.steps {
			out = append(out, st.id)
		}
	}
	for _, old := range tp.renamedFrom {
		if _, still := in.Properties[old]; !still {
			out = append(out, fmt.Sprintf("%q", old))
		}
	}
	for _, op := range tool.Operations() {
		// An operationId that is also a value of the inputs ("refresh_token"
		// as an example) may be quoted for that.
		if op.OperationID != "" && !strings.Contains(tool.InputSchema, op.OperationID) && !strings.Contains(tool.Description, op.OperationID) {
			out = append(out, fmt.Sprintf("%q", op.OperationID))
		}
	}
	return out
}

// checkErrors: an unknown input, a missing required one and an
// upstream 404 are errors in the tool's own terms.
func (h *harness) checkErrors(tool *ir.Tool, u unit, args map[string]any, forbidden []string, st *stats) []failure {
	var out []failure
	check := func(what string, a map[string]any, fault int, must string) {
		st.checks++
		res, _, err := h.call(tool.Name, a, nil, fault)
		if err != nil || !res.IsError {
			out = append(out, failure{"bad arguments and upstream faults are errors", fmt.Sprintf("tool %s: %s answered %v %s", tool.Name, what, err, resultText(res))})
			return
		}
		text := resultText(res)
		if must != "" && !strings.Contains(text, must) {
			out = append(out, failure{"an error names the input it is about", fmt.Sprintf("tool %s: %s: %q does not name %q", tool.Name, what, text, must)})
		}
		for _, f := range forbidden {
			if strings.Contains(text, f) {
				out = append(out, failure{"error text names only the tool's own inputs, actions and sibling tools", fmt.Sprintf("tool %s: %s: %q names %s", tool.Name, what, text, f)})
			}
		}
	}
	bad := copyArgs(args)
	bad["oa2mcp_zz"] = 1
	check("an unknown input", bad, 0, "oa2mcp_zz")
	for _, r := range requiredOf(tool, u.action) {
		a := copyArgs(args)
		delete(a, r)
		check("input "+r+" left out", a, 0, r)
	}
	check("an upstream 404", copyArgs(args), 404, "")
	return out
}

// requiredOf are the inputs a call of the action must give.
func requiredOf(tool *ir.Tool, action string) []string {
	var in struct {
		Required []string `json:"required"`
	}
	json.Unmarshal([]byte(tool.InputSchema), &in)
	var out []string
	for _, r := range in.Required {
		if r != "action" {
			out = append(out, r)
		}
	}
	for _, a := range tool.Actions {
		if a.Name == action {
			out = append(out, a.Required...)
		}
	}
	for _, ask := range tool.Asks {
		out = slices.DeleteFunc(out, func(s string) bool { return s == ask.Arg })
	}
	return out
}

// checkActionSchema: an action tool's "action" input says what each
// action does (no empty line, whether or not the file described it), and
// an input every action requires is required by the tool's schema.
func checkActionSchema(tool *ir.Tool, st *stats) []failure {
	if len(tool.Actions) == 0 {
		return nil
	}
	var out []failure
	var in struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	json.Unmarshal([]byte(tool.InputSchema), &in)
	desc, _ := in.Properties["action"]["description"].(string)
	st.checks++
	for _, a := range tool.Actions {
		if strings.Contains(desc, a.Name+": ;") || strings.HasSuffix(desc, a.Name+": .") || strings.TrimSpace(a.Description) == "" {
			out = append(out, failure{"every action says what it does", fmt.Sprintf("tool %s: action %q in %q", tool.Name, a.Name, desc)})
		}
	}
	for _, n := range tool.Actions[0].Required {
		all := true
		for _, a := range tool.Actions[1:] {
			all = all && slices.Contains(a.Required, n)
		}
		st.checks++
		if all && !slices.Contains(in.Required, n) {
			out = append(out, failure{"an input every action needs is required by the schema", fmt.Sprintf("tool %s: %s not in %v", tool.Name, n, in.Required)})
		}
	}
	return out
}
