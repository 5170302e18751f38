package mapping

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Bounds that keep tool schemas small enough for a model's context and
// for strict clients. They are documented in docs/schemas.md.
const (
	maxInlineDepth    = 8   // nesting below which inline schemas become {}
	maxTopDescLen     = 200 // descriptions of a tool's own input properties
	maxNestedDescLen  = 120 // descriptions inside nested schemas: first sentence
	maxExampleBytes   = 160 // examples larger than this are dropped
	maxExamples       = 2
	maxCombinatorArms = 32
)

// schemaWriter converts loaded schemas into JSON Schema 2020-12 values for
// one tool and collects the named schemas they reference as local $defs.
// It is used once per tool, so each tool's $defs are pruned to what that
// tool needs.
type schemaWriter struct {
	doc *load.Document
	// input drops readOnly properties and null types: a model never has
	// to send them, and strict clients reject type arrays.
	input   bool
	defs    map[string]any
	pending []string
	queued  map[string]bool
	text    textCache
}

func newSchemaWriter(doc *load.Document, input bool, text textCache) *schemaWriter {
	return &schemaWriter{doc: doc, input: input, defs: map[string]any{}, queued: map[string]bool{}, text: text}
}

// mergedObject is what a schema says of an object, its allOf parts (and
// theirs) merged through references.
type mergedObject struct {
	props    map[string]*load.Schema
	required []string
	// closed: some part forbids other properties.
	closed bool
	// plain: every part is an object schema of properties alone, without
	// unions, not, additionalProperties schemas or other types, so the
	// merged properties are the whole story, but for constraints.
	plain bool
	// constraints are the parts that constrain the object as a whole
	// without declaring properties: an anyOf or oneOf of required lists,
	// an if/then/else. Flattened, they apply to the tool's input object.
	constraints []*load.Schema
}

// merged merges s and its allOf parts, as deep as [load.Document.Properties]
// follows them.
func (w *schemaWriter) merged(s *load.Schema) mergedObject {
	m := mergedObject{plain: true}
	var walk func(s *load.Schema, depth int)
	walk = func(s *load.Schema, depth int) {
		s = w.resolve(s)
		if s == nil || depth > load.MaxAllOfDepth {
			m.plain = false
			return
		}
		if s.Not != nil || s.AdditionalProperties != nil || s.Type != "" && s.Type != "object" || len(s.Types) > 0 {
			m.plain = false
		}
		for _, c := range []*load.Schema{{AnyOf: s.AnyOf}, {OneOf: s.OneOf}, {If: s.If, Then: s.Then, Else: s.Else}} {
			switch {
			case len(c.AnyOf)+len(c.OneOf) == 0 && c.If == nil && c.Then == nil && c.Else == nil:
			case w.constraintOnly(c, false, 0):
				m.constraints = append(m.constraints, c)
			default:
				m.plain = false
			}
		}
		m.required = append(m.required, s.Required...)
		m.closed = m.closed || s.NoAdditional
		for _, part := range s.AllOf {
			walk(part, depth+1)
		}
	}
	walk(s, 0)
	// A property declared by more than one part is their conjunction.
	m.props = w.doc.Properties(s).Schemas
	return m
}

// constraintOnly reports a schema that checks an object's properties
// without declaring any of its own: required lists in anyOf, oneOf and
// if/then/else of the same kind, and properties inside an if, where
// they only test. Such a schema means the same applied to a body or to
// the input object its properties were flattened into; an arm that
// declares properties keeps the body a union under "body".
func (w *schemaWriter) constraintOnly(s *load.Schema, inIf bool, depth int) bool {
	if s == nil {
		return true
	}
	s = w.resolve(s)
	if s == nil || depth > 8 || s.NoAdditional || s.AdditionalProperties != nil || s.Type != "" && s.Type != "object" ||
		len(s.Types) > 0 || len(s.AllOf) > 0 || s.Not != nil || len(s.Properties) > 0 && !inIf {
		return false
	}
	if !w.constraintOnly(s.If, true, depth+1) {
		return false
	}
	for _, part := range append(append([]*load.Schema{s.Then, s.Else}, s.AnyOf...), s.OneOf...) {
		if !w.constraintOnly(part, inIf, depth+1) {
			return false
		}
	}
	return true
}

// resolve follows Ref nodes to the named schema they stand for.
func (w *schemaWriter) resolve(s *load.Schema) *load.Schema { return w.doc.Resolve(s) }

