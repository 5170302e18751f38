package mapping

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Input schema assembly.
//
// Collision rule (documented in docs/schemas.md): parameters claim their
// names in the order path, query, header, cookie, then flattened body
// properties. A later one whose sanitised name is taken is renamed to
// "<location>_<name>" (query_id, header_id, cookie_id, body_id), and if
// that is taken too, gets "_2", "_3", ... The wire names never change.

// ignoredHeaders are header parameters OpenAPI says to ignore: the
// runtime sets them itself.
var ignoredHeaders = map[string]bool{"accept": true, "content-type": true, "authorization": true}

// locationOrder is the order in which parameter locations claim names.
var locationOrder = []string{"path", "query", "header", "cookie"}

// inputBuilder assembles one tool's flat input object.
type inputBuilder struct {
	w        *schemaWriter
	props    map[string]any
	required []string
	taken    map[string]bool
	descs    []paramNote
	// constraints are the flattened body's whole-object checks (see
	// mergedObject.constraints), converted, for the input object.
	constraints []map[string]any
}

// paramNote records what the tool description says about an input.
type paramNote struct {
	name     string
	required bool
	summary  string
}

func newInputBuilder(doc *load.Document, text textCache) *inputBuilder {
	return &inputBuilder{w: newSchemaWriter(doc, true, text), props: map[string]any{}, taken: map[string]bool{}}
}

// claim returns a free property name for wire name wire at location loc.
func (b *inputBuilder) claim(wire, loc string) string {
	name := propertyName(wire)
	if !b.taken[name] {
		b.taken[name] = true
		return name
	}
	base := propertyName(loc + "_" + wire)
	name = base
	for n := 2; b.taken[name]; n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	b.taken[name] = true
	return name
}

// add puts one property into the input object.
func (b *inputBuilder) add(name string, schema map[string]any, desc string, required bool, src *load.Schema) {
	if old, ok := schema["description"].(string); !ok || desc != "" {
		if desc == "" {
			desc = synthDescription(name, src, b.w)
		}
		if i := strings.Index(old, "Left out, the API assumes "); i >= 0 && desc != old {
			desc += " " + old[i:] // the parameter's own text replaces the schema's, not its default
		}
		schema["description"] = desc
	}
	b.props[name] = schema
	if required {
		b.required = append(b.required, name)
	}
	b.descs = append(b.descs, paramNote{name: name, required: required, summary: typeSummary(src, b.w)})
}

// params adds path, query, header and cookie parameters, in that order.
func (b *inputBuilder) params(op *load.Operation, skip func(*load.Parameter) bool) []ir.Param {
	var out []ir.Param
	for _, loc := range locationOrder {
		for _, p := range op.Parameters {
			if p.In != loc || skip(p) {
				continue
			}
			name := b.claim(p.Name, loc)
			schema := b.w.convert(b.inlineScalar(p.Schema), 0)
			if loc == "path" && schema["type"] == "string" {
				if _, ok := schema["minLength"]; !ok {
					schema["minLength"] = 1
				}
			}
			required := p.Required || loc == "path"
			if _, ok := schema["minItems"]; required && schema["type"] == "array" && !ok {
				// A required list sent empty is "type=": no value at all.
				schema["minItems"] = 1
			}
			b.add(name, schema, oa2mcpimpl.Clip(b.w.text.plain(p.Description), maxTopDescLen), required, p.Schema)
			out = append(out, ir.Param{
				Name: p.Name, Arg: name, In: loc, Style: p.Style, Explode: p.Explode,
				AllowReserved: p.AllowReserved, Required: required,
			})
		}
	}
	return out
}

// body adds the request body, flattened into top-level properties when it
// is a plain object, else as one "body" property.
func (b *inputBuilder) body(rb *load.RequestBody) *ir.Body {
	if rb == nil {
		return nil
	}
	out := &ir.Body{MediaType: b.bodyMediaType(rb), Required: rb.Required}
	if props, order, req, ok := b.objectShape(rb.Schema); ok && isStructuredMedia(out.MediaType) {
		renamed := map[string]string{}
		// A body whose schema requires properties is required, whatever
		// requestBody.required says: many documents leave it out (it
		// defaults to false), and a call without those properties fails.
		out.Required = rb.Required || len(req) > 0
		reqSet := stringSet(req)
		for _, wire := range order {
			p := props[wire]
			if b.w.isReadOnly(p) {
				continue
			}
			name := b.claim(wire, "body")
			if name != wire {
				renamed[wire] = name
			}
			schema := b.w.convert(b.inlineScalar(p), 0)
			b.add(name, schema, "", out.Required && reqSet[wire], p)
			out.Fields = append(out.Fields, ir.BodyField{Name: wire, Arg: name, Required: reqSet[wire]})
		}
		sort.Slice(out.Fields, func(i, j int) bool { return out.Fields[i].Arg < out.Fields[j].Arg })
		// The checks name wire names: a field the collision rule renamed
		// is renamed in them too; one that reads every property is left
		// to the API then.
		for _, c := range b.w.merged(rb.Schema).constraints {
			checked := b.w.convert(c, 1)
			if len(renamed) > 0 {
				if _, opaque := constraintNames(checked); opaque {
					continue
				}
				checked = renamedConstraint(checked, renamed)
			}
			b.constraints = append(b.constraints, checked)
		}
		return out
	}
	name := b.claim("body", "request")
	var schema map[string]any
	if isStructuredMedia(out.MediaType) {
		schema = b.w.convert(rb.Schema, 0)
	} else {
		schema = map[string]any{"type": "string"}
	}
	desc := oa2mcpimpl.Clip(oa2mcpimpl.PlainText(rb.Description), maxTopDescLen)
	if desc == "" {
		desc = fmt.Sprintf("Request body, sent as %s.", out.MediaType)
	}
	b.add(name, schema, desc, rb.Required, rb.Schema)
	out.Arg = name
	return out
}

