package ir

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// propertyNamesByEncodingJSON is propertyNames as encoding/json reads
// the schema: the form the member scan is held to.
func propertyNamesByEncodingJSON(schema string) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// TestPropertyNamesIsEncodingJSON: for seeded schema texts (the key
// spelt in other cases, with ſ or escapes, repeated, properties that are
// no object, repeated property names, broken and trailing text), the
// member scan lists what encoding/json lists, nil and empty kept apart.
// A failure prints the shortest text that still differs.
func TestPropertyNamesIsEncodingJSON(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 5))
	differs := func(s string) bool {
		got, want := PropertyNames(s), propertyNamesByEncodingJSON(s)
		return !reflect.DeepEqual(got, want) || (got == nil) != (want == nil)
	}
	found := 0
	for i := range 20000 {
		s := randomSchemaText(r)
		if differs(s) {
			for j := len(s) - 1; j >= 0; j-- { // drop bytes while it still differs
				if c := s[:j] + s[j+1:]; differs(c) {
					s = c
				}
			}
			t.Fatalf("seed %d case %d: PropertyNames(%q) = %#v, encoding/json gives %#v", seed, i, s, PropertyNames(s), propertyNamesByEncodingJSON(s))
		}
		if len(PropertyNames(s)) > 0 {
			found++
		}
	}
	if found < 3000 {
		t.Fatalf("seed %d: only %d of 20000 schemas had properties listed", seed, found)
	}
}

// randomSchemaText is an object schema's text with hostile spellings.
func randomSchemaText(r *rand.Rand) string {
	keys := []string{`"properties"`, `"Properties"`, `"PROPERTIES"`, `"propertieſ"`, `"\u0070roperties"`, `"type"`, `"required"`}
	names := []string{`"a"`, `"b"`, `"é"`, `"a\"b"`, `""`, `"\u0061"`}
	value := func() string {
		switch r.IntN(8) {
		case 0:
			return "null"
		case 1:
			return `"object"`
		case 2:
			return `[1,{"x":2}]`
		}
		var b strings.Builder
		b.WriteString("{")
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString([]string{",", ", ", ",\n"}[r.IntN(3)])
			}
			b.WriteString(names[r.IntN(len(names))] + ":" + []string{`{"type":"string"}`, `true`, `{}`, `{"a":{"b":[]}}`}[r.IntN(4)])
		}
		b.WriteString("}")
		return b.String()
	}
	var b strings.Builder
	b.WriteString([]string{"{", " {\n", "{"}[r.IntN(3)])
	for i := range r.IntN(4) {
		if i > 0 {
			b.WriteString(",")
		}
		k := keys[0]
		if r.IntN(3) == 0 {
			k = keys[r.IntN(len(keys))]
		}
		b.WriteString(k + ": " + value())
	}
	b.WriteString("}")
	switch r.IntN(12) {
	case 0:
		return b.String()[:r.IntN(b.Len())]
	case 1:
		return b.String() + " x"
	case 2:
		return "[" + b.String() + "]"
	}
	return b.String()
}
