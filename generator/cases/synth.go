package cases

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp/syntax"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// decodeSchema decodes a schema's text, numbers as json.Number; ok is
// false unless it is one JSON object. No text is the empty object
// schema.
func decodeSchema(text string) (map[string]any, bool) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{"type": "object"}, true
	}
	v, err := oa2mcpimpl.DecodeJSON(text) // as a json.Decoder with UseNumber
	root, _ := v.(map[string]any)
	if err != nil || root == nil {
		return nil, false
	}
	return root, true
}

// encodeArgs is v as a json.Encoder without HTML escaping writes it,
// without the newline; "{}" if it cannot be encoded.
func encodeArgs(v any) string {
	if b, ok := oa2mcpimpl.AppendJSON(nil, v, false); ok {
		return string(b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// synth builds values that satisfy a schema: examples, defaults, enums
// and formats first, then the smallest value the type and bounds allow.
// In boundary mode lengths, sizes and numbers sit on their bounds; in
// rich mode (upstream responses) objects get every property, so result
// paths into them resolve. Every candidate is checked with the runtime's
// own validator, the one that will judge it.
type synth struct {
	defs      map[string]any
	rich      bool
	fragments *oa2mcpimpl.Fragments
	cache     map[uintptr]cached
}

// cached is a compiled schema and the schema it was compiled from.
type cached struct {
	m      map[string]any
	schema *oa2mcpimpl.Schema
}

func newSynth(root map[string]any, rich bool) *synth {
	return &synth{defs: mapOf(root["$defs"]), rich: rich, fragments: oa2mcpimpl.NewFragments(root), cache: map[uintptr]cached{}}
}

// valid reports whether v satisfies schema m, the root or a schema
// inside it, by the runtime's validator. Compiled schemas are cached by
// schema, and all of them share the root's compiled definitions: a big
// spec's unions used to compile every definition they reach per arm
// (most of Stripe's generation).
func (s *synth) valid(m map[string]any, v any) bool {
	key := reflect.ValueOf(m).Pointer()
	entry, ok := s.cache[key]
	sch := entry.schema
	if !ok {
		sch, _ = s.fragments.Compile(m)
		// The entry keeps m alive, so its address is not reused by
		// another schema while the cache lives.
		s.cache[key] = cached{m, sch}
	}
	if sch == nil {
		return false
	}
	norm, err := oa2mcpimpl.DecodeJSON(encodeArgs(v))
	return err == nil && sch.Validate(norm) == nil
}

const maxSynthDepth = 8

// maxRichDepth bounds how deep rich mode fills optional properties, so
// recursive response schemas stay small.
const maxRichDepth = 4

// resolve follows $ref and merges allOf into one schema.
func (s *synth) resolve(m map[string]any) map[string]any {
	for i := 0; i < 16; i++ {
		ref, _ := m["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			break
		}
		next := mapOf(s.defs[name])
		if next == nil {
			return map[string]any{"not": map[string]any{}}
		}
		m = next
	}
	arms, _ := m["allOf"].([]any)
	if len(arms) == 0 {
		return m
	}
	merged := map[string]any{}
	for k, v := range m {
		if k != "allOf" {
			merged[k] = v
		}
	}
	props, required := map[string]any{}, []any{}
	for k, v := range mapOf(merged["properties"]) {
		props[k] = v
	}
	required = append(required, asList(merged["required"])...)
	for _, a := range arms {
		r := s.resolve(mapOf(a))
		for k, v := range r {
			switch k {
			case "properties":
				for pk, pv := range mapOf(v) {
					// A property the object and a part both declare must
					// satisfy both.
					props[pk] = ir.ConjoinSchemas(props[pk], pv)
				}
			case "required":
				required = append(required, asList(v)...)
			default:
				if _, ok := merged[k]; !ok {
					merged[k] = v
				}
			}
		}
	}
	if len(props) > 0 {
		merged["properties"] = props
	}
	if len(required) > 0 {
		merged["required"] = required
	}
	return merged
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// value synthesises a value for schema m.
func (s *synth) value(raw map[string]any, boundary bool, depth int) (any, bool) {
	if depth > maxSynthDepth || raw == nil {
		return nil, false
	}
	m := s.resolve(raw)
	if _, ok := m["not"]; ok {
		return nil, false
	}
	if v, ok := m["const"]; ok {
		return v, true
	}
	if enum := asList(m["enum"]); len(enum) > 0 {
		for _, v := range enum {
			if v != nil {
				return v, true
			}
		}
	}
	if !boundary {
		if v, ok := m["default"]; ok && v != nil && s.valid(m, v) {
			return v, true
		}
		for _, ex := range asList(m["examples"]) {
			if s.valid(m, ex) {
				return ex, true
			}
		}
	}
	if v, ok, handled := s.union(m, boundary, depth); handled {
		return v, ok
	}
	switch typeOf(m) {
	case "string":
		return s.stringValue(m, boundary)
	case "integer", "number":
		return numberValue(m, boundary, typeOf(m) == "integer")
	case "boolean":
		return true, true
	case "array":
		return s.array(m, boundary, depth)
	case "object":
		return s.object(m, boundary, depth, false)
	case "null":
		return nil, true
	}
	return "example", true
}

// union picks, for an anyOf or oneOf, the first arm that yields a value
// valid against the whole schema (the arm's siblings, such as a format,
// apply too; a oneOf value must match exactly one arm).
func (s *synth) union(m map[string]any, boundary bool, depth int) (any, bool, bool) {
	for _, key := range []string{"anyOf", "oneOf"} {
		arms := asList(m[key])
		if len(arms) == 0 {
			continue
		}
		base := map[string]any{}
		for k, v := range m {
			if k != key {
				base[k] = v
			}
		}
		for _, a := range arms {
			am := s.resolve(map[string]any{"allOf": []any{base, s.resolve(mapOf(a))}})
			if typeOf(am) == "null" {
				continue
			}
			if v, ok := s.value(am, boundary, depth+1); ok && s.valid(m, v) {
				return v, true, true
			}
		}
		return nil, false, true
	}
	return nil, false, false
}

func typeOf(m map[string]any) string {
	if t, ok := m["type"].(string); ok {
		return t
	}
	// A type list ["string", "null"]: the first type that is not null.
	for _, t := range asList(m["type"]) {
		if s, ok := t.(string); ok && s != "null" {
			return s
		}
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	if _, ok := m["items"]; ok {
		return "array"
	}
	return ""
}

// formatValues are valid examples of the formats the runtime checks and
// a few more.
var formatValues = map[string]string{
	"date": "2026-01-31", "date-time": "2026-01-31T09:30:00Z", "time": "09:30:00Z",
	"email": "user@example.com", "uuid": "123e4567-e89b-12d3-a456-426614174000",
	"uri": "https://example.com/x", "url": "https://example.com/x", "uri-reference": "https://example.com/x",
	"hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "byte": "aGVsbG8=",
	"duration": "P1D",
}

// stringCandidates are tried in order against patterns and lengths.
var stringCandidates = []string{"example", "a", "x1", "A", "1", "abc123", "example-1", "Example"}

func (s *synth) stringValue(m map[string]any, boundary bool) (any, bool) {
	minL, maxL := intKey(m, "minLength", 0), intKey(m, "maxLength", -1)
	if v, ok := formatValues[stringKey(m, "format")]; ok && s.valid(m, v) {
		return v, true
	}
	if boundary {
		switch {
		case maxL >= 0 && maxL <= 256:
			if v := strings.Repeat("x", maxL); s.valid(m, v) {
				return v, true
			}
		case minL > 0:
			if v := strings.Repeat("x", minL); s.valid(m, v) {
				return v, true
			}
		}
	}
	if v, ok := patternValue(stringKey(m, "pattern")); ok && s.valid(m, v) {
		return v, true
	}
	for _, c := range stringCandidates {
		if len(c) < minL {
			c += strings.Repeat("x", minL-len(c))
		}
		if maxL >= 0 && len(c) > maxL {
			c = c[:maxL]
		}
		if s.valid(m, c) {
			return c, true
		}
	}
	return nil, false
}

// patternValue builds the shortest plain string a simple pattern
// accepts: literals, classes (their first character), repeats at their
// minimum, the first alternative. The caller validates the result.
func patternValue(pattern string) (string, bool) {
	if pattern == "" {
		return "", false
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writePattern(&b, re.Simplify(), 0) || b.Len() > 512 {
		return "", false
	}
	return b.String(), true
}

func writePattern(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > 32 {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture, syntax.OpPlus:
		return writePattern(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !writePattern(b, re.Sub[0], depth+1) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !writePattern(b, sub, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return writePattern(b, re.Sub[0], depth+1)
	case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}

// classRune picks a readable character of a class: a letter or digit
// when the class has one, else its first character.
func classRune(ranges []rune) rune {
	for _, want := range []rune{'a', 'A', '0', 'x'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	return ranges[0]
}

// bounds returns the inclusive range a number must lie in; exclusive
// bounds are approximated by one unit (integers) or a small step.
func bounds(m map[string]any) (float64, float64) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if v, ok := numKey(m, "minimum"); ok {
		lo = v
	}
	if v, ok := numKey(m, "maximum"); ok {
		hi = v
	}
	if v, ok := numKey(m, "exclusiveMinimum"); ok && v+1 > lo {
		lo = v + 1
	}
	if v, ok := numKey(m, "exclusiveMaximum"); ok && v-1 < hi {
		hi = v - 1
	}
	return lo, hi
}

func numberValue(m map[string]any, boundary, integer bool) (any, bool) {
	lo, hi := bounds(m)
	v := 1.0
	switch {
	case boundary && !math.IsInf(hi, 1):
		v = hi
	case boundary && !math.IsInf(lo, -1):
		v = lo
	case v < lo:
		v = lo
	case v > hi:
		v = hi
	}
	if mult, ok := numKey(m, "multipleOf"); ok && mult > 0 {
		v = math.Ceil(v/mult) * mult
		if v > hi {
			v -= mult
		}
	}
	if integer {
		v = math.Ceil(v)
		if v > hi {
			return nil, false
		}
	}
	if v < lo || v > hi || math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 1e15 {
		return nil, false
	}
	return json.Number(fmt.Sprint(v)), true
}

func (s *synth) array(m map[string]any, boundary bool, depth int) (any, bool) {
	minI, maxI := intKey(m, "minItems", 0), intKey(m, "maxItems", -1)
	n := 1
	switch {
	case boundary && maxI >= 0 && maxI <= 5:
		n = maxI
	case n < minI:
		n = minI
	case maxI >= 0 && n > maxI:
		n = maxI
	}
	if n > 16 {
		return nil, false
	}
	items := mapOf(m["items"])
	if items == nil {
		items = map[string]any{}
	}
	out := make([]any, 0, n)
	if n == 0 {
		return out, true
	}
	v, ok := s.value(items, boundary, depth+1)
	if !ok {
		return nil, false
	}
	if n > 1 && m["uniqueItems"] == true {
		enum := asList(s.resolve(items)["enum"])
		if len(enum) < n {
			return nil, false
		}
		return append(out, enum[:n]...), true
	}
	for i := 0; i < n; i++ {
		out = append(out, v)
	}
	return out, true
}

// object fills the required properties (and, at the top level of the
// normal case, optional ones the spec gives a value for).
func (s *synth) object(m map[string]any, boundary bool, depth int, top bool) (map[string]any, bool) {
	orig := m
	m = s.resolve(m)
	props := mapOf(m["properties"])
	required := map[string]bool{}
	for _, r := range asList(m["required"]) {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]any{}
	for _, n := range names {
		p := s.resolve(mapOf(props[n]))
		wanted := required[n] || (top && hasGivenValue(p)) || (top && boundary && hasBounds(p)) || (s.rich && depth < maxRichDepth)
		if !wanted {
			continue
		}
		v, ok := s.value(mapOf(props[n]), boundary, depth+1)
		if !ok {
			if required[n] {
				return nil, false
			}
			continue
		}
		if !required[n] && top && !s.valid(mapOf(props[n]), v) {
			// An optional input no value fits (declared of two types by
			// an object and its allOf part, which both apply) is left out.
			continue
		}
		out[n] = v
	}
	for n := range required {
		if _, ok := props[n]; !ok {
			// Required but undeclared: nothing to synthesise from.
			return nil, false
		}
	}
	if len(out) < intKey(m, "minProperties", 0) {
		return nil, false
	}
	if hasObjectChecks(orig) {
		s.satisfyChecks(orig, out, props, names, boundary, depth)
	}
	return out, true
}

// hasObjectChecks reports a schema whose whole-object checks (an anyOf
// of required lists, an if/then/else) may ask for more than its
// required list.
func hasObjectChecks(m map[string]any) bool {
	for _, k := range []string{"allOf", "anyOf", "oneOf", "if"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// satisfyChecks adds optional properties to out, in name order, until it
// satisfies m's whole-object checks (or none is left to add).
func (s *synth) satisfyChecks(m, out, props map[string]any, names []string, boundary bool, depth int) {
	for _, n := range names {
		if s.valid(m, out) {
			return
		}
		if _, ok := out[n]; ok {
			continue
		}
		if v, ok := s.value(mapOf(props[n]), boundary, depth+1); ok {
			out[n] = v
		}
	}
}

func hasGivenValue(m map[string]any) bool {
	for _, k := range []string{"examples", "default", "enum", "const"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func hasBounds(m map[string]any) bool {
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func intKey(m map[string]any, key string, def int) int {
	if v, ok := numKey(m, key); ok {
		return int(v)
	}
	return def
}

func numKey(m map[string]any, key string) (float64, bool) {
	switch v := m[key].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	}
	return 0, false
}

func stringKey(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
