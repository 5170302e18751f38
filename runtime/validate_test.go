package runtime

import (
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
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
		{"multipleOf", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.01}}}`, `{"n":1.005}`, []string{`"n" must be a multiple of 0.01; got 1.005`}},
		{"multipleOf ok", `{"type":"object","properties":{"n":{"type":"number","multipleOf":0.01}}}`, `{"n":1.25}`, nil},
		{"length in runes", `{"type":"object","properties":{"s":{"type":"string","maxLength":2}}}`, `{"s":"日本"}`, nil},
		{"too long", `{"type":"object","properties":{"s":{"type":"string","maxLength":2}}}`, `{"s":"abc"}`, []string{"at most 2 characters"}},
		{"pattern", `{"type":"object","properties":{"t":{"type":"string","pattern":"^T-\\d{4}-\\d{4}$"}}}`, `{"t":"bad-123"}`, []string{`must match the pattern ^T-\d{4}-\d{4}$; got "bad-123"`}},
		{"ECMA pattern", `{"type":"object","properties":{"t":{"type":"string","pattern":"^\\s\\u00e9.$"}}}`, `{"t":"\u00a0\u00e9\r"}`, []string{`"t" must match the pattern`}},
		{"ECMA pattern ok", `{"type":"object","properties":{"t":{"type":"string","pattern":"^\\s\\u00e9.$"}}}`, `{"t":"\u00a0\u00e9x"}`, nil},
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
		{"patternProperties", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":1,"y":"v"}`, []string{`"x-a" must be a string; got 1`, `"y" is not an allowed property`}},
		{"patternProperties ok", `{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":false}`, `{"x-a":"v"}`, nil},
		{"propertyNames", `{"type":"object","properties":{"o":{"type":"object","propertyNames":{"maxLength":3}}}}`, `{"o":{"abcd":1,"ab":2}}`, []string{`"o" must not have the property name "abcd" (the name must be at most 3 characters long; got 4)`}},
		{"dependentRequired", `{"type":"object","dependentRequired":{"card":["cvv"]}}`, `{"card":"4111"}`, []string{`"cvv" is required when "card" is present`}},
		{"dependentSchemas", `{"type":"object","dependentSchemas":{"card":{"required":["cvv"]}}}`, `{"card":"4111"}`, []string{`"cvv" is required but missing`}},
		{"dependent absent", `{"type":"object","dependentRequired":{"card":["cvv"]},"dependentSchemas":{"card":false}}`, `{"iban":"x"}`, nil},
		{"contains", `{"type":"object","properties":{"a":{"type":"array","contains":{"const":"admin"}}}}`, `{"a":["x"]}`, []string{`"a" must contain at least 1 matching item(s); got 0 (item 0: must be exactly "admin"; got "x")`}},
		{"minContains hint", `{"type":"object","properties":{"a":{"contains":{"type":"integer"},"minContains":2}}}`, `{"a":[1,"x"]}`, []string{`"a" must contain at least 2 matching item(s); got 1 (item 1: must be an integer; got "x" (a string))`}},
		{"maxContains", `{"type":"object","properties":{"a":{"contains":{"type":"integer"},"minContains":2,"maxContains":2}}}`, `{"a":[1,2,3]}`, []string{`"a" must contain at most 2 matching item(s); got 3`}},
		{"minContains 0", `{"type":"object","properties":{"a":{"contains":{"type":"integer"},"minContains":0}}}`, `{"a":["x"]}`, nil},
		{"if then", `{"type":"object","if":{"properties":{"kind":{"const":"card"}},"required":["kind"]},"then":{"required":["number"]},"else":{"required":["iban"]}}`, `{"kind":"card"}`, []string{`"number" is required`}},
		{"if else", `{"type":"object","if":{"properties":{"kind":{"const":"card"}},"required":["kind"]},"then":{"required":["number"]},"else":{"required":["iban"]}}`, `{"kind":"bank"}`, []string{`"iban" is required`}},
		{"ip formats", `{"type":"object","properties":{"a":{"type":"string","format":"ipv4"},"b":{"type":"string","format":"ipv6"}}}`, `{"a":"300.1.1.1","b":"fe80::1%eth0"}`, []string{`"a" must be an IPv4 address`, `"b" must be an IPv6 address`}},
		{"unasserted format", `{"type":"object","properties":{"h":{"type":"string","format":"hostname"}}}`, `{"h":"-not a host-"}`, nil},
		{"exact maximum", `{"type":"object","properties":{"n":{"type":"integer","maximum":9007199254740992}}}`, `{"n":9007199254740993}`, []string{`"n" must be at most 9007199254740992; got 9007199254740993`}},
		{"exact exclusiveMinimum", `{"type":"object","properties":{"n":{"exclusiveMinimum":9007199254740992}}}`, `{"n":9007199254740993}`, nil},
		{"multipleOf float noise", `{"type":"object","properties":{"n":{"multipleOf":0.1}}}`, `{"n":0.30000000000000004}`, []string{`"n" must be a multiple of 0.1; got 0.30000000000000004`}},
		{"multipleOf huge", `{"type":"object","properties":{"n":{"multipleOf":0.5}}}`, `{"n":1e308}`, nil},
		{"nullable anyOf", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, `{"v":null}`, nil},
		{"anyOf closest", `{"type":"object","properties":{"v":{"anyOf":[{"type":"string","minLength":3},{"type":"null"}]}}}`, `{"v":"ab"}`, []string{`"v" does not match any of the 2 allowed forms (closest form: "v" must be at least 3 characters long; got 2)`}},
		{"required example", `{"type":"object","properties":{"d":{"type":"string","format":"date"}},"required":["d"]}`, `{}`, []string{`"d" is required but missing (example: "2026-01-31")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := jsonschema.CompileNode(tc.schema)
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
func validateText(n *jsonschema.Node, raw string) string {
	args, msg := decodeArguments([]byte(raw))
	if msg != "" {
		return msg
	}
	v := &jsonschema.Validator{}
	v.Check(n, args, "", 0)
	if v.Failed() {
		return jsonschema.Message(v)
	}
	return ""
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, s := range []string{`{`, `{"$ref":"https://example.com/s.json"}`, `{"properties":{"a":{"$ref":"#/$defs/missing"}}}`,
		`{"type":"object","properties":{"t":{"type":"string","pattern":"^(?!x)"}}}`} {
		if _, err := jsonschema.CompileNode(s); err == nil {
			t.Errorf("compileSchema(%s) succeeded", s)
		}
	}
}

func TestApplyDefaults(t *testing.T) {
	n, _ := jsonschema.CompileNode(`{"type":"object","properties":{"limit":{"type":"integer","default":20},"q":{"type":"string"}}}`)
	args := map[string]any{"q": "x"}
	jsonschema.ApplyDefaults(n, args)
	if args["limit"] == nil || args["q"] != "x" {
		t.Fatalf("args = %v", args)
	}
}

// TestValidCallAllocatesNothing holds the hot path to zero allocations: a
// valid value is decided by a quiet pass that builds no paths or messages.
func TestValidCallAllocatesNothing(t *testing.T) {
	n, err := jsonschema.CompileNode(`{"type":"object","additionalProperties":false,"required":["id","kind"],
	  "$defs":{"Tag":{"type":"string","pattern":"^[a-z]+$","maxLength":20}},
	  "properties":{"id":{"type":"integer","minimum":1},"kind":{"enum":["a","b"]},"price":{"type":"number","multipleOf":0.01,"maximum":100},
	    "tags":{"type":"array","items":{"$ref":"#/$defs/Tag"},"uniqueItems":true},"note":{"anyOf":[{"type":"string"},{"type":"null"}]},
	    "when":{"type":"string","format":"date-time"},"meta":{"type":"object","additionalProperties":{"type":"string"}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	args, _ := decodeArguments([]byte(`{"id":1,"kind":"a","price":19.99,"tags":["x","y"],"note":null,"when":"2026-01-31T09:30:00Z","meta":{"k":"v"}}`))
	allocs := testing.AllocsPerRun(100, func() {
		v := &jsonschema.Validator{}
		if v.Check(n, args, "", 0); v.Failed() {
			t.Fatal(jsonschema.Message(v))
		}
	})
	if allocs != 0 {
		t.Errorf("a valid call allocates %v times", allocs)
	}
}

// TestViolationOrder: messages list properties in sorted order, whatever
// order the map gives, so the text is the same on every call.
func TestViolationOrder(t *testing.T) {
	n, err := jsonschema.CompileNode(`{"type":"object","additionalProperties":{"type":"string"}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := "Invalid arguments (8 problems):"
	for _, k := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		want += "\n- \"" + k + "\" must be a string; got 1 (a number)"
	}
	want += "\nFix these values and call again."
	for range 5 {
		if got := validateText(n, `{"h":1,"g":1,"f":1,"e":1,"d":1,"c":1,"b":1,"a":1}`); got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	}
}
