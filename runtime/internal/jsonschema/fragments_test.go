package jsonschema

import (
	"strings"
	"testing"
)

// TestFragments compiles parts of one document: their references resolve
// against the document, a definition is compiled once for all of them,
// and a problem in a definition reaches every later fragment.
func TestFragments(t *testing.T) {
	doc, err := DecodeJSON(`{
		"type": "object",
		"properties": {
			"pet": {"$ref": "#/$defs/Pet"},
			"owner": {"type": "object", "properties": {"pet": {"$ref": "#/$defs/Pet"}}, "required": ["pet"]}
		},
		"$defs": {"Unused": {"unknownKeyword": 1}, "Pet": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "minLength": 2}}}}
	}`)
	if err != nil {
		t.Fatal(err)
	}
	props := doc.(map[string]any)["properties"].(map[string]any)
	f := NewFragments(doc)
	Check := func(sch *Schema, value string, want bool) {
		t.Helper()
		v, err := DecodeJSON(value)
		if err != nil {
			t.Fatal(err)
		}
		if got := sch.Validate(v) == nil; got != want {
			t.Errorf("%s: valid = %v, want %v", value, got, want)
		}
	}
	pet, err := f.Compile(props["pet"])
	if err != nil {
		t.Fatal(err)
	}
	Check(pet, `{"name":"Rex"}`, true)
	Check(pet, `{"name":"R"}`, false)
	Check(pet, `{}`, false)
	owner, err := f.Compile(props["owner"])
	if err != nil {
		t.Fatal(err)
	}
	Check(owner, `{"pet":{"name":"Rex"}}`, true)
	Check(owner, `{"pet":{"name":"R"}}`, false)
	if n := strings.Count(strings.Join(nodeKeys(f.c), " "), "/$defs/Pet "); n != 1 {
		t.Errorf("Pet compiled %d times for two fragments, want once: %v", n, nodeKeys(f.c))
	}
	// The document's own $defs are compiled as references reach them:
	// Unused, which has a keyword the runtime does not enforce, is not.
	root, err := f.Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	Check(root, `{"pet":{"name":"Rex"},"owner":{"pet":{"name":"Max"}}}`, true)
	Check(root, `{"owner":{"pet":{}}}`, false)

	// A reference to something that is not in the document fails this
	// fragment and every later one.
	if _, err := f.Compile(map[string]any{"$ref": "#/$defs/Tag"}); err == nil || !strings.Contains(err.Error(), "does not resolve") {
		t.Fatalf("dangling reference: err = %v", err)
	}
	if _, err := f.Compile(props["pet"]); err == nil {
		t.Error("a fragment after a problem compiled without error")
	}
}

func nodeKeys(c *schemaCompiler) []string {
	keys := make([]string, 0, len(c.nodes))
	for k := range c.nodes {
		keys = append(keys, k+" ")
	}
	return keys
}
