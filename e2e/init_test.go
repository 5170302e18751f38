//go:build e2e

package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/scaffold"
	"github.com/oa2mcp/oa2mcp/generator/write"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// TestInitOnKubernetes drafts an override file for the Kubernetes API with
// oa2mcp init's scaffold, generates a server from it and builds it: the
// draft must be valid as written and give far fewer tools than operations.
func TestInitOnKubernetes(t *testing.T) {
	spec := filepath.Join(testenv.CorpusDir(t), "kubernetes-2.0.json")
	doc, problems := load.Load(context.Background(), spec, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	draft := scaffold.Draft(doc)
	ov, ovProblems := overrides.Decode("k8s-overrides.yaml", draft)
	if ovProblems.HasErrors() {
		t.Fatalf("the draft does not decode:\n%s", ovProblems.Errors())
	}
	res, genProblems := generator.Generate(doc, generator.Config{Name: "k8s", ImportPath: "corpus/k8s", Overrides: ov})
	if genProblems.HasErrors() {
		t.Fatalf("the draft does not generate:\n%s", genProblems.Errors())
	}
	tools, ops := len(res.Server.Tools), len(doc.Operations)
	t.Logf("kubernetes: %d operations → %d tools", ops, tools)
	if tools*4 > ops {
		t.Errorf("init gave %d tools for %d operations; want far fewer (at most a quarter)", tools, ops)
	}
	if !strings.Contains(string(draft), "TODO") {
		t.Error("the draft marks no weak spots with TODO")
	}
	mod := testenv.TempModule(t, "corpus")
	dir := filepath.Join(mod, "k8s")
	changes, err := write.Plan(dir, res.Files)
	must(t, err)
	must(t, write.Apply(dir, changes))
	buildAll(t, mod)
}

// TestInitDraftsGenerate: for every spec of the corpus, the draft oa2mcp
// init writes generates as written, every tool and discoverable
// operation proven callable: a new user's first generate works.
func TestInitDraftsGenerate(t *testing.T) {
	corpus := testenv.CorpusDir(t)
	for _, e := range testenv.Corpus() {
		t.Run(e.Name, func(t *testing.T) {
			doc, problems := load.Load(context.Background(), filepath.Join(corpus, e.Path), load.Options{})
			if problems.HasErrors() {
				t.Fatal(problems.Errors())
			}
			draft := scaffold.Draft(doc)
			ov, ovProblems := overrides.Decode(e.Name+"-overrides.yaml", draft)
			if ovProblems.HasErrors() {
				t.Fatalf("the draft does not decode:\n%s", ovProblems.Errors())
			}
			if _, genProblems := generator.Generate(doc, generator.Config{Name: e.Name, ImportPath: "corpus/" + e.Name, Overrides: ov}); genProblems.HasErrors() {
				t.Fatalf("the draft does not generate:\n%s", genProblems.Errors())
			}
		})
	}
}
