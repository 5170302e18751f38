package load

import (
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// methodOrder is the order of operations within one path; QUERY and then
// OpenAPI 3.2 additional operations (sorted) come after these.
var methodOrder = []string{"GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE"}

// operations converts every operation, sorted by path then method.
func (l *loader) operations(t *openapi3.T, sc *schemaConverter) []*Operation {
	if t.Paths == nil {
		return []*Operation{}
	}
	keys := t.Paths.InMatchingOrder()
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := stripFragment(keys[i]), stripFragment(keys[j])
		if pi != pj {
			return pi < pj
		}
		return keys[i] < keys[j]
	})
	ops := []*Operation{}
	for _, raw := range keys {
		item := t.Paths.Value(raw)
		if item == nil {
			continue
		}
		var itemAt nodeRef
		if !l.swagger {
			itemAt = l.itemNode(raw, item)
		}
		for _, po := range l.itemOperations(item, itemAt, true) {
			ops = append(ops, l.operation(raw, po, item, itemAt, sc))
		}
	}
	sort.SliceStable(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return methodRank(ops[i].Method) < methodRank(ops[j].Method)
	})
	return ops
}

func methodRank(m string) int {
	for i, x := range fixedMethods {
		if x == m {
			return i
		}
	}
	return len(fixedMethods)
}

// stripFragment drops a "#fragment" suffix some specs (Box) use to make
// path keys unique.
func stripFragment(p string) string {
	if i := strings.IndexByte(p, '#'); i >= 0 {
		return p[:i]
	}
	return p
}

func (l *loader) operation(raw string, po pathOp, item *openapi3.PathItem, itemAt nodeRef, sc *schemaConverter) *Operation {
	op := po.op
	o := &Operation{
		ID:          op.OperationID,
		Method:      po.method,
		Path:        stripFragment(raw),
		RawPath:     raw,
		Summary:     op.Summary,
		Description: op.Description,
		Tags:        append([]string(nil), op.Tags...),
		Deprecated:  op.Deprecated,
		Extensions:  oa2mcpExtensions(op.Extensions),
	}
	opAt := l.opPos(o, po, itemAt)
	if op.Security != nil {
		o.Security = securityRequirements(*op.Security)
		o.SecurityScopes = securityScopes(*op.Security)
	}
	o.Parameters = l.parameters(o, paramList{item.Parameters, itemAt.child("parameters")}, paramList{op.Parameters, opAt.child("parameters")}, sc)
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		o.RequestBody = l.requestBody(o, op.RequestBody, opAt.child("requestBody"), sc)
	}
	o.Responses = responses(op.Responses, sc)
	return o
}

// opPos places the operation and returns where it is written, for
// OpenAPI 3 (Swagger 2.0 positions come from v2pos).
func (l *loader) opPos(o *Operation, po pathOp, itemAt nodeRef) nodeRef {
	if l.swagger {
		if o.Pos = l.v2pos[v2Key{o.RawPath, o.Method, ""}]; o.Pos.File == "" {
			o.Pos = Position{File: l.path}
		}
		return nodeRef{}
	}
	if file, ok := l.opFiles[po.op]; ok {
		// An operation $ref: the operation is the whole file.
		o.Pos = Position{File: l.files.displayFile(file), Line: 1, Column: 1}
		return nodeRef{file: file}
	}
	opAt := itemAt
	for _, k := range po.keys {
		opAt = opAt.child(k)
	}
	l.askPos(&o.Pos, nil, opAt)
	return opAt
}

// paramList is a parameters list and where it is written.
type paramList struct {
	params openapi3.Parameters
	at     nodeRef
}

// parameters merges path-item and operation parameters; the operation's
// win on the same name and location.
func (l *loader) parameters(o *Operation, item, op paramList, sc *schemaConverter) []*Parameter {
	type key struct{ name, in string }
	overridden := map[key]bool{}
	for _, p := range op.params {
		if p != nil && p.Value != nil {
			overridden[key{p.Value.Name, p.Value.In}] = true
		}
	}
	var out []*Parameter
	for i, p := range item.params {
		if p != nil && p.Value != nil && !overridden[key{p.Value.Name, p.Value.In}] {
			out = append(out, l.parameterList(o, p, item.at.child(strconv.Itoa(i)), sc)...)
		}
	}
	seen := map[key]bool{}
	for i, p := range op.params {
		if p == nil || p.Value == nil || seen[key{p.Value.Name, p.Value.In}] {
			continue
		}
		seen[key{p.Value.Name, p.Value.In}] = true
		out = append(out, l.parameterList(o, p, op.at.child(strconv.Itoa(i)), sc)...)
	}
	return out
}

