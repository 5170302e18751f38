package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// State and access settings of task tools: handle inputs and
// outputs, inputs asked from the user, confirmations, x-mcp-header,
// scopes, rate limits and idempotency keys. The override package checked
// what needs no spec; this file checks the rest against the tools.

// finalName is an input's name after its rename.
func finalName(name string, f *overrides.Field) string {
	if f.Rename != "" {
		return f.Rename
	}
	return name
}

// toolNameOf is a file tool's final name.
func (tb *taskBuilder) toolNameOf(t *overrides.Tool) string {
	if tb.prefix != "" {
		return SnakeCase(tb.prefix) + "_" + t.Name
	}
	return t.Name
}

// handleTools lists the tools that create (or take) a handle type.
func (tb *taskBuilder) handleTools(typ string, creators bool) []string {
	var out []string
	for _, t := range tb.ov.Tools {
		if t == nil {
			continue
		}
		hit := false
		if creators {
			hit = t.CreatesHandle != nil && t.CreatesHandle.Type == typ ||
				t.UpdatesHandle != nil && t.UpdatesHandle.Type == typ
		} else {
			hit = t.UpdatesHandle != nil && t.UpdatesHandle.Type == typ
			for _, f := range t.Input {
				if f != nil && f.Handle == typ {
					hit = true
				}
			}
		}
		if hit {
			out = append(out, tb.toolNameOf(t))
		}
	}
	sort.Strings(out)
	return out
}

// inlineSchema returns the property schema with a top-level $ref
// resolved, so it is reachable through properties alone.
func inlineSchema(in *taskInput, s map[string]any) map[string]any {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s
	}
	d, ok := in.defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	if !ok {
		return s
	}
	out := deepCopy(d)
	for k, v := range s {
		if k != "$ref" {
			out[k] = v
		}
	}
	return out
}

// stateInputs applies handle:, ask: and mcp_header: to the inputs.
func (tb *taskBuilder) stateInputs(tool *ir.Tool, in *taskInput, t *overrides.Tool, path string) {
	for _, name := range slices.Sorted(maps.Keys(t.Input)) {
		f := t.Input[name]
		if f == nil || (f.Handle == "" && f.Ask == "" && f.MCPHeader == "") {
			continue
		}
		fp := path + ".input." + name
		final := finalName(name, f)
		schema, ok := in.props[final]
		if !ok {
			continue // hidden or unknown: reported elsewhere
		}
		if f.Handle != "" {
			tb.handleInput(tool, in, final, f, fp)
		}
		if f.Ask != "" {
			s := inlineSchema(in, schema)
			if typ := schemaType(s); typ != "string" && typ != "integer" && typ != "number" && typ != "boolean" {
				tb.problems.Errorf(tb.ov.Pos(fp+".ask"), "ask only for strings, numbers or booleans (elicitation forms are flat)", "input %q is %s and cannot be asked in a form", final, orWord(typ, "untyped"))
			} else {
				in.props[final] = s
				delete(in.required, final)
				b, _ := json.Marshal(askSchema(s))
				tool.Asks = append(tool.Asks, ir.Ask{Arg: final, Message: strings.TrimSpace(f.Ask), Schema: string(b)})
			}
		}
		if f.MCPHeader != "" {
			tb.mcpHeader(in, name, final, f, fp)
		}
	}
	sort.Slice(tool.HandleInputs, func(i, j int) bool { return tool.HandleInputs[i].Arg < tool.HandleInputs[j].Arg })
	sort.Slice(tool.Asks, func(i, j int) bool { return tool.Asks[i].Arg < tool.Asks[j].Arg })
}

// askSchema keeps the keywords an elicitation form understands.
func askSchema(s map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"type", "title", "description", "enum", "pattern", "minLength", "maxLength", "minimum", "maximum", "format", "default"} {
		if v, ok := s[k]; ok {
			out[k] = v
		}
	}
	return out
}

