package runtime

import (
	"strings"
	"testing"
)

func TestValidator(t *testing.T) {
	const defs = `"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"child":{"$ref":"#/$defs/node"}},"additionalProperties":false}}`
	for _, tc := range []struct {
		name, schema, args string
		want               []string // substrings; none means valid
	}{
		{"empty args", `{"type":"object"}`, ``, nil},
		{"null args", `{"type":"object","required":["a"]}`, `null`, []string{`"a" is required`}},
		{"non-object args", `{"type":"object"}`, `[1]`, []string{"must be a JSON object"}},
		{"big integer survives", `{"type":"object","properties":{"n":{"type":"integer","maximum":1e30}}}`, `{"n":12345678901234567890}`, nil},
		{"integer 1.0", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.0}`, nil},
		{"not integer", `{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1.5}`, []string{`"n" must be an integer; got 1.5 (a number)`}},
		{"exclusive bounds", `{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}}}`, `{"n":1}`, []string{"must be less than 1"}},
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.01}}}`, `{"n":1.005}`, []string{"multiple of 1/100"}},
		{"multipleOf ok", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.01}}}`, `{"n":1.25}`, nil},
		{"length in runes", `{"type":"object","properties":{"s":{"type":"string","maxLength":2}}}`, `{"s":"日本"}`, nil},
		{"too long", `{"type":"object","properties":{"s":{"type":"string","maxLength":2}}}`, `{"s":"abc"}`, []string{"at most 2 characters"}},
		{"pattern", `{"type":"object","properties":{"t":{"type":"string","pattern":"^T-\\d{4}-\\d{4}$"}}}`, `{"t":"bad-123"}`, []string{`must match the pattern ^T-\d{4}-\d{4}$; got "bad-123"`}},
		{"unsupported pattern skipped", `{"type":"object","properties":{"t":{"type":"string","pattern":"^(?!x)"}}}`, `{"t":"x"}`, nil},
		{"formats ok", `{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"email"},"c":{"type":"string","format":"uuid"},"d":{"type":"string","format":"uri"}}}`,
			`{"a":"2026-01-31T09:30:00+02:00","b":"a@b.co","c":"123e4567-e89b-12d3-a456-426614174000","d":"https://x.y/z"}`, nil},
		{"formats bad", `{"type":"object","properties":{"a":{"type":"string","format":"date-time"},"b":{"type":"string","format":"email"},"c":{"type":"string","format":"uuid"},"d":{"type":"string","format":"uri"}}}`,
			`{"a":"yesterday","b":"nope","c":"123","d":"/rel"}`, []string{"4 problems", "RFC 3339", "email address", "UUID", "absolute URI"}},
		{"arrays", `{"type":"object","properties":{"a":{"type":"array","minItems":1,"maxItems":3,"uniqueItems":true,"items":{"type":"integer"}}}}`, `{"a":[1,2,1.0]}`, []string{"must not contain duplicates"}},
		{"prefixItems", `{"type":"object","properties":{"p":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}]}}}`, `{"p":["a","b"]}`, []string{`"p[1]" must be an integer`}},
		{"recursive ref", `{"type":"object",` + defs + `,"properties":{"tree":{"$ref":"#/$defs/node"}}}`, `{"tree":{"name":"a","child":{"name":"b","child":{"nam":"c"}}}}`, []string{`"tree.child.child.nam" is not an allowed property (did you mean "name"?)`}},
		{"anyOf", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"v":true}`, []string{"does not match any of the 2 allowed forms"}},
		{"oneOf both", `{"type":"object","properties":{"v":{"oneOf":[{"type":"number"},{"type":"integer"}]}}}`, `{"v":1}`, []string{"more than one"}},
		{"allOf", `{"type":"object","properties":{"v":{"allOf":[{"type":"string"},{"minLength":3}]}}}`, `{"v":"ab"}`, []string{"at least 3 characters"}},
		{"not", `{"type":"object","properties":{"v":{"not":{"const":"x"}}}}`, `{"v":"x"}`, []string{"not allowed"}},
		{"const", `{"type":"object","properties":{"v":{"const":3}}}`, `{"v":3.0}`, nil},
		{"properties count", `{"type":"object","properties":{"o":{"type":"object","minProperties":1,"maxProperties":1}}}`, `{"o":{}}`, []string{"at least 1 properties"}},
		{"additional schema", `{"type":"object","additionalProperties":{"type":"string"}}`, `{"x":1}`, []string{`"x" must be a string`}},
		{"nullable", `{"type":"object","properties":{"v":{"type":["string","null"]}}}`, `{"v":null}`, nil},
		{"many violations bounded", `{"type":"object","additionalProperties":false}`, `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1}`, []string{"12 problems", "and 2 more"}},
		{"required example", `{"type":"object","properties":{"d":{"type":"string","format":"date"}},"required":["d"]}`, `{}`, []string{`"d" is required but missing (example: "2026-01-31")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := compileSchema(tc.schema)
			if err != nil {
				t.Fatal(err)
			}
			msg := validateText(n, tc.args)
			if len(tc.want) == 0 {
				if msg != "" {
					t.Fatalf("unexpected failure: %s", msg)
				}
				return
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q\nlacks %q", msg, w)
				}
			}
		})
	}
}

// validateText runs the handler's decode-and-validate steps.
func validateText(n *schemaNode, raw string) string {
	args, msg := decodeArguments([]byte(raw))
	if msg != "" {
		return msg
	}
	v := &validator{}
	v.check(n, args, "", 0)
	if v.failed() {
		return validationMessage(v)
	}
	return ""
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, s := range []string{`{`, `{"$ref":"https://example.com/s.json"}`, `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`} {
		if _, err := compileSchema(s); err == nil {
			t.Errorf("compileSchema(%s) succeeded", s)
		}
	}
}

func TestApplyDefaults(t *testing.T) {
	n, _ := compileSchema(`{"type":"object","properties":{"limit":{"type":"integer","default":20},"q":{"type":"string"}}}`)
	args := map[string]any{"q": "x"}
	applyDefaults(n, args)
	if args["limit"] == nil || args["q"] != "x" {
		t.Fatalf("args = %v", args)
	}
}
