package mapping

import (
	"reflect"
	"testing"
)

// TestMergedJSONConjoins: a union variant's property declared by the
// variant and its allOf part is their conjunction, by the rule loaded
// schemas follow; a declaration repeated counts once; the values a
// conjunction fixes still tell the variants apart.
func TestMergedJSONConjoins(t *testing.T) {
	defs := map[string]any{
		"Pet": map[string]any{"properties": map[string]any{
			"kind": map[string]any{"type": "string"}, "name": map[string]any{"type": "string"},
		}, "required": []any{"kind"}},
	}
	variant := func(kind string) map[string]any {
		return map[string]any{
			"allOf": []any{map[string]any{"$ref": "#/$defs/Pet"}, map[string]any{"$ref": "#/$defs/Pet"}},
			"properties": map[string]any{
				"kind": map[string]any{"enum": []any{kind, "other"}},
				"name": map[string]any{"type": "string"},
			},
		}
	}
	m := mergedJSON(variant("dog"), defs, 0)
	want := map[string]any{"allOf": []any{map[string]any{"enum": []any{"dog", "other"}}, map[string]any{"type": "string"}}}
	if got := propSchema(m, "kind"); !reflect.DeepEqual(got, want) {
		t.Fatalf("kind is %s, want %s", mustMarshal(got), mustMarshal(want))
	}
	if got := propSchema(m, "name"); !reflect.DeepEqual(got, map[string]any{"type": "string"}) {
		t.Fatalf("name, declared alike twice, is %s", mustMarshal(got))
	}
	both := map[string]any{"allOf": []any{map[string]any{"enum": []any{"dog", "cat"}}, map[string]any{"enum": []any{"cat", "dog", "emu"}}, map[string]any{}}}
	if got := fixedJSON(both); !reflect.DeepEqual(got, []any{"dog", "cat"}) {
		t.Fatalf("a conjunction of enums fixes %v, want [dog cat]", got)
	}
	if _, disc := variants([]any{variant("dog"), variant("cat")}, defs); disc != "" {
		t.Fatalf("discriminator %q, but both variants allow kind=other", disc)
	}
	dog, cat := variant("dog"), variant("cat")
	dog["properties"].(map[string]any)["kind"] = map[string]any{"enum": []any{"dog"}}
	cat["properties"].(map[string]any)["kind"] = map[string]any{"const": "cat"}
	if vs, disc := variants([]any{dog, cat}, defs); disc != "kind" || !reflect.DeepEqual(vs[1].values, []any{"cat"}) {
		t.Fatalf("discriminator %q (values %v), want kind through the conjunctions", disc, vs)
	}
}

// TestCompressionKeepsAllOfType: a top-level property that is an allOf of
// declarations, its arms cut by compression, keeps the type an arm gives
// and the scalar checks the arms agree on.
func TestCompressionKeepsAllOfType(t *testing.T) {
	for _, tc := range []struct {
		arms []any
		want map[string]any
	}{
		{[]any{map[string]any{"$ref": "#/$defs/X"}, map[string]any{"type": "integer", "minimum": 1.0}}, map[string]any{"type": "integer", "minimum": 1.0}},
		{[]any{map[string]any{"type": "string", "maxLength": 3.0, "pattern": "^a"}, map[string]any{"maxLength": 5.0, "pattern": "^a"}}, map[string]any{"type": "string", "pattern": "^a"}},
		{[]any{map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}, map[string]any{"type": "array", "items": map[string]any{}}},
		{[]any{map[string]any{"$ref": "#/$defs/X"}}, map[string]any{}},
	} {
		s := map[string]any{"allOf": tc.arms}
		collapseBelow(2, nil)(s, 1)
		if !reflect.DeepEqual(s, tc.want) {
			t.Errorf("allOf %s collapses to %s, want %s", mustMarshal(tc.arms), mustMarshal(s), mustMarshal(tc.want))
		}
	}
}
