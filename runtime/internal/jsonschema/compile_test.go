package jsonschema

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCompileSchemaUnsupported(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         []UnsupportedKeyword
		msg          string // the whole message, when set
	}{
		{"one keyword", `{"type":"object","properties":{"a":{"unevaluatedProperties":false}}}`,
			[]UnsupportedKeyword{{Pointer: "/properties/a", Keyword: "unevaluatedProperties"}},
			`unsupported keyword "unevaluatedProperties" at /properties/a; the runtime cannot enforce it`},
		{"all of them, sorted", `{"nullable":true,"properties":{"b/c":{"discriminator":{}},"a":{"$dynamicAnchor":"x","$dynamicRef":"#x"}},"$defs":{"d":{"dependencies":{}}}}`,
			[]UnsupportedKeyword{{Pointer: "", Keyword: "nullable"}, {Pointer: "/$defs/d", Keyword: "dependencies"},
				{Pointer: "/properties/a", Keyword: "$dynamicAnchor"}, {Pointer: "/properties/a", Keyword: "$dynamicRef"},
				{Pointer: "/properties/b~1c", Keyword: "discriminator"}},
			`unsupported keyword "nullable" at the root; unsupported keyword "dependencies" at /$defs/d; unsupported keyword "$dynamicAnchor" at /properties/a; unsupported keyword "$dynamicRef" at /properties/a; unsupported keyword "discriminator" at /properties/b~1c; the runtime cannot enforce them`},
		{"remote ref", `{"items":{"$ref":"https://example.com/s.json"}}`,
			[]UnsupportedKeyword{{Pointer: "/items", Keyword: "$ref", Reason: `only local JSON-pointer references (#/...) are supported, got "https://example.com/s.json"`}},
			`unsupported keyword "$ref" at /items (only local JSON-pointer references (#/...) are supported, got "https://example.com/s.json"); the runtime cannot enforce it`},
		{"anchor ref", `{"$ref":"#node"}`,
			[]UnsupportedKeyword{{Pointer: "", Keyword: "$ref", Reason: `only local JSON-pointer references (#/...) are supported, got "#node"`}}, ""},
		{"nested $id", `{"$id":"https://x.test/a","$defs":{"b":{"$id":"b"}}}`,
			[]UnsupportedKeyword{{Pointer: "/$defs/b", Keyword: "$id", Reason: "only the root may have an $id"}}, ""},
		{"other dialect", `{"$schema":"http://json-schema.org/draft-07/schema#"}`,
			[]UnsupportedKeyword{{Pointer: "", Keyword: "$schema", Reason: `only https://json-schema.org/draft/2020-12/schema is supported, got "http://json-schema.org/draft-07/schema#"`}}, ""},
		{"lookahead", `{"properties":{"t":{"pattern":"^(?!x)"}}}`,
			[]UnsupportedKeyword{{Pointer: "/properties/t", Keyword: "pattern", Reason: `Go cannot match the pattern "^(?!x)": lookahead is not supported`}}, ""},
		{"backreference in patternProperties", `{"patternProperties":{"(a)\\1":true}}`,
			[]UnsupportedKeyword{{Pointer: "", Keyword: "patternProperties", Reason: `Go cannot match the pattern "(a)\\1": \1 is not a supported escape (backreferences and Go-only escapes are refused)`}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.schema)
			var ue *UnsupportedError
			if !errors.As(err, &ue) {
				t.Fatalf("got %v, want an *UnsupportedError", err)
			}
			if !reflect.DeepEqual(ue.Keywords, tc.want) {
				t.Errorf("keywords\n got %+v\nwant %+v", ue.Keywords, tc.want)
			}
			if tc.msg != "" && err.Error() != tc.msg {
				t.Errorf("message\n got %s\nwant %s", err, tc.msg)
			}
			if _, err := CompileNode(tc.schema); err == nil {
				t.Error("the server's CompileNode accepts it")
			}
		})
	}
}

