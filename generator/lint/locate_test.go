package lint

import (
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
)

func TestLocate(t *testing.T) {
	doc := &load.Document{File: "api.yaml", Operations: []*load.Operation{{
		Method: "GET", Path: "/pets", Pos: diag.Position{File: "api.yaml", Line: 10, Column: 5},
		Parameters: []*load.Parameter{{Name: "status", In: "query", Pos: diag.Position{File: "api.yaml", Line: 14, Column: 11}}},
	}}}
	ov, problems := overrides.Decode("ov.yaml", []byte("version: 1\nserver: {tool_prefix: shop}\ntools:\n  - name: get_pet\n    operation: x\n    input:\n      pet_id: {description: Id.}\n"))
	if problems.HasErrors() {
		t.Fatal(problems)
	}
	listPets := tool("list_pets", "GET", "/pets", "Lists.", `{"type":"object"}`)
	listPets.Op.Params = []ir.Param{{Name: "status", In: "query", Arg: "status"}}
	srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "shop"}, Tools: []ir.Tool{
		tool("shop_get_pet", "GET", "/pets/{id}", "Gets.", `{"type":"object"}`), listPets,
	}}
	rep := &Report{Findings: []Finding{
		{Tool: "shop_get_pet"}, {Tool: "shop_get_pet", Param: "pet_id"}, {Tool: "shop_get_pet", Param: "other"},
		{Tool: "list_pets"}, {Tool: "list_pets", Param: "status"}, {Tool: "list_pets", Param: "nope"},
		{Rule: "name-namespace"}, {Rule: "tool-count"},
	}}
	Locate(rep, srv, Sources{Doc: doc, Overrides: ov})
	want := []string{
		"ov.yaml:4:5",    // the tool's entry
		"ov.yaml:7:7",    // its input's entry
		"ov.yaml:6:5",    // where the input's entry would go
		"api.yaml:10:5",  // the operation of a default tool
		"api.yaml:14:11", // its parameter
		"api.yaml:10:5",
		"ov.yaml:2:10", // the key that fixes a server finding
		"ov.yaml:3:1",
	}
	for i, f := range rep.Findings {
		if got := f.Pos().String(); got != want[i] {
			t.Errorf("finding %d (%s %s %s): at %q, want %q", i, f.Tool, f.Param, f.Rule, got, want[i])
		}
	}
	rep = &Report{Findings: []Finding{{Rule: "name-namespace"}, {Tool: "shop_get_pet"}}}
	Locate(rep, srv, Sources{Doc: doc})
	for _, f := range rep.Findings {
		if f.Pos().String() != "api.yaml" {
			t.Errorf("without overrides: %+v at %q, want the spec file", f, f.Pos())
		}
	}
}

// TestListBytesCountsOutputSchema: clients receive the output schema
// with every tool, so it counts towards tools/list.
func TestListBytesCountsOutputSchema(t *testing.T) {
	a := tool("a", "GET", "/a", "A.", `{"type":"object"}`)
	b := a
	b.OutputSchema = `{"type":"object","properties":{"x":{"type":"string"}}}`
	if diff := ir.ListBytes([]ir.Tool{b}) - ir.ListBytes([]ir.Tool{a}); diff != len(`,"outputSchema":`)+len(b.OutputSchema) {
		t.Errorf("output schema adds %d bytes, want %d", diff, len(`,"outputSchema":`)+len(b.OutputSchema))
	}
	if !strings.Contains(string(ir.RawSchema("not json", `{}`)), "{}") {
		t.Error("invalid input schema not replaced")
	}
}
