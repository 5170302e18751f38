package lint

import (
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestWriteEmptyBody: a PUT whose body requires nothing is reported
// unless a required input fills the body, per tool and per action.
func TestWriteEmptyBody(t *testing.T) {
	put := func() *ir.Operation {
		return &ir.Operation{Method: "PUT", Path: "/playlists/{id}", Params: []ir.Param{{Name: "id", Arg: "id", In: runtime.InPath, Required: true}},
			Body: &ir.Body{MediaType: "application/json", Fields: []ir.BodyField{{Name: "name", Arg: "name"}, {Name: "public", Arg: "public"}}}}
	}
	tool := func(name, schema string) ir.Tool {
		var tl ir.Tool
		tl.Name, tl.InputSchema, tl.Op = name, schema, put()
		return tl
	}
	action := func(name string, required []string) ir.Tool {
		var tl ir.Tool
		tl.Name, tl.InputSchema = name, `{"type":"object","required":["action"]}`
		tl.Actions = []ir.Action{{Name: "rename", Required: required, Steps: []ir.Step{{ID: "rename", Op: *put(),
			Args: []ir.Binding{{Arg: "id", Expr: "${input.id}"}, {Arg: "name", Expr: "${input.new_name}"}}}}}}
		return tl
	}
	srv := &ir.Server{Tools: []ir.Tool{
		tool("update_any", `{"type":"object","required":["id"]}`),
		tool("update_named", `{"type":"object","required":["id","name"]}`),
		action("rename_loose", []string{"id"}),
		action("rename_strict", []string{"id", "new_name"}),
	}}
	r := Check(srv, Config{})
	for name, want := range map[string]bool{"update_any": true, "update_named": false, "rename_loose": true, "rename_strict": false} {
		if got := rulesOf(r, name)["write-empty-body"]; got != want {
			t.Errorf("%s: write-empty-body %v, want %v", name, got, want)
		}
	}
	// A PATCH is not sent empty (the runtime refuses it), so its finding
	// says that instead of "can send".
	patch := tool("patch_any", `{"type":"object","required":["id"]}`)
	patch.Op.Method = "PATCH"
	r = Check(&ir.Server{Tools: []ir.Tool{patch}}, Config{})
	found := false
	for _, f := range r.Findings {
		if f.Rule == "write-empty-body" {
			found = strings.Contains(f.Message, "refused at run time") && !strings.Contains(f.Message, "can send")
		}
	}
	if !found {
		t.Errorf("no write-empty-body finding saying the empty PATCH is refused: %+v", r.Findings)
	}
}

// TestEnumNumbersAsWritten: a numeric enum is read as the schema writes
// it, so a description that names 1000000 explains it (read as a
// float64 it was 1e+06, which no description says).
func TestEnumNumbersAsWritten(t *testing.T) {
	var tl ir.Tool
	tl.Name = "set_limit"
	tl.InputSchema = `{"type":"object","properties":{"limit":{"type":"integer","enum":[1000000,0.5,2],"description":"The limit: 1000000 (one million), 0.5 or 2."}}}`
	r := Check(&ir.Server{Tools: []ir.Tool{tl}}, Config{})
	if rulesOf(r, "set_limit")["enum-explained"] {
		t.Errorf("the enum is explained in the description, yet reported: %+v", r.Findings)
	}
}
