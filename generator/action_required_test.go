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
	if got := requiredInputs(t, spec, ov); !slices.Contains(got, "order") || !slices.Contains(got, "action") {
		t.Errorf("required %v, want action and order", got)
	}
}

// TestRequiredObjectNeedsWhatIsBoundIntoIt: a step binds a required body
// field, an object that requires none of its own fields, field by field
// from inputs; those inputs are required, or a call without them sends
// an empty object that the runtime drops and the upstream misses (a
// random override file for Box found it).
func TestRequiredObjectNeedsWhatIsBoundIntoIt(t *testing.T) {
	spec := `{"openapi":"3.0.3","info":{"title":"Barriers","version":"1"},"paths":{"/barriers":{"post":{"operationId":"createBarrier",
"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","required":["enterprise"],
"properties":{"enterprise":{"type":"object","properties":{"id":{"type":"string"},"type":{"type":"string"}}},"note":{"type":"string"}}}}}},
"responses":{"201":{"description":"ok"}}}}}}`
	ov := `version: 1
tools:
- name: barrier
  steps:
  - id: s
    operation: createBarrier
    args:
      enterprise:
        id: ${input.enterprise_id}
        type: ${input.enterprise_type}
`
	if got := requiredInputs(t, spec, ov); !slices.Contains(got, "enterprise_id") || !slices.Contains(got, "enterprise_type") {
		t.Errorf("required %v, want enterprise_id and enterprise_type", got)
	}
}

// loadSpecText loads an OpenAPI document given as text (JSON or YAML),
// failing the test on any error.
func loadSpecText(t *testing.T, spec string) *load.Document {
	t.Helper()
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, problems := load.Load(context.Background(), path, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	return doc
}

// requiredInputs generates the one tool of spec and override file ov and
// returns its input schema's required list.
func requiredInputs(t *testing.T, spec, ov string) []string {
	t.Helper()
	doc := loadSpecText(t, spec)
	file, problems := overrides.Decode("oa2mcp.yaml", []byte(ov))
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	srv, problems := generator.Model(doc, generator.Config{Name: "t", Overrides: file})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	var in struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(srv.Tools[0].InputSchema), &in); err != nil {
		t.Fatal(err)
	}
	return in.Required
}