// convert returns the JSON Schema for s.
func (w *schemaWriter) convert(s *load.Schema, depth int) map[string]any {
	if s == nil {
		return map[string]any{}
	}
	if s.Ref != "" {
		if w.doc.Schemas[s.Ref] == nil {
			return map[string]any{}
		}
		if !w.queued[s.Ref] {
			w.queued[s.Ref] = true
			w.pending = append(w.pending, s.Ref)
		}
		return map[string]any{"$ref": "#/$defs/" + s.Ref}
	}
	if depth > maxInlineDepth {
		return map[string]any{"description": "Nested value; structure not expanded."}
	}
	out := map[string]any{}
	w.annotations(s, out, depth)
	w.typeKeywords(s, out)
	w.valueKeywords(s, out)
	w.objectKeywords(s, out, depth)
	w.arrayKeywords(s, out, depth)
	w.combinators(s, out, depth)
	return out
}

// finishDefs converts every named schema referenced so far, including
// those referenced by the definitions themselves, and returns $defs.
func (w *schemaWriter) finishDefs() map[string]any {
	for len(w.pending) > 0 {
		name := w.pending[0]
		w.pending = w.pending[1:]
		w.defs[name] = w.convert(w.doc.Schemas[name], 1)
	}
	return w.defs
}

func (w *schemaWriter) annotations(s *load.Schema, out map[string]any, depth int) {
	desc := w.text.plain(s.Description)
	if desc == "" {
		desc = w.text.plain(s.Title)
	}
	if desc != "" {
		if depth > 0 {
			desc = oa2mcpimpl.FirstSentence(desc, maxNestedDescLen)
		} else {
			desc = oa2mcpimpl.Clip(desc, maxTopDescLen)
		}
		out["description"] = desc
	}
	if s.Deprecated {
		out["deprecated"] = true
	}
	if !w.input && s.ReadOnly {
		out["readOnly"] = true
	}
	if w.input && s.WriteOnly {
		// Marks a secret for the mcp_header check and Tool.Sensitive.
		out["writeOnly"] = true
	}
	if ex := smallExamples(s.Examples); len(ex) > 0 {
		out["examples"] = ex
	}
	if s.Anchor != "" {
		out["$anchor"] = s.Anchor
	}
}

func (w *schemaWriter) typeKeywords(s *load.Schema, out map[string]any) {
	switch {
	case s.Type != "" && s.Nullable && !w.input:
		out["anyOf"] = []any{map[string]any{"type": s.Type}, map[string]any{"type": "null"}}
	case s.Type != "":
		out["type"] = s.Type
	case len(s.Types) > 0:
		arms := make([]any, 0, len(s.Types))
		for _, t := range s.Types {
			arms = append(arms, map[string]any{"type": t})
		}
		out["anyOf"] = arms
	}
	if s.Format != "" {
		out["format"] = s.Format
	}
}

func (w *schemaWriter) valueKeywords(s *load.Schema, out map[string]any) {
	if len(s.Enum) > 0 {
		enum := make([]any, 0, len(s.Enum))
		for _, v := range s.Enum {
			if v != nil || !w.input {
				enum = append(enum, v)
			}
		}
		if len(enum) > 0 {
			out["enum"] = enum
		}
	}
	if s.HasConst {
		out["const"] = s.Const
	}
	switch {
	case s.HasDefault && w.input && s.Default != nil:
		// The API applies its own default: an input schema's default is
		// what the server sends for a missing argument, and requests
		// carry only what the caller or the override file set. The model
		// still learns the default from the description.
		appendDescription(out, apiDefaultNote(s.Default))
	case s.HasDefault && !w.input:
		out["default"] = s.Default
	}
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err == nil {
			out["pattern"] = s.Pattern
		} else {
			appendDescription(out, fmt.Sprintf("Must match the pattern %s.", s.Pattern))
		}
	}
	setNumber(out, "minimum", s.Minimum)
	setNumber(out, "maximum", s.Maximum)
	setNumber(out, "exclusiveMinimum", s.ExclusiveMinimum)
	setNumber(out, "exclusiveMaximum", s.ExclusiveMaximum)
	setNumber(out, "multipleOf", s.MultipleOf)
	setCount(out, "minLength", s.MinLength)
	setCount(out, "maxLength", s.MaxLength)
}

