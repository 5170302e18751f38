package mapping

import (
	"encoding/json"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Values written in the override file (constants bound to arguments,
// value:, default:, examples:, enum:) are checked with the runtime's own
// validator against the schema they must fit, so a value the upstream or
// the input schema would refuse is a generation error at its position,
// not a failure of every call.

// valueProblem validates v against schema, whose $refs point into defs,
// and returns the validator's complaint, or "" when v fits.
func valueProblem(schema, defs map[string]any, v any) string {
	if schema == nil {
		return ""
	}
	root := schema
	if len(defs) > 0 && strings.Contains(mustMarshal(schema), `"$ref"`) {
		root = make(map[string]any, len(schema)+1)
		for k, x := range schema {
			root[k] = x
		}
		root["$defs"] = defs
	}
	sch, err := oa2mcpimpl.CompileSchemaValue(root)
	if err != nil {
		return "" // an uncompilable schema is reported by the schema check
	}
	norm, err := oa2mcpimpl.DecodeJSON(mustMarshal(v))
	if err != nil {
		return ""
	}
	if err := sch.Validate(norm); err != nil {
		return err.Error()
	}
	return ""
}

// without is a shallow copy of schema lacking the given keywords: an enum
// is checked against the rest of its schema, not against itself.
func without(schema map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(schema))
	for k, v := range schema {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// stringConstrained reports a (resolved) string schema that not every
// text satisfies (pattern, enum, const, format, length): a number or boolean
// rendered as text cannot be assumed to fit it.
func stringConstrained(s map[string]any) bool {
	for _, k := range []string{"pattern", "enum", "const", "format", "minLength", "maxLength"} {
		if _, ok := s[k]; ok {
			return true
		}
	}
	return false
}

// resolveDef follows a top-level "#/$defs/NAME" reference.
func resolveDef(schema, defs map[string]any) map[string]any {
	if ref, ok := schema["$ref"].(string); ok {
		if d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any); ok {
			return d
		}
	}
	return schema
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// describeSchema names what a JSON schema accepts in a few words, for
// messages: "a string matching ^B-[0-9]{4}$", "an integer of at most 50".
func describeSchema(s map[string]any) string {
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		parts := make([]string, len(enum))
		for i, e := range enum {
			parts[i] = mustMarshal(e)
		}
		return "one of " + strings.Join(parts, ", ")
	}
	t, _ := s["type"].(string)
	if t == "" {
		t = "value"
	}
	out := oa2mcpimpl.WithArticle(t)
	if p, ok := s["pattern"].(string); ok {
		out += " matching " + p
	}
	if f, ok := s["format"].(string); ok {
		out += " in format " + f
	}
	lo, hasLo := s["minimum"]
	hi, hasHi := s["maximum"]
	switch {
	case hasLo && hasHi:
		out += " from " + mustMarshal(lo) + " to " + mustMarshal(hi)
	case hasLo:
		out += " of at least " + mustMarshal(lo)
	case hasHi:
		out += " of at most " + mustMarshal(hi)
	}
	return out
}

// checkIdentityTarget reports binding a caller's claim, which is text,
// to an argument that cannot hold it: a boolean, array or object is an
// error; a number works only with numeric claims, a warning.
func (tb *taskBuilder) checkIdentityTarget(schema, defs map[string]any, claim, target, at string) {
	switch t := schemaType(resolveDef(schema, defs)); t {
	case "", "string":
	case "integer", "number":
		tb.problems.Warnf(tb.ov.Pos(at), "make sure every caller's "+claim+" claim is a number, or bind a text parameter",
			"identity claim %q is text and %s wants %s", claim, target, describeSchema(resolveDef(schema, defs)))
	default:
		tb.problems.Errorf(tb.ov.Pos(at), "bind the claim to a text parameter (identity claims are text)",
			"identity claim %q is text and %s wants %s", claim, target, describeSchema(resolveDef(schema, defs)))
	}
}
