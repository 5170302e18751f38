package jsonschema

import (
	"encoding/json"
	"strings"
)

// Arguments from strict clients. OpenAI's strict mode makes every property
// required, so a model sends null for every optional input it does not
// want; and the portable schema profile advertises an open map as a JSON
// string (schema_profile.go), since neither Gemini's Schema nor strict
// mode can describe one. NormalizeArgs undoes both before validation, so
// the full input schema still decides: a null for an optional property
// means "not given" and is dropped (even where its schema would take
// null: the generator drops null from inputs, so only an incidental
// untyped schema would), and a
// string where the schema refuses it but accepts the JSON object it
// encodes becomes that object. Anything else is left for the validator to
// refuse in its own words.
func NormalizeArgs(n *Node, args map[string]any) {
	normalizeObject(n, args, 0)
}

// maxNormalizeDepth bounds the walk as the validator's depth bound does.
const maxNormalizeDepth = 64

func normalizeObject(n *Node, obj map[string]any, depth int) {
	if n == nil || depth > maxNormalizeDepth {
		return
	}
	for _, s := range objectSchemas(n) {
		required := map[string]bool{}
		for _, r := range s.required {
			required[r] = true
		}
		for name, p := range s.properties {
			v, ok := obj[name]
			if !ok {
				continue
			}
			if v == nil && !required[name] {
				delete(obj, name)
				continue
			}
			obj[name] = strictValue(p, v, depth+1)
		}
	}
}

// strictValue normalizes one value of schema n.
func strictValue(n *Node, v any, depth int) any {
	if depth > maxNormalizeDepth {
		return v
	}
	switch x := v.(type) {
	case string:
		if len(x) > 0 && x[0] == '{' && !Accepts(n, x) {
			if obj, ok := decodeObject(x); ok && Accepts(n, obj) {
				return obj
			}
		}
	case map[string]any:
		normalizeObject(n, x, depth)
	case []any:
		for _, s := range itemSchemas(n) {
			for i, e := range x {
				x[i] = strictValue(s, e, depth+1)
			}
		}
	}
	return v
}

// objectSchemas are n and the schemas it applies in place through $ref
// and allOf, whose properties an object value meets.
func objectSchemas(n *Node) []*Node {
	out := []*Node{}
	var walk func(*Node, int)
	walk = func(s *Node, depth int) {
		if s == nil || depth > 8 {
			return
		}
		out = append(out, s)
		walk(s.ref, depth+1)
		for _, a := range s.allOf {
			walk(a, depth+1)
		}
	}
	walk(n, 0)
	return out
}

// itemSchemas are the items schemas of n and of what it applies in place.
func itemSchemas(n *Node) []*Node {
	var out []*Node
	for _, s := range objectSchemas(n) {
		if s.items != nil {
			out = append(out, s.items)
		}
	}
	return out
}

// Accepts reports whether v is valid against n.
func Accepts(n *Node, v any) bool {
	val := &Validator{quiet: true}
	val.Check(n, v, "", 0)
	return !val.Failed()
}

func decodeObject(s string) (map[string]any, bool) {
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if dec.Decode(&obj) != nil || obj == nil || dec.More() {
		return nil, false
	}
	return obj, true
}