func (w *schemaWriter) objectKeywords(s *load.Schema, out map[string]any, depth int) {
	setCount(out, "minProperties", s.MinProperties)
	setCount(out, "maxProperties", s.MaxProperties)
	if s.NoAdditional {
		out["additionalProperties"] = false
	} else if s.AdditionalProperties != nil {
		out["additionalProperties"] = w.convert(s.AdditionalProperties, depth+1)
	}
	if len(s.Properties) == 0 {
		if len(s.Required) > 0 {
			// A required list beside no properties (an anyOf arm, a
			// then branch) names properties of the enclosing object.
			out["required"] = sortedUnique(s.Required)
		}
		return
	}
	props := map[string]any{}
	for _, name := range s.PropertyOrder {
		p := s.Properties[name]
		if w.input && w.isReadOnly(p) {
			continue
		}
		props[name] = w.convert(p, depth+1)
	}
	out["properties"] = props
	var req []string
	for _, name := range s.Required {
		if _, ok := props[name]; ok {
			req = append(req, name)
		}
	}
	if len(req) > 0 {
		out["required"] = sortedUnique(req)
	}
}

func (w *schemaWriter) isReadOnly(s *load.Schema) bool {
	if s == nil {
		return false
	}
	if s.ReadOnly {
		return true
	}
	r := w.resolve(s)
	return r != nil && r.ReadOnly
}

func (w *schemaWriter) arrayKeywords(s *load.Schema, out map[string]any, depth int) {
	setCount(out, "minItems", s.MinItems)
	setCount(out, "maxItems", s.MaxItems)
	if s.UniqueItems {
		out["uniqueItems"] = true
	}
	if len(s.PrefixItems) > 0 {
		arms := make([]any, len(s.PrefixItems))
		for i, p := range s.PrefixItems {
			arms[i] = w.convert(p, depth+1)
		}
		out["prefixItems"] = arms
	}
	// Strict clients want every array to say what it holds.
	if s.Items != nil {
		out["items"] = w.convert(s.Items, depth+1)
	} else if s.Type == "array" || containsString(s.Types, "array") {
		out["items"] = map[string]any{}
	}
}

func (w *schemaWriter) combinators(s *load.Schema, out map[string]any, depth int) {
	list := func(key string, arms []*load.Schema) {
		if len(arms) == 0 {
			return
		}
		if len(arms) > maxCombinatorArms && !(w.input && key != "allOf") {
			// An input union keeps its arms: variants: may narrow it, and
			// summarizeLargeUnions names what is left unnarrowed.
			if key != "allOf" {
				// Cutting a union's arms would refuse the values of those
				// cut; too many to list, the union is left to the API.
				appendDescription(out, fmt.Sprintf("One of %d shapes the API accepts.", len(arms)))
				return
			}
			arms = arms[:maxCombinatorArms] // fewer constraints: looser, never wrong
		}
		conv := make([]any, 0, len(arms))
		for _, a := range arms {
			conv = append(conv, w.convert(a, depth+1))
		}
		if prev, ok := out[key].([]any); ok {
			// The type keywords may already have produced an anyOf.
			out["allOf"] = append(asSlice(out["allOf"]), map[string]any{key: prev})
		}
		out[key] = conv
	}
	list("allOf", s.AllOf)
	list("anyOf", s.AnyOf)
	oneOf := "oneOf"
	if !w.exclusive(s.OneOf) {
		oneOf = "anyOf" // see exclusive
	}
	list(oneOf, s.OneOf)
	if s.Not != nil {
		out["not"] = w.convert(s.Not, depth+1)
	}
	w.conditional(s, out, depth)
}

// conditional writes the 2020-12 if/then/else of s.
func (w *schemaWriter) conditional(s *load.Schema, out map[string]any, depth int) {
	for key, sub := range map[string]*load.Schema{"if": s.If, "then": s.Then, "else": s.Else} {
		if sub != nil {
			out[key] = w.convert(sub, depth+1)
		}
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func appendDescription(out map[string]any, extra string) {
	if d, _ := out["description"].(string); d != "" {
		out["description"] = d + " " + extra
		return
	}
	out["description"] = extra
}

func setNumber(out map[string]any, key string, v *float64) {
	if v != nil {
		out[key] = *v
	}
}

func setCount(out map[string]any, key string, v *uint64) {
	if v != nil {
		out[key] = *v
	}
}

// smallExamples keeps at most maxExamples examples whose JSON is short:
// long examples cost context and rarely help a model choose values.
func smallExamples(examples []any) []any {
	var out []any
	for _, ex := range examples {
		b, err := json.Marshal(ex)
		if err != nil || len(b) > maxExampleBytes {
			continue
		}
		out = append(out, ex)
		if len(out) == maxExamples {
			break
		}
	}
	return out
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// apiDefaultNote tells the model what the API assumes for a value left
// out (the spec's default, which the server never sends itself).
func apiDefaultNote(v any) string {
	return "Left out, the API assumes " + mustMarshal(v) + "."
}
