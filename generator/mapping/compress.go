package mapping

import "encoding/json"

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
	passes := []func(){
		func() { walkSchemas(root, 0, dropNestedDescriptions) },
		func() { shortenTopDescriptions(root) },
		func() { walkSchemas(root, 0, collapseBelow(3)) },
		func() { walkSchemas(root, 0, collapseBelow(2)) },
	}
	for _, pass := range passes {
		if compactSize(root) <= schemaBudget {
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

func compactSize(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// walkSchemas calls fn on every subschema with its nesting depth (the
// root's properties are depth 1; $defs count as depth 2).
func walkSchemas(s map[string]any, depth int, fn func(s map[string]any, depth int)) {
	fn(s, depth)
	for key, v := range s {
		switch key {
		case "properties", "patternProperties":
			if m, ok := v.(map[string]any); ok {
				for _, sub := range m {
					if sm, ok := sub.(map[string]any); ok {
						walkSchemas(sm, depth+1, fn)
					}
				}
			}
		case "$defs":
			if m, ok := v.(map[string]any); ok {
				for _, sub := range m {
					if sm, ok := sub.(map[string]any); ok {
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

func dropNestedDescriptions(s map[string]any, depth int) {
	if depth >= 2 {
		if _, ok := s["description"].(string); ok {
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
				pm["description"] = firstSentence(d, 150)
			}
		}
	}
}

// collapseBelow replaces the structure of schemas at depth >= limit by
// their bare type, keeping small scalar array items (a list of strings
// with an enum or a pattern stays one). A combinator (allOf, anyOf,
// oneOf, not) just above the limit is dropped with its arms: arms
// collapsed to {} would make a oneOf or a not unsatisfiable.
func collapseBelow(limit int) func(map[string]any, int) {
	return func(s map[string]any, depth int) {
		if depth == limit-1 {
			for _, k := range []string{"allOf", "anyOf", "oneOf", "not"} {
				delete(s, k)
			}
		}
		if depth < limit {
			return
		}
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
