package generator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/goccy/go-yaml"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// generateFrom loads spec and generates with the petstore overrides.
func generateFrom(t *testing.T, spec string) map[string][]byte {
	t.Helper()
	root := testenv.RepoRoot(t)
	doc, problems := load.Load(context.Background(), spec, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	ov, ovp := overrides.ReadFile(filepath.Join(root, "examples", "petstore", "overrides.yaml"))
	if ovp.HasErrors() {
		t.Fatal(ovp.Errors())
	}
	res, more := generator.Generate(doc, generator.Config{Name: "petstore", ImportPath: "example.com/petstore", Source: "openapi.yaml", Overrides: ov})
	if more.HasErrors() {
		t.Fatal(more.Errors())
	}
	return res.Files
}

func sameFiles(t *testing.T, a, b map[string][]byte, what string) {
	t.Helper()
	var names []string
	for n := range a {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(a) != len(b) {
		t.Fatalf("%s: %d files vs %d", what, len(a), len(b))
	}
	for _, n := range names {
		if !bytes.Equal(a[n], b[n]) {
			t.Errorf("%s: %s differs", what, n)
		}
	}
}

// TestDeterministic generates twice from the same spec, and once from a
// copy whose keys are in another order (JSON sorts them): same bytes.
func TestDeterministic(t *testing.T) {
	spec := filepath.Join(testenv.RepoRoot(t), "examples", "petstore", "openapi.yaml")
	first := generateFrom(t, spec)
	sameFiles(t, first, generateFrom(t, spec), "second run")

	data, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := yaml.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	reordered, err := json.MarshalIndent(tree, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(reordered, data) {
		t.Fatal("the reordered copy is identical; the test proves nothing")
	}
	copyPath := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(copyPath, reordered, 0o644); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, first, generateFrom(t, copyPath), "key-reordered copy")
}

// TestConcurrentGenerations runs generations in parallel (meaningful
// under -race): Generate keeps no package-level state.
func TestConcurrentGenerations(t *testing.T) {
	spec := filepath.Join(testenv.RepoRoot(t), "examples", "petstore", "openapi.yaml")
	want := generateFrom(t, spec)
	var wg sync.WaitGroup
	results := make([]map[string][]byte, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = generateFrom(t, spec)
		}()
	}
	wg.Wait()
	for _, r := range results {
		sameFiles(t, want, r, "parallel run")
	}
}

// TestDeterministicLargeUnions generates the unbounded default mapping of
// a corpus spec with many shared unions (OpenAI's) three times: the
// schema compression rewrites shared definitions as it walks them, so a
// walk in map order once gave different notes from run to run.
func TestDeterministicLargeUnions(t *testing.T) {
	spec := filepath.Join(testenv.CorpusDir(t), "openai-3.1.yaml")
	doc, problems := load.Load(context.Background(), spec, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	cfg := generator.Config{Name: "openai", ImportPath: "example.com/openai", Source: "openapi.yaml", NoCallTests: true,
		Bounds: mapping.Bounds{Tools: -1, ListTokens: -1}}
	var first map[string][]byte
	for i := range 3 {
		res, more := generator.Generate(doc, cfg)
		if more.HasErrors() {
			t.Fatal(more.Errors())
		}
		if i == 0 {
			first = res.Files
			continue
		}
		sameFiles(t, first, res.Files, "openai default mapping, run "+string(rune('1'+i)))
	}
}