func TestCompileSchemaInvalid(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{`, "not valid JSON"},
		{`{"properties":{"a":{"$ref":"#/$defs/missing"}}}`, `"$ref" at /properties/a: "#/$defs/missing" does not resolve`},
		{`{"type":"strng","minLength":-1,"maxItems":"3","multipleOf":0,"enum":{}}`,
			`invalid schema: "enum" at the root: must be an array; "maxItems" at the root: must be a non-negative integer, got "3"; "minLength" at the root: must be a non-negative integer, got -1; "multipleOf" at the root: must be greater than 0, got 0; "type" at the root: unknown type "strng"`},
		{`{"items":[{"type":"string"}]}`, `at /items: a schema must be an object or a boolean, got an array`},
		{`{"allOf":[]}`, `"allOf" at the root: must be a non-empty array of schemas`},
		{`{"required":["a",1]}`, `"required" at the root: must be an array of strings`},
		{`{"format":7}`, `"format" at the root: must be a string`},
		{`{"properties":{"a":3}}`, `at /properties/a: a schema must be an object or a boolean, got 3 (a number)`},
	} {
		_, err := Compile(tc.schema)
		var ue *UnsupportedError
		if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CompileSchema(%s) = %v, want a plain error containing %q", tc.schema, err, tc.want)
		}
	}
}

func TestCompileSchemaAnnotations(t *testing.T) {
	const schema = `{
	  "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/tool", "$comment": "c",
	  "title": "t", "description": "d", "examples": [{}], "example": {}, "default": {}, "deprecated": true,
	  "readOnly": false, "writeOnly": false, "x-mcp-header": "X-Trace", "x-anything": {"unevaluatedProperties": false},
	  "$defs": {"s": {"type": "string", "contentMediaType": "application/json", "contentEncoding": "base64",
	    "contentSchema": {"unknownInside": true}}},
	  "properties": {"a": {"$ref": "#/$defs/s"}, "b": {"$ref": "https://example.com/tool#/$defs/s"}}
	}`
	s, err := Compile(schema)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := DecodeJSON(`{"a":"x","b":1}`)
	if err := s.Validate(v); err == nil || !strings.Contains(err.Error(), `"b" must be a string`) {
		t.Errorf("Validate = %v; the $ref through the root $id must apply", err)
	}
}

func TestUnassertedFormats(t *testing.T) {
	s, err := Compile(`{"format":"hostname","properties":{"id":{"type":"integer","format":"int64"},
	  "at":{"type":"string","format":"date-time"},"ip":{"format":"ipv4"}},"$defs":{"t":{"format":"time"}}}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []FormatUse{{"", "hostname"}, {"/$defs/t", "time"}, {"/properties/id", "int64"}}
	if got := s.UnassertedFormats(); !reflect.DeepEqual(got, want) {
		t.Errorf("UnassertedFormats = %+v, want %+v", got, want)
	}
}

// TestECMAPatterns covers the translations the suite does not: where
// ECMA-262 and Go's syntax read the same text differently.
func TestECMAPatterns(t *testing.T) {
	for _, tc := range []struct {
		pattern        string
		match, nomatch []string
	}{
		{`^\s$`, []string{"\u00a0", "\ufeff", "\v", " "}, []string{"x", ""}},
		{`^\S$`, []string{"x"}, []string{"\u2028", " "}},
		{`^.$`, []string{"é", "🐲"}, []string{"\n", "\r", "\u2028"}},
		{`^[^]$`, []string{"\n", "a"}, []string{""}},
		{`[]`, nil, []string{"", "a", "[]"}},
		{`^[[:alpha:]]$`, []string{"a]", ":]", "[]"}, []string{"b", "a", "b]"}},
		{`^[\s\d]+$`, []string{"1\u00a02"}, []string{"a"}},
		{`^[\b]$`, []string{"\b"}, []string{"b"}},
		{`^\u00e9\u{1F432}\uD83D\uDC32$`, []string{"é🐲🐲"}, []string{"e🐲🐲"}},
		{`^\cJ\x41\0$`, []string{"\nA\x00"}, []string{"cJx41"}},
		{`^\p{Lu}\P{L}\p{Script=Greek}\p{digit}$`, []string{"A1π٣"}, []string{"a1π3x"}},
		{`^[\p{ASCII}]\P{ASCII}\p{Any}$`, []string{"aéb"}, []string{"éab"}},
		{`^(?<year>\d{4})-(?:\d\d)$`, []string{"2026-01"}, []string{"26-01"}},
		{`^[\w\-\:\/]+$`, []string{"a-b:c/d"}, []string{"a b"}},
		{`^\{q\}[\s\S]*?\{c\}$`, []string{"{q}\n\u2028 x\t{c}", "{q}{c}"}, []string{"{q}{d}"}},
		{`^[\W\w]$`, []string{"\n", "é"}, []string{"ab"}},
	} {
		s, err := Compile(`{"pattern":` + ShowValue(tc.pattern) + `}`)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		for _, m := range tc.match {
			if err := s.Validate(m); err != nil {
				t.Errorf("%s should match %q: %v", tc.pattern, m, err)
			}
		}
		for _, m := range tc.nomatch {
			if s.Validate(m) == nil {
				t.Errorf("%s should not match %q", tc.pattern, m)
			}
		}
	}
	for _, p := range []string{`(?=a)`, `(?<=a)b`, `(?<!a)b`, `(?i)a`, `\k<x>`, `\a`, `\z`, `\pL`, `[\S]`, `[\P{ASCII}]`,
		`\uD83D`, `\u{110000}`, `\p{Other}`, `\p{Script_Extensions=Greek}`, `\x4`, `\c1`, `\01`, `[a`, `\`, `\é`} {
		if _, err := Compile(`{"pattern":` + ShowValue(p) + `}`); err == nil {
			t.Errorf("pattern %s compiled; Go would not read it as ECMA-262 does", p)
		}
	}
}

// TestFormatsBeyondSuite covers grammar the suite's format files leave
// out.
func TestFormatsBeyondSuite(t *testing.T) {
	for _, tc := range []struct {
		format, value string
		valid         bool
	}{
		{"email", `"joe\"bloggs"@example.com`, true},
		{"email", `"joe\\bloggs"@example.com`, true},
		{"email", `"joe"bloggs"@example.com`, false},
		{"email", `joe@[IPv6:2001:db8::1]`, true},
		{"email", `joe@[x-tag:any.content]`, true},
		{"email", `joe@[x-tag:]`, false},
		{"email", `joe@-example.com`, false},
		{"email", `joe@localhost`, true},
		{"uri", `http://[v1.fe80::a+en1]/`, true},
		{"uri", `http://[v1.]/`, false},
		{"uri", `http://[fe80::1%25en0]/`, false},
		{"uri", `urn:isbn:0451450523`, true},
		{"uri", `http://user:pa%20ss@host:8080/p/a/t/h?q=1&r=[x]#frag`, false},
		{"uri", `http://user:pa%20ss@host:8080/p/a/t/h?q=1&r=x#frag/?`, true},
		{"date-time", "2026-01-31T09:30:00.5+14:00", true},
		{"date-time", "2026-01-31T09:30:00.+01:00", false},
		{"date", "0000-02-29", true},
	} {
		got := checkFormat(tc.format, tc.value) == ""
		if got != tc.valid {
			t.Errorf("%s %q: valid=%v, want %v", tc.format, tc.value, got, tc.valid)
		}
	}
}

// TestCompileSchemaValueGoNumbers: a schema built as a Go value may hold
// float64 and integer bounds; they are enforced like decoded JSON numbers.
func TestCompileSchemaValueGoNumbers(t *testing.T) {
	s, err := CompileValue(map[string]any{"type": "integer", "minimum": 1.0, "maximum": int64(50), "multipleOf": 2})
	if err != nil {
		t.Fatal(err)
	}
	for v, ok := range map[string]bool{"2": true, "50": true, "500": false, "0": false, "3": false} {
		n, _ := DecodeJSON(v)
		if got := s.Validate(n) == nil; got != ok {
			t.Errorf("%s: valid = %v, want %v", v, got, ok)
		}
	}
	if _, err := CompileValue(map[string]any{"type": "string", "maxLength": uint64(3)}); err != nil {
		t.Errorf("uint64 count: %v", err)
	}
}

// TestCompileAnchor checks that $anchor names a schema and asserts
// nothing, that a malformed one is refused, and that a reference by
// anchor is refused rather than left unchecked.
func TestCompileAnchor(t *testing.T) {
	s, err := Compile(`{"$defs":{"a":{"$anchor":"addressDef","type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`)
	if err != nil {
		t.Fatalf("a named anchor: %v", err)
	}
	if s.Validate(map[string]any{"x": 1.0}) == nil {
		t.Error("the anchored definition is not enforced")
	}
	for _, bad := range []string{`{"$anchor":"1x"}`, `{"$anchor":7}`, `{"$defs":{"a":{"$anchor":"a"}},"$ref":"#a"}`} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("%s compiled", bad)
		}
	}
}
