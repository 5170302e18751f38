package cases

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// responses synthesises one success response per operation the tools
// call, from the response schema the spec declares (every property
// filled, so result paths into it resolve), checked by the runtime's
// validator against that schema.
func responses(srv *ir.Server, problems *diag.List) map[string]oa2mcptest.Response {
	out := map[string]oa2mcptest.Response{}
	defs := responseDefs(srv)
	bodies := synthBodies(srv, defs) // by schema: many operations share one
	for _, key := range sortedRespKeys(srv.Responses) {
		r := srv.Responses[key]
		resp := oa2mcptest.Response{Status: r.Status}
		switch {
		case r.Status == 204:
		case r.Schema == "":
			resp.Body = "{}"
		case oa2mcpimpl.SequenceMedia(r.MediaType) != runtime.SequenceNone:
			resp.ContentType, resp.Body = r.MediaType, sequenceBody(r.MediaType, cachedBody(bodies, r.Schema, defs))
		case !oa2mcpimpl.IsJSONMedia(r.MediaType) && r.MediaType != "":
			resp.ContentType, resp.Body = mediaSample(r.MediaType)
		default:
			resp.Body = cachedBody(bodies, r.Schema, defs)
		}
		out[key] = resp
	}
	return out
}

// synthBodies synthesises the body of every distinct response schema,
// concurrently: Kubernetes has 771 schemas, each with its definitions.
// Each worker compiles the shared definitions once for all its schemas
// (see bodySynth), not once per schema.
func synthBodies(srv *ir.Server, defs map[string]any) map[string]string {
	seen := map[string]bool{}
	var schemas []string
	for _, key := range sortedRespKeys(srv.Responses) {
		if s := srv.Responses[key].Schema; s != "" && !seen[s] {
			seen[s] = true
			schemas = append(schemas, s)
		}
	}
	out := make([]string, len(schemas))
	workers.ForChunks(len(schemas), func(lo, hi int) {
		bs := &bodySynth{defs: defs}
		for i := lo; i < hi; i++ {
			var ok bool
			if out[i], ok = bs.body(schemas[i]); !ok {
				out[i] = "{}" // as cachedBody: the tools reading it fail the proof precisely
			}
		}
	})
	bodies := make(map[string]string, len(schemas))
	for i, s := range schemas {
		bodies[s] = out[i]
	}
	return bodies
}

// bodySynth synthesises response bodies with one synthesiser whose
// compiled definitions and schema cache serve schema after schema. A
// schema whose compilation shows any problem is synthesised again on its
// own, as synthBody does, and the shared synthesiser is dropped: a
// problem poisons every later compilation of a Fragments, and a broken
// definition must fail only the schemas that reach it.
type bodySynth struct {
	defs   map[string]any
	shared *synth
}

// body is synthBody(schema, b.defs), sharing compiled definitions.
func (b *bodySynth) body(schema string) (string, bool) {
	root, ok := decodeSchema(schema)
	if !ok {
		return "", false
	}
	if b.defs != nil {
		root["$defs"] = b.defs
	}
	if b.shared == nil {
		b.shared = newSynth(map[string]any{"$defs": b.defs}, true)
	}
	body, ok := b.shared.body(root)
	if b.shared.fragments.Failed() {
		b.shared = nil
		return synthBody(schema, b.defs)
	}
	return body, ok
}

// cachedBody synthesises the body of schema once.
func cachedBody(bodies map[string]string, schema string, defs map[string]any) string {
	body, ok := bodies[schema]
	if !ok {
		if body, ok = synthBody(schema, defs); !ok {
			// The tools reading it will fail the proof with a precise
			// message; an empty object keeps the others testable.
			body = "{}"
		}
		bodies[schema] = body
	}
	return body
}

