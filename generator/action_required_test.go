package generator_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// TestInputEveryActionNeedsIsRequired: an input the file marks
// required: true in an action's own input: block, where every action
// needs it, is required by the tool's schema, not only by the action (a
// random override file found the schema asking only for "action").
func TestInputEveryActionNeedsIsRequired(t *testing.T) {
	spec := `{"openapi":"3.0.3","info":{"title":"Users","version":"1"},"paths":{"/users":{"get":{"operationId":"listUsers",
"parameters":[{"name":"order","in":"query","schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}}}`
	ov := `version: 1
tools:
- name: users
  actions:
    list:
      steps:
      - id: s
        operation: listUsers
        args:
          order: ${input.order}
      input:
        order:
          required: true
`
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, problems := load.Load(context.Background(), path, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	file, problems := overrides.Decode("oa2mcp.yaml", []byte(ov))
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	srv, problems := generator.Model(doc, generator.Config{Name: "users", Overrides: file})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	var in struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(srv.Tools[0].InputSchema), &in); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(in.Required, "order") || !slices.Contains(in.Required, "action") {
		t.Errorf("required %v, want action and order", in.Required)
	}
}