// parameterList converts one declared parameter into the parameters it
// stands for: itself, or for "in: querystring" one per property.
func (l *loader) parameterList(o *Operation, ref *openapi3.ParameterRef, at nodeRef, sc *schemaConverter) []*Parameter {
	if ref.Value.In == "querystring" {
		return l.querystringParams(o, ref, at, sc)
	}
	return []*Parameter{l.parameter(o, ref, at, sc)}
}

// parameter converts one parameter written at the node at.
func (l *loader) parameter(o *Operation, ref *openapi3.ParameterRef, at nodeRef, sc *schemaConverter) *Parameter {
	p := ref.Value
	out := &Parameter{
		Name:          p.Name,
		In:            p.In,
		Description:   p.Description,
		Required:      p.Required,
		Deprecated:    p.Deprecated,
		Style:         p.Style,
		AllowReserved: p.AllowReserved,
	}
	switch {
	case p.Schema != nil:
		out.Schema = sc.convert(p.Schema)
	case len(p.Content) > 0:
		out.Schema, _ = mediaSchema(p.Content[chooseMediaType(p.Content, false)], sc)
	}
	if out.Style == "" {
		out.Style = "form"
		if p.In == "path" || p.In == "header" {
			out.Style = "simple"
		}
	}
	out.Explode = out.Style == "form"
	if p.Explode != nil {
		out.Explode = *p.Explode
	}
	l.paramPos(o, ref, at, &out.Pos)
	return out
}

// paramPos places a parameter where its definition is written: the target
// of its $ref, else the list item itself, else its operation.
func (l *loader) paramPos(o *Operation, ref *openapi3.ParameterRef, at nodeRef, dst *Position) {
	if !l.swagger {
		if ref.Ref != "" {
			l.askPos(dst, &o.Pos, refNode(ref.RefPath()), at)
		} else {
			l.askPos(dst, &o.Pos, at)
		}
		return
	}
	if pos, ok := l.v2pos[v2Key{o.RawPath, o.Method, ref.Value.Name}]; ok {
		*dst = pos
	} else if pos, ok := l.v2pos[v2Key{o.RawPath, o.Method, "$ref:" + ref.Ref}]; ok {
		*dst = pos
	} else {
		*dst = o.Pos
	}
}

// requestBody converts the body written at the node at; a $ref'd one is
// placed at its target.
func (l *loader) requestBody(o *Operation, ref *openapi3.RequestBodyRef, at nodeRef, sc *schemaConverter) *RequestBody {
	b := ref.Value
	out := &RequestBody{Description: b.Description, Required: b.Required, Pos: o.Pos}
	if !l.swagger {
		if ref.Ref != "" {
			at = refNode(ref.RefPath())
		}
		l.askPos(&out.Pos, &o.Pos, at)
	}
	for mt := range b.Content {
		out.MediaTypes = append(out.MediaTypes, mt)
	}
	sort.Strings(out.MediaTypes)
	if len(b.Content) > 0 {
		out.MediaType = chooseMediaType(b.Content, true)
		out.Schema, out.Sequential = mediaSchema(b.Content[out.MediaType], sc)
	}
	return out
}

// chooseMediaType picks application/json, then any other JSON type, then
// (for bodies) form-urlencoded, then multipart, then a sequential type
// with an item schema, then the first in sorted order.
func chooseMediaType(content openapi3.Content, body bool) string {
	keys := make([]string, 0, len(content))
	for k := range content {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	prefs := []func(string) bool{
		func(s string) bool { return oa2mcpimpl.MediaBase(s) == "application/json" },
		oa2mcpimpl.IsJSONMedia,
	}
	if body {
		prefs = append(prefs,
			func(s string) bool { return oa2mcpimpl.MediaBase(s) == "application/x-www-form-urlencoded" },
			func(s string) bool { return oa2mcpimpl.MediaBase(s) == "multipart/form-data" })
	}
	prefs = append(prefs, func(s string) bool {
		m := content[s]
		return sequentialMedia(s) && m != nil && m.Schema == nil && m.ItemSchema != nil
	})
	for _, pref := range prefs {
		for _, k := range keys {
			if pref(k) {
				return k
			}
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

func responses(rs *openapi3.Responses, sc *schemaConverter) []*Response {
	if rs == nil {
		return nil
	}
	m := rs.Map()
	codes := make([]string, 0, len(m))
	for c := range m {
		codes = append(codes, c)
	}
	sort.Strings(codes)
	var out []*Response
	for _, c := range codes {
		ref := m[c]
		if ref == nil || ref.Value == nil {
			continue
		}
		r := &Response{Status: c}
		if ref.Value.Description != nil {
			r.Description = *ref.Value.Description
		}
		if len(ref.Value.Content) > 0 {
			r.MediaType = chooseMediaType(ref.Value.Content, false)
			r.Schema, r.Sequential = mediaSchema(ref.Value.Content[r.MediaType], sc)
		}
		out = append(out, r)
	}
	return out
}
