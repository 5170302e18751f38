package load

import (
	"path"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// schemaConverter turns kin-openapi schemas into Schema trees. Every schema
// reached through a $ref is stored once in Document.Schemas and replaced by
// a {Ref: name} node; names are assigned in walk order, which is
// deterministic (operations sorted, properties sorted), and deduplicated by
// the identity of the target schema. A named node is registered before its
// body is converted, so cycles terminate.
type schemaConverter struct {
	doc   *Document
	names map[*openapi3.Schema]string
	// byTarget names targets by the resolved address of their $ref (file
	// URL and JSON pointer): kin decodes a whole-file $ref afresh at every
	// use, so pointer identity alone would give one schema many names.
	byTarget map[string]string
	used     map[string]bool
	// active holds unnamed schemas being converted, to catch a cycle that
	// kin resolved without leaving a $ref name on it.
	active map[*openapi3.Schema]bool
	// named is the stack of named schemas being converted, innermost last;
	// $recursiveRef resolves against it.
	named []namedFrame
}

type namedFrame struct {
	name      string
	recursive bool // has $recursiveAnchor: true
}

func newSchemaConverter(d *Document) *schemaConverter {
	return &schemaConverter{
		doc:      d,
		names:    map[*openapi3.Schema]string{},
		byTarget: map[string]string{},
		used:     map[string]bool{},
		active:   map[*openapi3.Schema]bool{},
	}
}

// convert converts one schema reference; nil for nil.
func (c *schemaConverter) convert(sr *openapi3.SchemaRef) *Schema {
	if sr == nil {
		return nil
	}
	v := sr.Value
	if v == nil {
		return &Schema{}
	}
	if name, ok := c.names[v]; ok {
		return &Schema{Ref: name}
	}
	if _, ok := v.Extensions["$recursiveRef"]; ok {
		return c.recursiveRef()
	}
	if sr.Ref != "" {
		target := refTarget(sr)
		if name, ok := c.byTarget[target]; ok && target != "" {
			c.names[v] = name
			return &Schema{Ref: name}
		}
		name := c.assign(v, nameFromRef(sr.Ref))
		if target != "" {
			c.byTarget[target] = name
		}
		c.doc.Schemas[name] = c.namedBody(name, v)
		return &Schema{Ref: name}
	}
	if c.active[v] {
		return &Schema{Ref: c.assign(v, syntheticName(v))}
	}
	c.active[v] = true
	s := c.body(v)
	delete(c.active, v)
	if name, ok := c.names[v]; ok { // named by a cycle inside itself
		c.doc.Schemas[name] = s
		return &Schema{Ref: name}
	}
	return simplify(s)
}

// refTarget is the resolved address of a $ref, "" if kin recorded none.
func refTarget(sr *openapi3.SchemaRef) string {
	if u := sr.RefPath(); u != nil {
		return u.String()
	}
	return ""
}

func (c *schemaConverter) namedBody(name string, v *openapi3.Schema) *Schema {
	rec, _ := v.Extensions["$recursiveAnchor"].(bool)
	c.named = append(c.named, namedFrame{name: name, recursive: rec})
	defer func() { c.named = c.named[:len(c.named)-1] }()
	return simplify(c.body(v))
}

// recursiveRef treats the draft 2019-09 $recursiveRef (OpenAI) as a
// reference to the innermost enclosing named schema that declares
// $recursiveAnchor, else the innermost named one; with none in scope it is
// an unconstrained schema.
func (c *schemaConverter) recursiveRef() *Schema {
	for i := len(c.named) - 1; i >= 0; i-- {
		if c.named[i].recursive {
			return &Schema{Ref: c.named[i].name}
		}
	}
	if n := len(c.named); n > 0 {
		return &Schema{Ref: c.named[n-1].name}
	}
	return &Schema{}
}

// assign gives v a unique name based on base.
func (c *schemaConverter) assign(v *openapi3.Schema, base string) string {
	name := base
	for i := 2; c.used[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	c.used[name] = true
	c.names[v] = name
	return name
}

// nameFromRef takes the last segment of the ref's JSON pointer, or the
// file name without extension for a whole-file ref, sanitised.
func nameFromRef(ref string) string {
	file, frag, _ := strings.Cut(ref, "#")
	var base string
	if frag = strings.Trim(frag, "/"); frag != "" {
		base = oa2mcpimpl.UnescapePointerToken(frag[strings.LastIndexByte(frag, '/')+1:])
	} else {
		base = path.Base(file)
		base = strings.TrimSuffix(base, path.Ext(base))
	}
	return sanitizeName(base)
}

func syntheticName(v *openapi3.Schema) string {
	if v.Title != "" {
		return sanitizeName(v.Title)
	}
	return "Schema"
}

// sanitizeName keeps [A-Za-z0-9_.-], replacing anything else by '_'.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '.' || ch == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "Schema"
	}
	return string(b)
}

// simplify unwraps an anyOf of a single member with nothing beside it (the
// converted form of a one-element tuple "items").
func simplify(s *Schema) *Schema {
	if len(s.AnyOf) != 1 || s.AnyOf[0] == nil {
		return s
	}
	cp := *s
	cp.AnyOf = nil
	if reflect.ValueOf(cp).IsZero() {
		return s.AnyOf[0]
	}
	return s
}