// sequenceBody streams a synthesised array as the media type sends it:
// one JSON value per line, or one server-sent event per item (the item's
// event, id and data fields; its data is text already).
func sequenceBody(mediaType, array string) string {
	var items []any
	if json.Unmarshal([]byte(array), &items) != nil {
		return array
	}
	lines := oa2mcpimpl.SequenceMedia(mediaType) == runtime.SequenceJSONLines
	var sb strings.Builder
	for _, item := range items {
		if lines {
			line, _ := json.Marshal(item)
			sb.Write(line)
			sb.WriteByte('\n')
			continue
		}
		ev, _ := item.(map[string]any)
		for _, field := range []string{"event", "id", "retry", "data"} {
			if v, ok := ev[field]; ok {
				fmt.Fprintf(&sb, "%s: %v\n", field, v)
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// responseDefs decodes the definitions the response schemas share, once;
// the synthesisers only read them, concurrently.
func responseDefs(srv *ir.Server) map[string]any {
	if srv.ResponseDefs == "" {
		return nil
	}
	defs, _ := decodeSchema(srv.ResponseDefs)
	return defs
}

// synthBody builds a JSON body valid against schema, whose references
// point into defs.
func synthBody(schema string, defs map[string]any) (string, bool) {
	root, ok := decodeSchema(schema)
	if !ok {
		return "", false
	}
	if defs != nil {
		root["$defs"] = defs
	}
	return newSynth(root, true).body(root)
}

// body builds a value valid against root, a response schema whose
// references point into s's definitions, and encodes it.
func (s *synth) body(root map[string]any) (string, bool) {
	v, ok := s.value(root, false, 0)
	if !ok || !s.valid(root, v) {
		return "", false
	}
	return encodeArgs(v), true
}

func sortedRespKeys(m map[string]ir.OperationResponses) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// paging builds the cases of a paged tool: a first page of a list longer
// than the page, and (with a page input) the last page. The upstream
// answers with a list of Limit+3 items; the result must give the right
// slice, totalCount, hasMore, nextPage and partial-data note.
func (b *builder) paging(normal oa2mcptest.Case) []oa2mcptest.Case {
	var args map[string]any
	json.Unmarshal([]byte(normal.Args), &args)
	action, _ := args["action"].(string)
	o := b.t.OutputFor(action)
	if o == nil || o.Limit <= 0 || !normal.WantUpstream {
		return nil
	}
	key, path := b.listSource(args, o)
	base, ok := b.srv.UpstreamResponses[key]
	if key == "" || !ok {
		return nil
	}
	total := o.Limit + 3
	// An upstream that pages and says no total: the page carries no
	// totalCount, and hasMore says whether the page was full.
	noTotal := o.UpstreamPages && o.TotalPath == ""
	page := func(name string, offset, listLen int) (oa2mcptest.Case, bool) {
		body, ok := withList(base.Body, path, listLen, o.TotalPath, total)
		if !ok {
			return oa2mcptest.Case{}, false
		}
		c := normal
		c.Name = name
		if action != "" {
			c.Name = "action " + action + " " + name
		}
		c.Responses = map[string]oa2mcptest.Response{key: {Status: base.Status, ContentType: base.ContentType, Body: body}}
		a := b.pageArgs(args, o, offset)
		c.Args = encodeArgs(a)
		items := min(o.Limit, total-offset)
		wantTotal, more := total, offset+items < total
		if noTotal {
			wantTotal, more = oa2mcptest.NoTotal, items >= o.Limit
		}
		next := -1
		switch {
		case o.PageInput == "" || !more:
		case o.PageNumbers:
			next = offset/o.Limit + 2
		default:
			next = offset + items
		}
		c.WantPage = &oa2mcptest.Page{Items: items, Total: wantTotal, HasMore: more, Next: next, PageInput: o.PageInput}
		return c, true
	}
	listLen := func(offset int) int {
		if o.UpstreamPages {
			return min(o.Limit, total-offset)
		}
		return total
	}
	var out []oa2mcptest.Case
	if c, ok := page("paging: first page", 0, listLen(0)); ok {
		out = append(out, c)
	}
	if o.PageInput != "" {
		if c, ok := page("paging: last page", o.Limit, listLen(o.Limit)); ok {
			out = append(out, c)
		}
	}
	return out
}

// pageArgs are args asking for the page at offset: the page input set
// (to the offset, or to the page number), or for the first page left out (an example value the normal case took
// for it would ask for another page), unless the schema requires it.
func (b *builder) pageArgs(args map[string]any, o *runtime.Output, offset int) map[string]any {
	a := copyArgs(args)
	in := o.PageInput
	set := offset > 0 || slices.Contains(asList(b.root["required"]), any(in))
	switch {
	case in == "":
	case set && o.PageNumbers:
		a[in] = json.Number(fmt.Sprint(offset/o.Limit + 1))
	case set:
		a[in] = json.Number(fmt.Sprint(offset))
	default:
		delete(a, in)
	}
	return a
}

// listSource finds the operation whose response holds the paged list,
// and the list's path in that response.
func (b *builder) listSource(args map[string]any, o *runtime.Output) (string, string) {
	t, path := b.t, o.ListPath
	if t.Op != nil {
		return t.Op.Key(), path
	}
	action, _ := args["action"].(string)
	steps := t.StepsFor(action)
	if len(steps) == 1 {
		return steps[0].Op.Key(), path
	}
	id, rest, _ := strings.Cut(path, ".")
	for i := range steps {
		if steps[i].ID == id {
			return steps[i].Op.Key(), rest
		}
	}
	return "", ""
}

// withList returns body with the array at path replaced by n copies of
// its first item (or of {} when it is empty), and the total at totalPath
// set.
func withList(body, path string, n int, totalPath string, total int) (string, bool) {
	var root any
	if err := json.Unmarshal([]byte(body), &root); err != nil {
		return "", false
	}
	list, ok := at(root, path).([]any)
	if !ok {
		return "", false
	}
	var item any = map[string]any{}
	if len(list) > 0 {
		item = list[0]
	}
	items := make([]any, n)
	for i := range items {
		items[i] = item
	}
	if root, ok = set(root, path, items); !ok {
		return "", false
	}
	if totalPath != "" {
		if root, ok = set(root, totalPath, total); !ok {
			return "", false
		}
	}
	return encodeArgs(root), true
}

// at reads the value at a dotted path.
func at(v any, path string) any {
	if path == "" {
		return v
	}
	for _, seg := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[seg]
	}
	return v
}

// set writes x at a dotted path of objects and returns the new root.
func set(v any, path string, x any) (any, bool) {
	if path == "" {
		return x, true
	}
	seg, rest, _ := strings.Cut(path, ".")
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	inner, ok := set(m[seg], rest, x)
	if !ok && rest != "" {
		return nil, false
	}
	m[seg] = inner
	return m, true
}
