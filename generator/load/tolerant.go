package load

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// Tolerant loading: schema defects that real specs carry (3.0 and Swagger
// habits in 3.1 documents, hand-written shortcuts) and that kin-openapi
// refuses to decode, repaired in the raw text of each file before kin
// reads it. Each repair keeps the meaning the author evidently wanted,
// keeps every line where it was, and is reported as a warning at the key
// it concerns:
//
//   - "required: true" on a property: the property is required in its
//     parent (the key is renamed to requiredMarker, which the schema
//     converter reads); "required: false" is ignored;
//   - "examples" as a map of named examples in a schema, where JSON
//     Schema wants a list: the list of their values (examplesMarker);
//   - "required: true|false" on a schema that is not a property (an
//     items schema, a parameter's schema, a named schema): ignored, since
//     JSON Schema's "required" lists property names (ignoredRequiredMarker);
//   - "properties: {$ref: X}": read as allOf: [{$ref: X}] when X is a
//     schema, or as one $ref per property when X is a map of properties;
//   - "properties: {$ref: X, name: ...}", a $ref written as a sibling key
//     among the properties: read as allOf: [{$ref: X}] beside the other
//     properties (propsRefMarker).
//
// A repair never touches a valid document: each rule first makes sure the
// key it rewrites is a keyword where a keyword is expected, not a name
// (a property may be called "properties", "required" or "$ref").
//
// What these rules do not recognise stays for kin to refuse, and is
// reported as an error with its position, in the document's words (see
// decode_errors.go).

// Markers for repaired keys; kin keeps them among a schema's extensions.
const (
	requiredMarker        = "x-oa2mcp-required"
	ignoredRequiredMarker = "x-oa2mcp-ignored-required"
	examplesMarker        = "x-oa2mcp-examples"
	// propsRefMarker is the property name a sibling $ref among properties
	// is moved to; the schema converter turns it into an allOf member.
	propsRefMarker = "x-oa2mcp-properties-ref"
)

// nameMaps are keywords whose value maps names (not keywords) to nodes:
// under "properties", "examples" is a property name, not a keyword.
var nameMaps = setOf("properties", "patternProperties", "$defs", "definitions", "schemas",
	"dependentSchemas", "paths", "webhooks", "pathItems", "content", "responses", "headers",
	"examples", "encoding", "links", "callbacks", "securitySchemes", "requestBodies",
	"parameters", "mediaTypes", "variables", "mapping")

// schemaKeys are keywords whose value is a schema or holds schemas.
var schemaKeys = setOf("schema", "itemSchema", "schemas", "definitions", "$defs", "properties",
	"patternProperties", "items", "additionalItems", "prefixItems", "allOf", "anyOf", "oneOf",
	"not", "additionalProperties", "contains", "if", "then", "else", "dependentSchemas",
	"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema")

// dataKeys are keywords whose value is instance data, where any key is
// just data.
var dataKeys = setOf("example", "examples", "default", "enum", "const", "x-example", "x-examples")