func orWord(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func (tb *taskBuilder) handleInput(tool *ir.Tool, in *taskInput, final string, f *overrides.Field, fp string) {
	ht := tb.ov.Handles[f.Handle]
	if ht == nil {
		return // reported by the overrides package
	}
	creators := tb.handleTools(f.Handle, true)
	if len(creators) == 0 {
		tb.problems.Errorf(tb.ov.Pos(fp+".handle"), "add creates_handle: {type: "+f.Handle+", from: ...} (or updates_handle: for state handles) to the tool that returns it", "no tool creates %s handles", f.Handle)
		return
	}
	what := orWord(ht.Description, f.Handle)
	desc := strings.TrimSpace(f.Description)
	if desc == "" {
		desc = fmt.Sprintf("The %s to act on.", what)
	}
	in.props[final] = map[string]any{
		"type":        "string",
		"description": fmt.Sprintf("%s Pass the %s handle (%s...) that %s returned; never a number or name you made up.", ensureDot(desc), f.Handle, ht.Prefix, strings.Join(creators, " or ")),
		"examples":    []any{oa2mcpimpl.HandleExample(ht.Prefix)},
	}
	tool.HandleInputs = append(tool.HandleInputs, ir.HandleInput{Arg: final, Type: f.Handle})
}

func ensureDot(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") {
		return s
	}
	return s + "."
}

// mcpHeader marks an input with x-mcp-header after the specification's
// rules: a primitive (string, integer, boolean) top-level property that
// is no secret.
func (tb *taskBuilder) mcpHeader(in *taskInput, name, final string, f *overrides.Field, fp string) {
	at := tb.ov.Pos(fp + ".mcp_header")
	s := inlineSchema(in, in.props[final])
	typ := schemaType(s)
	switch {
	case f.Handle != "":
		tb.problems.Errorf(at, "remove mcp_header from handle inputs", "input %q takes a handle, which names a caller's object; it is not mirrored into a header", final)
	case typ != "string" && typ != "integer" && typ != "boolean":
		tb.problems.Errorf(at, "mark a string, integer or boolean input (never number, array or object)", "input %q is %s; x-mcp-header allows only string, integer and boolean", final, orWord(typ, "untyped or a union"))
	case isSecretSchema(s):
		tb.problems.Errorf(at, "remove mcp_header: headers are logged by gateways", "input %q is a password (format: password or writeOnly) and must not be sent as a header", final)
	case f.Sensitive:
		tb.problems.Errorf(at, "remove mcp_header or sensitive: true", "input %q is marked sensitive and must not be mirrored into a header", final)
	case oa2mcpimpl.IsSecretName(name) || oa2mcpimpl.IsSecretName(final):
		tb.problems.Errorf(at, "remove mcp_header: headers are logged by gateways and proxies", "input %q looks like a secret (its name mentions a token, secret, password or key) and must not be mirrored into a header", final)
	case tb.isSchemeParam(name):
		tb.problems.Errorf(at, "remove mcp_header", "input %q is a security-scheme parameter and must not be mirrored into a header", final)
	default:
		s["x-mcp-header"] = f.MCPHeader
		in.props[final] = s
	}
}

func (tb *taskBuilder) isSchemeParam(name string) bool {
	for _, s := range tb.doc.SecuritySchemes {
		if s != nil && s.ParamName != "" && strings.EqualFold(s.ParamName, name) {
			return true
		}
	}
	return false
}

