package generator_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// goldenCase is one folder under testdata/: openapi.yaml (or .json) in,
// want/ (generated files) or want.err (expected problems) out.
type goldenCase struct {
	name, dir, spec string
}

func goldenCases(t *testing.T) []goldenCase {
	root := filepath.Join(testenv.RepoRoot(t), "testdata")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		specs, _ := filepath.Glob(filepath.Join(dir, "openapi.*"))
		if len(specs) == 0 && !exists(filepath.Join(dir, "want")) && !exists(filepath.Join(dir, "want.err")) {
			continue // test data of another kind (e.g. the discovery evaluation set)
		}
		if len(specs) != 1 {
			t.Fatalf("%s: want exactly one openapi.* file, found %d", dir, len(specs))
		}
		cases = append(cases, goldenCase{name: e.Name(), dir: dir, spec: specs[0]})
	}
	if len(cases) == 0 {
		t.Fatal("no golden cases under testdata/")
	}
	return cases
}

// generateCase runs the pipeline the way the CLI does, with paths
// relative to the repository root so messages are stable.
func generateCase(t *testing.T, c goldenCase) (*generator.Result, diag.List) {
	root := testenv.RepoRoot(t)
	rel, _ := filepath.Rel(root, c.spec)
	t.Chdir(root)
	doc, problems := load.Load(context.Background(), filepath.ToSlash(rel), load.Options{})
	if problems.HasErrors() {
		return nil, problems
	}
	cfg := generator.Config{
		Name:       strings.ReplaceAll(c.name, "-", ""),
		ImportPath: "github.com/oa2mcp/oa2mcp/testdata/" + c.name + "/want",
		Source:     "../" + filepath.Base(c.spec),
	}
	// As the CLI does: an override file wins, else the spec's x-oa2mcp-*
	// extensions.
	ovPath := filepath.Join("testdata", c.name, "overrides.yaml")
	var ov *overrides.File
	var ovProblems diag.List
	if _, err := os.Stat(ovPath); err == nil {
		ov, ovProblems = overrides.ReadFile(ovPath)
	} else {
		ov, ovProblems = overrides.FromExtensions(doc.File, doc.Extensions, diag.Position{File: doc.File})
	}
	problems = append(problems, ovProblems...)
	cfg.Overrides = ov
	if ovProblems.HasErrors() {
		return nil, append(problems, generator.RestProblems(doc, cfg)...)
	}
	res, more := generator.Generate(doc, cfg)
	return res, append(problems, more...)
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			res, problems := generateCase(t, c)
			problems.Sort()
			errFile := filepath.Join(c.dir, "want.err")
			if res == nil {
				compareFile(t, errFile, []byte(problems.Error()+"\n"))
				return
			}
			if _, err := os.Stat(errFile); err == nil && !*update {
				t.Fatalf("want.err exists but generation succeeded:\n%s", problems.Error())
			}
			compareDir(t, filepath.Join(c.dir, "want"), res.Files)
		})
	}
}

// TestGoldenCompiles type-checks every golden output against the runtime
// package: "./..." patterns skip testdata, so nothing else would notice a
// golden that does not compile.
func TestGoldenCompiles(t *testing.T) {
	var patterns []string
	for _, c := range goldenCases(t) {
		want := filepath.Join(c.dir, "want")
		if _, err := os.Stat(want); err != nil {
			continue
		}
		patterns = append(patterns, want, filepath.Join(want, "cmd", "..."))
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax, Dir: testenv.RepoRoot(t), Tests: true}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < len(patterns) {
		t.Fatalf("loaded %d packages for %d patterns", len(pkgs), len(patterns))
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("%s: %v", p.PkgPath, e)
		}
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func compareFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./generator -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the generated output (run go test ./generator -update and review the diff):\n--- got\n%s", path, got)
	}
}

func compareDir(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	if *update {
		os.RemoveAll(dir)
	}
	var names []string
	for name := range files {
		names = append(names, name)
		path := filepath.Join(dir, filepath.FromSlash(name))
		if *update {
			os.MkdirAll(filepath.Dir(path), 0o755)
		}
		compareFile(t, path, files[name])
	}
	sort.Strings(names)
	var onDisk []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(onDisk)
	if strings.Join(onDisk, "\n") != strings.Join(names, "\n") {
		t.Errorf("golden files %v, generated %v", onDisk, names)
	}
}
