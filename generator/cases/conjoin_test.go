package cases

import (
	"reflect"
	"testing"
)

// TestResolveConjoinsProperties: merging an object's allOf parts, a
// property the object and a part declare differently must satisfy both,
// so a value built for it satisfies both.
func TestResolveConjoinsProperties(t *testing.T) {
	root := map[string]any{
		"$defs": map[string]any{"Part": map[string]any{"properties": map[string]any{
			"code": map[string]any{"type": "string", "maxLength": 3.0},
		}}},
		"type":       "object",
		"properties": map[string]any{"code": map[string]any{"type": "string", "pattern": "^a"}},
		"allOf":      []any{map[string]any{"$ref": "#/$defs/Part"}},
		"required":   []any{"code"},
	}
	s := newSynth(root, false)
	got := mapOf(s.resolve(root)["properties"])["code"]
	want := map[string]any{"allOf": []any{
		map[string]any{"type": "string", "pattern": "^a"},
		map[string]any{"type": "string", "maxLength": 3.0},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("code resolves to %v, want %v", got, want)
	}
	if v, ok := s.object(root, false, 0, true); !ok || !s.valid(root, v) {
		t.Fatalf("built %v (ok %v), which the schema refuses", v, ok)
	}
}
