package generator_test

import (
	"encoding/json"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
)

// TestPatchCasesChangeSomething: a PATCH whose body has only optional
// fields, none with a value the spec gives, still generates (the proof
// runs its cases through the runtime, which refuses an empty merge
// patch), and every case that must succeed carries one body field.
func TestPatchCasesChangeSomething(t *testing.T) {
	spec := `{"openapi":"3.0.3","info":{"title":"Patch","version":"1"},"servers":[{"url":"http://127.0.0.1:1"}],
"paths":{"/configs/{id}":{"patch":{"operationId":"patchConfig","summary":"Change a config",
"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
"requestBody":{"required":true,"content":{"application/json":{"schema":{"type":"object","properties":{
"config":{"type":"object","properties":{"size":{"type":"integer"}}},"label":{"type":"string"}}}}}},
"responses":{"200":{"description":"Changed.","content":{"application/json":{"schema":{"type":"object","properties":{"id":{"type":"string"}}}}}}}}}}}`
	srv, problems := generator.Model(loadSpecText(t, spec), generator.Config{Name: "patch"})
	if problems.HasErrors() {
		t.Fatalf("a PATCH of optional fields does not generate: %v", problems.Errors())
	}
	checked := 0
	for _, c := range srv.CallCases {
		if c.WantError || !c.WantUpstream {
			continue
		}
		var args map[string]any
		json.Unmarshal([]byte(c.Args), &args)
		if args["config"] == nil && args["label"] == nil {
			t.Errorf("case %q sends an empty PATCH: %s", c.Name, c.Args)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("no successful call case to check")
	}
}