func setOf(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// keyRoles tells for each element of a key path whether it is a name in
// a name map (true) or a keyword (false).
func keyRoles(p []string) []bool {
	names := make([]bool, len(p))
	for i := 1; i < len(p); i++ {
		names[i] = nameMaps[p[i-1]] && !names[i-1]
	}
	return names
}

// inData reports whether the key at the end of p lies inside instance
// data (an example, a default, an extension's value).
func inData(p []string, names []bool) bool {
	for i := 0; i < len(p)-1; i++ {
		if !names[i] && (dataKeys[p[i]] || strings.HasPrefix(p[i], "x-")) {
			return true
		}
	}
	return false
}

// inSchema reports whether the node holding the key at the end of p is a
// schema or lies inside one, as far as the path shows.
func inSchema(p []string, names []bool) bool {
	for i := 0; i < len(p)-1; i++ {
		if !names[i] && schemaKeys[p[i]] {
			return true
		}
	}
	return false
}

// defect is one repair found in a file: the edits and the warning.
type defect struct {
	at       int // byte offset the warning points at
	edits    []edit
	msg, fix string
}

// repairSchemaDefects finds and repairs the defects above in one file.
func (l *loader) repairSchemaDefects(key string, data []byte, isJSON bool) []byte {
	hits := scanKeys(data, isJSON, wantDefectKey)
	r := &defectScan{l: l, key: key, data: data, isJSON: isJSON}
	var propRefs []keyHit
	for _, h := range hits {
		names := keyRoles(h.path)
		if inData(h.path, names) {
			continue
		}
		switch h.path[len(h.path)-1] {
		case "required":
			r.required(h)
		case "examples":
			if !names[len(h.path)-1] && r.kind(h) == '{' {
				r.examples(h, names)
			}
		case "$ref":
			// "properties" must be the keyword, not a property named so:
			// properties: {properties: {$ref: X}} is a valid property.
			if !names[len(h.path)-2] && r.kind(h) == 's' {
				propRefs = append(propRefs, h)
			}
		}
	}
	r.rootExamples()
	r.propertiesRefs(propRefs)
	return r.apply()
}

// wantDefectKey keeps the keys a defect may be at: any "required" below
// the top level, any "examples", and "$ref" right under "properties".
func wantDefectKey(p []string) bool {
	n := len(p)
	switch p[n-1] {
	case "required":
		return n >= 2
	case "examples":
		return true
	case "$ref":
		return n >= 2 && p[n-2] == "properties"
	}
	return false
}

// defectScan is the state of one file's repair.
type defectScan struct {
	l       *loader
	key     string
	data    []byte
	isJSON  bool
	li      *lineIndex
	found   []defect
	pending []keyHit // examples maps whose node may be a schema
}

// kind classifies the value of h: '{' mapping, '[' list, 's' scalar, 0
// none or unknown (anchors, aliases, tags).
func (r *defectScan) kind(h keyHit) byte {
	if h.voff >= len(r.data) {
		return 0
	}
	if r.isJSON || h.vend > h.voff {
		switch c := r.data[h.voff]; c {
		case '{', '[':
			return c
		}
		return 's'
	}
	if h.value != "" {
		switch c := h.value[0]; {
		case c == '{' || c == '[':
			return c // a flow collection after a block key
		case strings.IndexByte("&*!", c) >= 0:
			return 0
		}
		return 's'
	}
	return r.blockKind(h)
}

// blockKind classifies a YAML block value from the first line after the
// key that is not blank or a comment.
func (r *defectScan) blockKind(h keyHit) byte {
	lineStart := bytes.LastIndexByte(r.data[:h.off], '\n') + 1
	keyCol := h.off - lineStart
	rest := r.data[h.voff:]
	for len(rest) > 0 {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return 0
		}
		rest = rest[i+1:]
		end := bytes.IndexByte(rest, '\n')
		if end < 0 {
			end = len(rest)
		}
		line := strings.TrimRight(string(rest[:end]), "\r")
		body := strings.TrimLeft(line, " ")
		if body == "" || body[0] == '#' {
			continue
		}
		indent := len(line) - len(body)
		isItem := body == "-" || strings.HasPrefix(body, "- ")
		switch {
		case indent < keyCol, indent == keyCol && !isItem:
			return 0
		case isItem:
			return '['
		}
		if _, _, ok := splitYAMLKey(body); ok {
			return '{'
		}
		return 's'
	}
	return 0
}

// scalar is the text of a scalar value.
func (r *defectScan) scalar(h keyHit) string {
	if r.isJSON && h.vend > h.voff && r.data[h.voff] != '"' {
		return string(r.data[h.voff:h.vend])
	}
	return h.value
}

// pos is the position of byte offset off in this file.
func (r *defectScan) pos(off int) Position {
	if r.li == nil {
		r.li = newLineIndex(r.data)
	}
	line, col := r.li.pos(off)
	return Position{File: r.l.files.displayFile(r.key), Line: line, Column: col}
}

// rename is the edit renaming the key of h (possibly quoted) to name.
func (r *defectScan) rename(h keyHit, name string) edit {
	at := h.off
	if c := r.data[at]; c == '"' || c == '\'' {
		at++
	}
	return edit{off: at, n: len(h.path[len(h.path)-1]), text: name}
}

// required repairs "required: true|false" on a property, or on another
// schema, where JSON Schema wants a list of property names.
func (r *defectScan) required(h keyHit) {
	p := h.path
	names := keyRoles(p)
	if names[len(p)-1] || r.kind(h) != 's' {
		return
	}
	n := len(p)
	if n < 3 || p[n-3] != "properties" || names[n-3] {
		if schemaNode(p[:n-1], names) {
			r.schemaRequired(h)
		}
		return
	}
	prop := p[len(p)-2]
	switch r.scalar(h) {
	case "true", "True", "TRUE":
		r.found = append(r.found, defect{at: h.off, edits: []edit{r.rename(h, requiredMarker)},
			msg: "property " + quote(prop) + ` has "required: true", which JSON Schema does not know (a Swagger 2.0 habit)`,
			fix: "read as required in its parent object; list it there instead: required: [" + prop + "]"})
	case "false", "False", "FALSE":
		r.found = append(r.found, defect{at: h.off, edits: []edit{r.rename(h, requiredMarker)},
			msg: "property " + quote(prop) + ` has "required: false", which JSON Schema does not know`,
			fix: "ignored, since a property is optional unless its parent lists it under required; remove it"})
	}
}

