package mapping

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// schemaBudget is the compact size above which a tool's input schema is
// made smaller. Every byte of every tool's schema is sent to the model on
// every turn, so a few huge tools (deeply nested request bodies) would
// crowd out the rest. Smaller tools keep their full detail.
const schemaBudget = 2000

// compressSchema shrinks a schema over budget in passes that lose the
// least useful detail first, stopping as soon as it fits: descriptions
// of nested fields; long descriptions of top-level fields; then nested
// structure below depth 3 and below depth 2, which becomes an object or
// array of any content. Validation stays correct but looser: the upstream
// still checks what the schema no longer spells out.
func compressSchema(root map[string]any) {
	defs, _ := root["$defs"].(map[string]any)
	// The collapsing passes cut definitions too, and $defs are walked
	// before properties: a union summarised later would resolve its arms
	// to definitions already cut to a bare type and lose what tells them
	// apart. Unions are therefore read against the definitions as they
	// were before any cut.
	var whole map[string]any
	wholeDefs := func() map[string]any {
		if whole == nil && defs != nil {
			whole = deepCopy(defs)
		}
		return whole
	}
	passes := []func(){
		func() { summarizeLargeUnions(root) },
		func() { walkSchemas(root, 0, dropNestedDescriptions) },
		func() { shortenTopDescriptions(root) },
		func() { walkSchemas(root, 0, collapseBelow(3, wholeDefs())) },
		func() { walkSchemas(root, 0, collapseBelow(2, wholeDefs())) },
	}
	for _, pass := range passes {
		if jsonSize(root, schemaBudget) <= schemaBudget {
			break
		}
		pass()
	}
	if defs, ok := root["$defs"].(map[string]any); ok {
		// Collapsing may have cut the last reference to a definition.
		if kept := reachableDefs(root["properties"], defs); len(kept) > 0 {
			root["$defs"] = kept
		} else {
			delete(root, "$defs")
		}
	}
}

// jsonSize is the length of json.Marshal(v), counted without encoding
// (encoding every default tool's schema, keys sorted, was a tenth of a
// Kubernetes generation), or some length over limit once it passes it.
func jsonSize(v any, limit int) int {
	switch x := v.(type) {
	case nil:
		return 4
	case bool:
		if x {
			return 4
		}
		return 5
	case string:
		return ir.QuotedSize(x)
	case json.Number:
		return len(x)
	case map[string]any:
		n := 1 + len(x) // braces and the separators between members
		if len(x) == 0 {
			n++
		}
		for k, e := range x {
			if n += ir.QuotedSize(k) + 1 + jsonSize(e, limit-n); n > limit {
				return n
			}
		}
		return n
	case []any:
		n := 1 + len(x)
		if len(x) == 0 {
			n++
		}
		for _, e := range x {
			if n += jsonSize(e, limit-n); n > limit {
				return n
			}
		}
		return n
	}
	b, _ := json.Marshal(v)
	return len(b)
}

// walkSchemas calls fn on every subschema with its nesting depth (the
// root's properties are depth 1; $defs count as depth 2).
func walkSchemas(s map[string]any, depth int, fn func(s map[string]any, depth int)) {
	fn(s, depth)
	// In name order: fn rewrites schemas that later visits read (a union
	// summarised through a $ref resolves a definition another visit may
	// already have collapsed), so the order must not be map order.
	// subschemaKeys is sorted, so only the keys that hold subschemas are
	// looked up, not every key sorted at every node.
	for _, key := range subschemaKeys {
		v, ok := s[key]
		if !ok {
			continue
		}
		switch key {
		case "properties", "patternProperties":
			if m, ok := v.(map[string]any); ok {
				for _, name := range sortedNames(m) {
					if sm, ok := m[name].(map[string]any); ok {
						walkSchemas(sm, depth+1, fn)
					}
				}
			}
		case "$defs":
			if m, ok := v.(map[string]any); ok {
				for _, name := range sortedNames(m) {
					if sm, ok := m[name].(map[string]any); ok {
						walkSchemas(sm, max(depth+2, 2), fn)
					}
				}
			}
		case "items", "additionalProperties", "not":
			if sm, ok := v.(map[string]any); ok {
				walkSchemas(sm, depth+1, fn)
			}
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if list, ok := v.([]any); ok {
				for _, sub := range list {
					if sm, ok := sub.(map[string]any); ok {
						walkSchemas(sm, depth+1, fn)
					}
				}
			}
		}
	}
}

// subschemaKeys are the keywords walkSchemas descends into, in byte
// order (TestSubschemaKeysSorted).
var subschemaKeys = []string{"$defs", "additionalProperties", "allOf", "anyOf", "items", "not", "oneOf", "patternProperties", "prefixItems", "properties"}

