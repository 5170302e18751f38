package load

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// OpenAPI 3.2 is read as 3.1 plus its additions. kin-openapi v0.153.0
// decodes most of them; this file gives them their meaning:
//
//   - the QUERY method (path item field "query") and additionalOperations
//     (custom methods, keyed by the method as sent) are operations like any
//     other; the fields are read in older documents too, with a warning;
//   - tags' summary, parent and kind are kept (Document.TagDetails), and a
//     tag's summary stands in for a missing description;
//   - $self is the entry document's base URI: a $ref to that URI, or to a
//     document beside it, is read as a reference to the local file
//     (fixSelfRefs);
//   - itemSchema describes each item of a sequential media type (JSON
//     Lines, JSON sequences, server-sent events). MCP returns a result at
//     once, never as a stream, so the body is read as an array of those
//     items (Response.Sequential);
//   - a parameter "in: querystring" (the whole query string as one
//     form-encoded object) is read as one query parameter per property;
//   - a content entry that is a $ref to components.mediaTypes is read as
//     the media type it points to (fixMediaTypeRefs).

// pathOp is one operation of a path item: the method it is sent with,
// the keys leading to it inside the path item ("get", or
// "additionalOperations" and "COPY"), and the operation.
type pathOp struct {
	method string
	keys   []string
	op     *openapi3.Operation
}

// fixedMethods are the methods with a path item field of their own, in
// the order operations of one path are listed.
var fixedMethods = append(methodOrder[:len(methodOrder):len(methodOrder)], openapi3.MethodQuery)

