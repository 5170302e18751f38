package generator_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// TestProveAndRenderDropsFilesOfAFailedProof: the proof runs while the
// files render, and a tool that cannot be called as generated still
// gets no files, only the error that names it. A broken success case
// (arguments of the wrong type) stands for any proof failure.
func TestProveAndRenderDropsFilesOfAFailedProof(t *testing.T) {
	doc, problems := load.Load(context.Background(), filepath.Join(testenv.CorpusDir(t), "swagger-petstore-3.0.yaml"), load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	srv, problems := generator.Draft(doc, generator.Config{Name: "petstore"})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	if res, problems := generator.ProveAndRender(doc, srv, problems); problems.HasErrors() || len(res.Files) == 0 {
		t.Fatalf("the drafted model does not prove and render: %v", problems.Errors())
	}
	broken := ""
	for i, c := range srv.CallCases {
		if !c.WantError && c.Tool == "get_pet_by_id" {
			srv.CallCases[i].Args = `{"petId":"not a number"}`
			broken = c.Tool
			break
		}
	}
	if broken == "" {
		t.Fatal("get_pet_by_id has no success case to break")
	}
	res, problems := generator.ProveAndRender(doc, srv, nil)
	if res != nil {
		t.Fatalf("a failed proof still rendered %d files", len(res.Files))
	}
	if !problems.HasErrors() || !strings.Contains(problems.Errors().Error(), "tool "+broken+" cannot be called as generated") {
		t.Fatalf("the failed proof reports %v", problems)
	}
}