// stateTool sets a built tool's handle output, confirmation, scopes,
// rate limit and idempotency header; it runs after describe.
func (tb *taskBuilder) stateTool(tool *ir.Tool, in *taskInput, t *overrides.Tool, path string) {
	if c := t.CreatesHandle; c != nil && tb.ov.Handles[c.Type] != nil {
		tb.createsHandle(tool, c, tb.ov.Handles[c.Type], path+".creates_handle")
	}
	tb.stateToolNotes(tool, in, t, path)
	if t.Confirm != "" {
		if e, err := overrides.ParseExpr(t.Confirm); err == nil {
			for _, r := range e.Refs {
				if r.Root != "input" {
					tb.problems.Errorf(tb.ov.Pos(path+".confirm"), "use ${input.NAME} only", "confirm text reads %s; it may only read the tool's inputs", r)
				} else if _, ok := in.props[r.Path[0]]; !ok {
					tb.problems.Errorf(tb.ov.Pos(path+".confirm"), choices("use one of", slices.Sorted(maps.Keys(in.props)), "the tool has no inputs: write the question without ${input...}"), "confirm text reads unknown input %q", r.Path[0])
				}
			}
		}
		tool.Confirm = strings.TrimSpace(t.Confirm)
		tool.Description += " Asks the user to confirm before it runs."
	}
	if len(tool.Asks) > 0 {
		var names []string
		for _, a := range tool.Asks {
			names = append(names, a.Arg)
		}
		tool.Description += fmt.Sprintf(" If you leave out %s, the user is asked for it.", oa2mcpimpl.JoinList(names))
	}
	tb.inputRequestKey(tool, t, path)
	if len(t.Scopes) > 0 {
		tool.Scopes = append([]string(nil), t.Scopes...)
		sort.Strings(tool.Scopes)
	}
	tool.RateLimit = rateLimitIR(t.RateLimit)
	if h := t.IdempotencyHeader; h != "" {
		found := tool.Op != nil && setIdempotency(tool.Op, h)
		for i := range tool.Steps {
			found = setIdempotency(&tool.Steps[i].Op, h) || found
		}
		for i := range tool.Actions {
			for j := range tool.Actions[i].Steps {
				found = setIdempotency(&tool.Actions[i].Steps[j].Op, h) || found
			}
		}
		if !found {
			tb.problems.Errorf(tb.ov.Pos(path+".idempotency_header"), "name a header parameter of an operation the tool calls", "no operation of tool %q has a header parameter %q", t.Name, h)
		}
	}
}

func setIdempotency(c *ir.Operation, h string) bool {
	for _, p := range c.Params {
		if p.In == "header" && strings.EqualFold(p.Name, h) {
			c.IdempotencyKeyHeader = p.Name
			return true
		}
	}
	return false
}

func rateLimitIR(r *overrides.RateLimit) *ir.RateLimit {
	if r == nil {
		return nil
	}
	return &ir.RateLimit{PerMinute: r.PerMinute, Burst: r.Burst}
}

func (tb *taskBuilder) createsHandle(tool *ir.Tool, c *overrides.CreatesHandle, ht *overrides.HandleType, cp string) {
	field := c.Field
	if field == "" {
		field = c.Type + "_handle"
	}
	from := strings.TrimSpace(c.From)
	first := strings.SplitN(strings.SplitN(from, ".", 2)[0], "[", 2)[0]
	if o := tool.Output; o != nil && len(o.Pick) > 0 && o.Limit == 0 {
		var names []string
		found := false
		for _, p := range o.Pick {
			names = append(names, p.Name)
			found = found || p.Name == first
		}
		if !found {
			tb.problems.Errorf(tb.ov.Pos(cp+".from"), "use a picked field: "+strings.Join(names, ", "), "from: %q is not a field of the tool's result", from)
			return
		}
		for _, p := range append(append([]ir.Pick(nil), o.Pick...), o.Hints...) {
			if p.Name == field {
				tb.problems.Errorf(tb.ov.Pos(cp), "set field: to another name", "the handle field %q clashes with a result field", field)
				return
			}
		}
	}
	tool.CreatesHandle = &ir.HandleOutput{Type: c.Type, From: from, Field: field}
	d, _ := overrides.ParseLifetime(ht.Lifetime)
	life := lifetimePhrase(int(d.Seconds()), ht.Expiry == "fixed")
	takers := tb.handleTools(c.Type, false)
	use := "later calls"
	if len(takers) > 0 {
		use = strings.Join(takers, " and ")
	}
	tool.Description += fmt.Sprintf(" Returns %s, a handle for this %s to pass to %s; it expires %s, and only you can use it.", field, orWord(ht.Description, c.Type), use, life)
	if tool.OutputSchema != "" {
		var root map[string]any
		if json.Unmarshal([]byte(tool.OutputSchema), &root) == nil {
			if props, ok := root["properties"].(map[string]any); ok {
				props[field] = map[string]any{"type": "string", "description": fmt.Sprintf("Handle of this %s (expires %s).", orWord(ht.Description, c.Type), life)}
				if s, err := ir.JSON(root); err == nil {
					tool.OutputSchema = s
				}
			}
		}
	}
}