// sortedNames is m's keys in byte order.
func sortedNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

func dropNestedDescriptions(s map[string]any, depth int) {
	if depth >= 2 {
		if d, ok := s["description"].(string); ok && !unionNote().MatchString(d) {
			delete(s, "description")
		}
		delete(s, "examples")
	}
}

func shortenTopDescriptions(root map[string]any) {
	props, _ := root["properties"].(map[string]any)
	for _, p := range props {
		if pm, ok := p.(map[string]any); ok {
			if d, ok := pm["description"].(string); ok {
				short := oa2mcpimpl.FirstSentence(d, 150)
				if loc := unionNote().FindStringIndex(d); loc != nil && !strings.Contains(short, d[loc[0]:]) {
					// The variants' names are all the model learns of a
					// summarised union: they stay.
					short = strings.TrimSpace(oa2mcpimpl.FirstSentence(d[:loc[0]], 150) + " " + d[loc[0]:])
				}
				pm["description"] = short
			}
		}
	}
}

// collapseBelow replaces the structure of schemas at depth >= limit by
// their bare type, keeping small scalar array items (a list of strings
// with an enum or a pattern stays one). A combinator (allOf, anyOf,
// oneOf, not) just above the limit is dropped with its arms: arms
// collapsed to {} would make a oneOf or a not unsatisfiable. A union
// dropped leaves a note naming its variants (summarizeUnion), so the
// model still learns what the API accepts there.
func collapseBelow(limit int, defs map[string]any) func(map[string]any, int) {
	return func(s map[string]any, depth int) {
		if depth >= limit-1 {
			summarizeUnion(s, defs, false)
		}
		if depth == limit-1 {
			keepAllOfType(s)
			for _, k := range []string{"allOf", "not"} {
				delete(s, k)
			}
		}
		if depth < limit {
			return
		}
		// The structure below goes: the unions in it leave their notes
		// here, each saying where it was.
		walkSchemas(s, 0, func(sub map[string]any, d int) {
			if d == 0 {
				return
			}
			note := summarizeUnion(sub, defs, false)
			if desc, _ := sub["description"].(string); note == "" && unionNote().MatchString(desc) {
				note = desc[unionNote().FindStringIndex(desc)[0]:] // left by an earlier pass
			}
			if note != "" {
				appendDescription(s, note)
			}
		})
		for _, k := range []string{"properties", "items", "additionalProperties", "allOf", "anyOf", "oneOf", "prefixItems", "required", "$ref", "patternProperties", "not", "enum"} {
			if k == "items" && s["type"] == "array" {
				if items, ok := s[k].(map[string]any); !ok || !smallScalar(items) {
					s[k] = map[string]any{}
				}
				continue
			}
			delete(s, k)
		}
	}
}

// keepAllOfType gives a schema without a type the type one of its allOf
// arms declares, before the arms are cut: a value must satisfy every arm,
// so it must be of that type. With it go the scalar checks (bounds, an
// enum, a pattern) that the arms declaring them agree on; a check two
// arms set differently is left to the API. A property declared by an
// object and its allOf parts alike is such a conjunction, and keeps
// saying what it is.
func keepAllOfType(s map[string]any) {
	if _, typed := s["type"]; typed {
		return
	}
	arms := asSlice(s["allOf"])
	for _, arm := range arms {
		am, _ := arm.(map[string]any)
		if t, ok := am["type"].(string); ok {
			s["type"] = t
			if t == "array" {
				s["items"] = map[string]any{} // strict clients want every array to say what it holds
			}
			break
		}
	}
	if _, typed := s["type"]; !typed {
		return
	}
	for _, k := range []string{"enum", "pattern", "format", "minimum", "maximum", "minLength", "maxLength"} {
		if _, own := s[k]; own {
			continue
		}
		var agreed any
		set, clash := false, false
		for _, arm := range arms {
			am, _ := arm.(map[string]any)
			v, ok := am[k]
			switch {
			case !ok:
			case !set:
				agreed, set = v, true
			case !reflect.DeepEqual(agreed, v):
				clash = true
			}
		}
		if set && !clash {
			s[k] = agreed
		}
	}
}

// smallScalar reports whether a schema is a scalar with a few
// constraints, cheap enough to keep when structure is cut.
func smallScalar(s map[string]any) bool {
	switch s["type"] {
	case "string", "integer", "number", "boolean":
	default:
		return false
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 12 {
		return false
	}
	for k := range s {
		switch k {
		case "type", "enum", "pattern", "format", "minimum", "maximum", "minLength", "maxLength", "description":
		default:
			return false
		}
	}
	return true
}