// body converts the keywords of one schema.
func (c *schemaConverter) body(v *openapi3.Schema) *Schema {
	s := &Schema{
		Title: v.Title, Description: v.Description, Format: v.Format, Pattern: v.Pattern,
		Enum: v.Enum, Nullable: v.Nullable, UniqueItems: v.UniqueItems,
		ReadOnly: v.ReadOnly, WriteOnly: v.WriteOnly, Deprecated: v.Deprecated,
		Minimum: v.Min, Maximum: v.Max, MultipleOf: v.MultipleOf,
		MaxLength: v.MaxLength, MaxItems: v.MaxItems, MaxProperties: v.MaxProps,
		Required: append([]string(nil), v.Required...),
	}
	c.types(s, v)
	c.bounds(s, v)
	if v.Const != nil {
		s.Const, s.HasConst = v.Const, true
	}
	if v.Default != nil {
		s.Default, s.HasDefault = v.Default, true
	}
	s.Examples = append([]any(nil), v.Examples...)
	if m, ok := v.Extensions[examplesMarker]; ok {
		s.Examples = append(exampleValues(m), s.Examples...)
	}
	if v.Example != nil {
		s.Examples = append(s.Examples, v.Example)
	}
	s.MinLength = nonZero(v.MinLength)
	s.MinItems = nonZero(v.MinItems)
	s.MinProperties = nonZero(v.MinProps)
	s.Items = c.convert(v.Items)
	s.PrefixItems = c.list(v.PrefixItems)
	c.properties(s, v)
	if ap := v.AdditionalProperties; ap.Has != nil && !*ap.Has {
		s.NoAdditional = true
	} else if ap.Schema != nil {
		s.AdditionalProperties = c.convert(ap.Schema)
	}
	s.AllOf, s.AnyOf, s.OneOf = c.list(v.AllOf), c.list(v.AnyOf), c.list(v.OneOf)
	if sr, ok := v.Properties[propsRefMarker]; ok {
		s.AllOf = append(s.AllOf, c.convert(sr)) // see siblingRef
	}
	if _, ok := v.Extensions[tupleMarker]; ok {
		tupleToAnyOf(s)
	}
	s.Not = c.convert(v.Not)
	s.If, s.Then, s.Else = c.convert(v.If), c.convert(v.Then), c.convert(v.Else)
	s.Anchor = v.Anchor
	return s
}

// types maps 3.0 type+nullable and 3.1 type arrays to Type/Types/Nullable.
func (c *schemaConverter) types(s *Schema, v *openapi3.Schema) {
	if v.Type == nil {
		return
	}
	var nonNull []string
	for _, t := range *v.Type {
		if t == "null" {
			s.Nullable = true
		} else {
			nonNull = append(nonNull, t)
		}
	}
	switch len(nonNull) {
	case 0:
		if s.Nullable && !v.Nullable {
			s.Type, s.Nullable = "null", false
		}
	case 1:
		s.Type = nonNull[0]
	default:
		s.Types = nonNull
	}
}

// bounds maps 3.0 boolean exclusive bounds to 2020-12 numeric ones.
func (c *schemaConverter) bounds(s *Schema, v *openapi3.Schema) {
	if v.ExclusiveMin.Value != nil {
		s.ExclusiveMinimum = v.ExclusiveMin.Value
	} else if v.ExclusiveMin.IsTrue() && v.Min != nil {
		s.ExclusiveMinimum, s.Minimum = v.Min, nil
	}
	if v.ExclusiveMax.Value != nil {
		s.ExclusiveMaximum = v.ExclusiveMax.Value
	} else if v.ExclusiveMax.IsTrue() && v.Max != nil {
		s.ExclusiveMaximum, s.Maximum = v.Max, nil
	}
}

func (c *schemaConverter) properties(s *Schema, v *openapi3.Schema) {
	if len(v.Properties) == 0 {
		return
	}
	s.PropertyOrder = make([]string, 0, len(v.Properties))
	for k := range v.Properties {
		if k != propsRefMarker {
			s.PropertyOrder = append(s.PropertyOrder, k)
		}
	}
	if len(s.PropertyOrder) == 0 {
		s.PropertyOrder = nil
		return
	}
	sort.Strings(s.PropertyOrder)
	s.Properties = make(map[string]*Schema, len(v.Properties))
	for _, k := range s.PropertyOrder {
		s.Properties[k] = c.convert(v.Properties[k])
		if markedRequired(v.Properties[k]) && !slices.Contains(s.Required, k) {
			s.Required = append(s.Required, k)
		}
	}
}

// markedRequired reports a property repaired from "required: true" (see
// tolerant.go); the marker sits beside a $ref or in the schema itself.
func markedRequired(sr *openapi3.SchemaRef) bool {
	if sr == nil {
		return false
	}
	if b, _ := sr.Extensions[requiredMarker].(bool); b {
		return true
	}
	b := false
	if sr.Ref == "" && sr.Value != nil {
		// Only inline: a $ref target may be shared by other properties.
		b, _ = sr.Value.Extensions[requiredMarker].(bool)
	}
	return b
}

func (c *schemaConverter) list(refs openapi3.SchemaRefs) []*Schema {
	if len(refs) == 0 {
		return nil
	}
	out := make([]*Schema, 0, len(refs))
	for _, r := range refs {
		if r != nil {
			out = append(out, c.convert(r))
		}
	}
	return out
}

// tupleToAnyOf turns the members of a Swagger 2.0 tuple "items" (marked
// and parked in allOf by fixTupleItems) into anyOf, a lone {type: null}
// member into Nullable.
func tupleToAnyOf(s *Schema) {
	members := s.AllOf
	s.AllOf = nil
	for _, m := range members {
		if m.Type == "null" && m.Ref == "" && len(m.Properties) == 0 {
			s.Nullable = true
			continue
		}
		s.AnyOf = append(s.AnyOf, m)
	}
}

func nonZero(n uint64) *uint64 {
	if n == 0 {
		return nil
	}
	return &n
}