// schemaRequired repairs "required: true|false" on a schema that is not
// a property: it says nothing JSON Schema can use, so it is ignored.
func (r *defectScan) schemaRequired(h keyHit) {
	v := r.scalar(h)
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
	default:
		return
	}
	r.found = append(r.found, defect{at: h.off, edits: []edit{r.rename(h, ignoredRequiredMarker)},
		msg: `a schema that is not a property has "required: ` + v + `"; JSON Schema's "required" is a list of property names`,
		fix: "ignored; to require a property list it in its parent's required, to require a parameter or body set required on it, not on its schema"})
}

// examples repairs a map of named examples in a schema, or keeps it for
// rootExamples when the path alone cannot tell whether its node is one.
func (r *defectScan) examples(h keyHit, names []bool) {
	if inSchema(h.path, names) {
		r.found = append(r.found, r.examplesDefect(h))
		return
	}
	if len(h.path) == 1 && r.key != r.l.files.entryURL().String() {
		r.pending = append(r.pending, h)
	}
}

func (r *defectScan) examplesDefect(h keyHit) defect {
	return defect{at: h.off, edits: []edit{r.rename(h, examplesMarker)},
		msg: `"examples" of a schema is a map of named examples; JSON Schema wants a list of values`,
		fix: "read as the list of the example values; write examples: [value, ...] instead"}
}

// rootExamples settles the examples maps at the root of a file another
// one refers to: the root is a schema when it has schema keywords and
// none of a parameter's, header's or media type's.
func (r *defectScan) rootExamples() {
	if len(r.pending) == 0 {
		return
	}
	keys := map[string]bool{}
	for _, h := range scanKeys(r.data, r.isJSON, func(p []string) bool { return len(p) == 1 }) {
		keys[h.path[0]] = true
	}
	schemaLike := keys["type"] || keys["properties"] || keys["items"] || keys["allOf"] || keys["anyOf"] || keys["oneOf"] || keys["enum"]
	if !schemaLike || keys["schema"] || keys["content"] || keys["in"] {
		return
	}
	for _, h := range r.pending {
		r.found = append(r.found, r.examplesDefect(h))
	}
}

// apply reports the defects found and returns the repaired text.
func (r *defectScan) apply() []byte {
	if len(r.found) == 0 {
		return r.data
	}
	var edits []edit
	for _, d := range r.found {
		r.l.probs.Warnf(r.pos(d.at), d.fix, "%s", d.msg)
		edits = append(edits, d.edits...)
	}
	return applyEdits(r.data, edits)
}

// quote puts a name from the spec in double quotes (JSON escaping), for
// messages.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// exampleValues turns a map of named examples into the list of their
// values, sorted by name (the map's order is lost in decoding). An entry
// that is an Example Object gives its value; one with only an
// externalValue gives nothing; anything else is taken as the value.
func exampleValues(v any) []any {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	names := slices.Sorted(maps.Keys(m))
	var out []any
	for _, name := range names {
		ex, isObj := m[name].(map[string]any)
		switch {
		case !isObj || !isExampleObject(ex):
			out = append(out, m[name])
		case ex["value"] != nil:
			out = append(out, ex["value"])
		case ex["dataValue"] != nil:
			out = append(out, ex["dataValue"])
		}
	}
	return out
}

// isExampleObject reports whether every key of m belongs to an Example
// Object and one of them carries a value.
func isExampleObject(m map[string]any) bool {
	hasValue := false
	for k := range m {
		switch k {
		case "value", "dataValue", "externalValue", "serializedValue":
			hasValue = true
		case "summary", "description", "$ref":
		default:
			if !strings.HasPrefix(k, "x-") {
				return false
			}
		}
	}
	return hasValue
}

// schemaListKeys hold a list of schemas; schemaMapKeys a map of names to
// schemas; schemaValueKeys a schema.
var (
	schemaListKeys  = setOf("allOf", "anyOf", "oneOf", "prefixItems", "items")
	schemaMapKeys   = setOf("properties", "patternProperties", "$defs", "definitions", "schemas", "dependentSchemas")
	schemaValueKeys = setOf("schema", "itemSchema", "items", "additionalItems", "additionalProperties",
		"not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems",
		"unevaluatedProperties", "contentSchema")
)

// schemaNode reports whether the node at path q (with the roles of its
// keys in names) is a schema, from the key that holds it: a name in a map
// of schemas, an element of a list of schemas, or the value of a keyword
// whose value is a schema. A parameter, header or request body, whose
// "required" is a boolean, is none of these.
func schemaNode(q []string, names []bool) bool {
	n := len(q)
	if n < 2 {
		return false
	}
	last, parent := q[n-1], q[n-2]
	switch {
	case names[n-1]:
		return schemaMapKeys[parent] && (parent != "schemas" || n == 3 && q[0] == "components")
	case isIndex(last):
		return !names[n-2] && schemaListKeys[parent]
	}
	return schemaValueKeys[last]
}

// isIndex reports whether a path element is a sequence index.
func isIndex(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
