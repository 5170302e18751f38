package mapping

import (
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// TestRequiredListTakesAnItem: a required array query parameter gets
// minItems 1 (an empty list would be sent as "type=", no value); an
// optional one stays as the spec says.
func TestRequiredListTakesAnItem(t *testing.T) {
	list := func() *load.Schema { return &load.Schema{Type: "array", Items: &load.Schema{Type: "string"}} }
	doc := &load.Document{Title: "Lists", Operations: []*load.Operation{{ID: "findThings", Method: "GET", Path: "/things",
		Parameters: []*load.Parameter{
			{Name: "type", In: "query", Required: true, Style: "form", Explode: false, Schema: list()},
			{Name: "tag", In: "query", Style: "form", Explode: true, Schema: list()},
		}}}}
	_, schema := toolInput(t, doc, "find_things")
	props := schema["properties"].(map[string]any)
	if got := props["type"].(map[string]any)["minItems"]; got != 1 && got != float64(1) {
		t.Errorf("required list: minItems %v, want 1", got)
	}
	if got, ok := props["tag"].(map[string]any)["minItems"]; ok {
		t.Errorf("optional list: minItems %v, want none", got)
	}
}