// httpTokenRe is the RFC 9110 token grammar HTTP method names follow.
var httpTokenRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[!#$%&'*+\\-.^_`|~0-9A-Za-z]+$") })

// itemOperations lists a path item's operations: the fixed methods first,
// then additionalOperations sorted by method. With report set, keys that
// cannot be used are reported (under the path item written at itemAt).
func (l *loader) itemOperations(item *openapi3.PathItem, itemAt nodeRef, report bool) []pathOp {
	var ops []pathOp
	for _, m := range fixedMethods {
		if op := item.GetOperation(m); op != nil {
			ops = append(ops, pathOp{method: m, keys: []string{strings.ToLower(m)}, op: op})
		}
	}
	if report && item.Query != nil && minorVersion(l.version) != "3.2" {
		l.warnAt(itemAt.child("query"), "declare openapi: 3.2.0, where it is defined",
			"the QUERY method (field query) is OpenAPI 3.2, not %s; read as 3.2", l.version)
	}
	names := make([]string, 0, len(item.AdditionalOperations))
	for name := range item.AdditionalOperations {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		op := item.AdditionalOperations[name]
		if op == nil {
			continue
		}
		at := itemAt.child("additionalOperations").child(name)
		if method, ok := l.additionalMethod(item, name, at, report); ok {
			ops = append(ops, pathOp{method: method, keys: []string{"additionalOperations", name}, op: op})
		}
	}
	if report && len(names) > 0 && minorVersion(l.version) != "3.2" {
		l.warnAt(itemAt.child("additionalOperations"), "declare openapi: 3.2.0, where it is defined",
			"additionalOperations is OpenAPI 3.2, not %s; read as 3.2", l.version)
	}
	return ops
}

// additionalMethod checks one additionalOperations key and returns the
// method its operation is sent with. A key naming a fixed method (which
// 3.2 forbids there) stands for that method unless its own field is used.
func (l *loader) additionalMethod(item *openapi3.PathItem, name string, at nodeRef, report bool) (string, bool) {
	if !httpTokenRe().MatchString(name) {
		if report {
			l.warnAt(at, "use the method name exactly as sent, e.g. COPY",
				"additionalOperations key %q is not an HTTP method name; the operation is ignored", name)
		}
		return "", false
	}
	for _, m := range fixedMethods {
		if !strings.EqualFold(name, m) {
			continue
		}
		if item.GetOperation(m) != nil {
			if report {
				l.warnAt(at, "remove one of the two", "additionalOperations key %q repeats the %s operation of this path; it is ignored", name, strings.ToLower(m))
			}
			return "", false
		}
		if report {
			l.warnAt(at, "move it to the "+strings.ToLower(m)+" field", "additionalOperations key %q names a method that has its own field; read as %s", name, m)
		}
		return m, true
	}
	return name, true
}

// tagDetails keeps every tag with its 3.2 fields, in document order.
func tagDetails(tags openapi3.Tags) []*Tag {
	out := make([]*Tag, 0, len(tags))
	for _, t := range tags {
		if t == nil {
			continue
		}
		out = append(out, &Tag{
			Name:        t.Name,
			Summary:     extString(t.Extensions, "summary"),
			Description: t.Description,
			Parent:      extString(t.Extensions, "parent"),
			Kind:        extString(t.Extensions, "kind"),
		})
	}
	return out
}

// extString reads a string that kin kept among a node's extensions (the
// fields it does not know).
func extString(ext map[string]any, key string) string {
	s, _ := ext[key].(string)
	return s
}

// sequentialMedia reports media types whose body is a sequence of items,
// which OpenAPI 3.2 describes with itemSchema.
func sequentialMedia(mt string) bool {
	switch oa2mcpimpl.MediaBase(mt) {
	case "application/jsonl", "application/x-ndjson", "application/x-jsonlines",
		"application/json-seq", "text/event-stream", "multipart/mixed":
		return true
	}
	return false
}

// mediaSchema converts the schema of one media type. Without a schema, an
// itemSchema is read as an array of its items: MCP returns whole results,
// so a stream arrives as the list of what it carried.
func mediaSchema(m *openapi3.MediaType, sc *schemaConverter) (*Schema, bool) {
	if m == nil {
		return nil, false
	}
	if m.Schema != nil || m.ItemSchema == nil {
		return sc.convert(m.Schema), false
	}
	return &Schema{Type: "array", Items: sc.convert(m.ItemSchema)}, true
}

// querystringParams reads a parameter "in: querystring" (OpenAPI 3.2: the
// whole query string as one form-encoded object) as one query parameter
// per property of its schema, which is how the runtime sends a query.
// Other encodings cannot be sent; such a parameter is left out.
func (l *loader) querystringParams(o *Operation, ref *openapi3.ParameterRef, at nodeRef, sc *schemaConverter) []*Parameter {
	p := ref.Value
	mt := chooseMediaType(p.Content, false)
	m := p.Content[mt]
	props, required := formProperties(m)
	if oa2mcpimpl.MediaBase(mt) != "application/x-www-form-urlencoded" || len(props) == 0 {
		l.warnAt(at, "describe the query string as separate query parameters",
			"parameter %q in querystring is not a form-encoded object; it is left out of %s %s", p.Name, o.Method, o.RawPath)
		return nil
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	out := make([]*Parameter, 0, len(names))
	for _, name := range names {
		q := &Parameter{Name: name, In: "query", Required: p.Required && required[name], Deprecated: p.Deprecated,
			Style: "form", Explode: true, Schema: sc.convert(props[name])}
		if v := props[name].Value; v != nil {
			q.Description = v.Description
		}
		if enc := m.Encoding[name]; enc != nil {
			q.Style = firstNonEmpty(enc.Style, q.Style)
			if enc.Explode != nil {
				q.Explode = *enc.Explode
			}
			q.AllowReserved = enc.AllowReserved
		}
		l.paramPos(o, ref, at, &q.Pos)
		out = append(out, q)
	}
	return out
}

// formProperties collects the properties of a form's object schema, its
// own and its allOf members', and which are required.
func formProperties(m *openapi3.MediaType) (map[string]*openapi3.SchemaRef, map[string]bool) {
	props, required := map[string]*openapi3.SchemaRef{}, map[string]bool{}
	if m == nil || m.Schema == nil || m.Schema.Value == nil {
		return props, required
	}
	for _, s := range append(openapi3.SchemaRefs{m.Schema}, m.Schema.Value.AllOf...) {
		if s == nil || s.Value == nil {
			continue
		}
		for name, ps := range s.Value.Properties {
			props[name] = ps
		}
		for _, name := range s.Value.Required {
			required[name] = true
		}
	}
	return props, required
}