// objectShape merges an object schema (through refs and allOf) into its
// properties. ok is false when the schema is not a plain object: arrays,
// primitives, free-form maps and anyOf/oneOf unions stay nested.
func (b *inputBuilder) objectShape(s *load.Schema) (map[string]*load.Schema, []string, []string, bool) {
	m := b.w.merged(s)
	if !m.plain || len(m.props) == 0 {
		return nil, nil, nil, false
	}
	order := make([]string, 0, len(m.props))
	for name := range m.props {
		order = append(order, name)
	}
	sort.Strings(order)
	return m.props, order, m.required, true
}

// inlineScalar replaces a $ref to a scalar schema (a string enum, a
// pattern), as an input or as the items of an input array, by the schema
// it names. The input then says its type where the model reads it, and
// keeps it when the tool's schema is compressed: compression cuts
// structure below the top-level properties, $refs included, which used to
// leave such arrays with "items": {}.
func (b *inputBuilder) inlineScalar(s *load.Schema) *load.Schema {
	if s == nil {
		return nil
	}
	if r := b.w.resolve(s); s.Ref != "" && isScalar(r) {
		return r
	}
	if s.Items != nil && s.Items.Ref != "" {
		if r := b.w.resolve(s.Items); isScalar(r) {
			cp := *s
			cp.Items = r
			return &cp
		}
	}
	return s
}

// isScalar reports a schema of one scalar type, built of no other schema.
func isScalar(s *load.Schema) bool {
	if s == nil || s.Ref != "" || len(s.AllOf)+len(s.AnyOf)+len(s.OneOf) > 0 || s.Not != nil {
		return false
	}
	switch s.Type {
	case "string", "integer", "number", "boolean":
		return true
	}
	return false
}

// schema returns the finished input schema.
func (b *inputBuilder) schema() map[string]any {
	out := map[string]any{"type": "object", "additionalProperties": false, "$schema": oa2mcpimpl.SchemaDialect}
	if len(b.props) > 0 {
		out["properties"] = b.props
	}
	if len(b.required) > 0 {
		out["required"] = sortedUnique(b.required)
	}
	addConstraints(out, b.constraints)
	if defs := b.w.finishDefs(); len(defs) > 0 {
		out["$defs"] = defs
	}
	return out
}

// addConstraints puts whole-object checks on an input object: the first
// if/then/else at its root (where clients look for it), the others as
// allOf parts.
func addConstraints(out map[string]any, constraints []map[string]any) {
	for _, c := range constraints {
		_, conditional := c["if"]
		if _, taken := out["if"]; conditional && !taken && len(c) <= 3 {
			for k, v := range c {
				out[k] = v
			}
			continue
		}
		out["allOf"] = append(asSlice(out["allOf"]), c)
	}
}

// isStructuredMedia reports whether a body of this media type is built
// from an object's fields (JSON, form or multipart) rather than sent raw.
// bodyMediaType is the media type a body is sent as: the spec's, except
// that a wildcard ("*/*", "application/*", which Kubernetes declares for
// every create and replace) with an object or array schema is JSON. Sent
// as a raw string, such a body made the model write JSON inside a string
// and the request carried the invalid Content-Type "*/*".
func (b *inputBuilder) bodyMediaType(rb *load.RequestBody) string {
	mt := oa2mcpimpl.MediaBase(rb.MediaType)
	if mt != "*/*" && mt != "application/*" {
		return rb.MediaType
	}
	s := b.w.resolve(rb.Schema)
	if s != nil && (s.Type == "object" || s.Type == "array" || len(s.Properties) > 0 || len(s.AllOf) > 0) {
		return "application/json"
	}
	return rb.MediaType
}

func isStructuredMedia(mt string) bool {
	base := oa2mcpimpl.MediaBase(mt)
	return oa2mcpimpl.IsJSONMedia(base) || base == "application/x-www-form-urlencoded" || base == "multipart/form-data"
}

func stringSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func sortedUnique(list []string) []string {
	out := append([]string(nil), list...)
	sort.Strings(out)
	j := 0
	for i, s := range out {
		if i == 0 || s != out[j-1] {
			out[j] = s
			j++
		}
	}
	return out[:j]
}