// lifetimePhrase matches the runtime's wording.
func lifetimePhrase(secs int, fixed bool) string {
	n, unit := secs/60, "minute"
	switch {
	case secs%86400 == 0 && secs >= 2*86400:
		n, unit = secs/86400, "day"
	case secs%3600 == 0:
		n, unit = secs/3600, "hour"
	}
	if n != 1 {
		unit += "s"
	}
	if fixed {
		return fmt.Sprintf("%d %s after it is created", n, unit)
	}
	return fmt.Sprintf("after %d %s without use", n, unit)
}

// finishState fills the server-level settings once every tool is built.
func (tb *taskBuilder) finishState(srv *ir.Server) {
	ov := tb.ov
	srv.Redis = ov.Server.HandleStore == "redis"
	for _, h := range ov.Server.PassHeaders {
		srv.PassHeaders = append(srv.PassHeaders, http.CanonicalHeaderKey(h))
	}
	srv.RateLimit = rateLimitIR(ov.Server.RateLimit)
	srv.Sensitive = sortedUnique(append(srv.Sensitive, ov.Server.Redact...))
	for _, h := range ov.Server.AllowRedirectHosts {
		srv.RedirectHosts = append(srv.RedirectHosts, strings.ToLower(h))
	}
	for _, name := range slices.Sorted(maps.Keys(ov.Handles)) {
		h := ov.Handles[name]
		if h == nil {
			continue
		}
		d, err := overrides.ParseLifetime(h.Lifetime)
		if err != nil {
			continue
		}
		creators := tb.handleTools(name, true)
		if len(creators) == 0 {
			tb.problems.Errorf(ov.Pos("handles."+name), "add creates_handle: {type: "+name+", from: ...} to a tool, or remove the type", "no tool creates %s handles", name)
		}
		if len(tb.handleTools(name, false)) == 0 {
			tb.problems.Warnf(ov.Pos("handles."+name), "add handle: "+name+" to the input of a tool that acts on it", "no tool takes %s handles", name)
		}
		srv.Handles = append(srv.Handles, ir.HandleType{Name: name, Prefix: h.Prefix, LifetimeSeconds: int(d.Seconds()),
			Fixed: h.Expiry == "fixed", State: h.State, Description: h.Description, Creators: creators})
	}
}

// inputRequestKeyRE is what a key of inputRequests may be: a short
// identifier that clients log and echo.
var inputRequestKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]{0,63}$`) })

// inputRequestKey sets the key of the tool's input request, checked.
func (tb *taskBuilder) inputRequestKey(tool *ir.Tool, t *overrides.Tool, path string) {
	k := t.InputRequestKey
	if k == "" {
		return
	}
	pos := tb.ov.Pos(path + ".input_request_key")
	switch {
	case !inputRequestKeyRE().MatchString(k):
		tb.problems.Errorf(pos, "use a letter then up to 63 letters, digits, _, . or -, e.g. user_name", "input_request_key %q is not a valid key", k)
	case len(tool.Asks) == 0 && tool.Confirm == "":
		tb.problems.Errorf(pos, "add ask to an input or confirm to the tool, or drop input_request_key", "input_request_key %q names an input request, but tool %s never asks the user", k, tool.Name)
	default:
		tool.InputKey = k
	}
}
