package runtime

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// exportsFile lists every exported name of this package with its layer
// and its user; see its header.
const exportsFile = "testdata/exports.txt"

// exportLayers are the layers an export may belong to.
// A rule the generator shares with the runtime has no layer here: it
// lives in runtime/internal and reaches the generator through the door.
var exportLayers = []string{"user", "contract", "part-of"}

// listedExport is one line of exportsFile.
type listedExport struct {
	name, layer, user string
	line              int
}

// TestExportsListed fails when this package gains an export the list
// does not name (each export is a promise to users: say who needs it, or
// put it behind oa2mcpimpl or runtime/internal), when the list names one
// that no longer exists, and when a listed user file does not name it.
func TestExportsListed(t *testing.T) {
	exported := packageExports(t, ".")
	listed := readExportList(t)
	root := testenv.WorkspaceRoot(t)
	seen := map[string]bool{}
	for _, e := range listed {
		seen[e.name] = true
		if !exported[e.name] {
			t.Errorf("%s:%d: %s is listed but package runtime does not export it; remove the line", exportsFile, e.line, e.name)
			continue
		}
		checkListedUser(t, root, e, listed)
	}
	for _, name := range textkit.SortedKeys(exported) {
		if !seen[name] {
			t.Errorf("%s: package runtime exports %s, which the list does not name; add a line \"%s<TAB>LAYER<TAB>USER\" naming a user-side caller, or move it to oa2mcpimpl or runtime/internal", exportsFile, name, name)
		}
	}
	t.Logf("package runtime exports %d names", len(exported))
}

// checkListedUser checks one line: a known layer, and a user that names
// the export (a file for user and contract; a listed export
// for part-of).
func checkListedUser(t *testing.T, root string, e listedExport, listed []listedExport) {
	t.Helper()
	if !slices.Contains(exportLayers, e.layer) {
		t.Errorf("%s:%d: %s: unknown layer %q; use one of %s", exportsFile, e.line, e.name, e.layer, strings.Join(exportLayers, ", "))
		return
	}
	if e.layer == "part-of" {
		owner, _, _ := strings.Cut(e.user, " ")
		if owner == e.name || !slices.ContainsFunc(listed, func(x listedExport) bool { return x.name == owner }) {
			t.Errorf("%s:%d: %s is part of %q, which is not a listed export", exportsFile, e.line, e.name, owner)
		}
		return
	}
	if e.layer == "user" && strings.HasPrefix(e.user, "generator/") {
		t.Errorf("%s:%d: %s: the user of a user-layer export must be user-side code or docs, not %s", exportsFile, e.line, e.name, e.user)
	}
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.user)))
	if err != nil {
		t.Errorf("%s:%d: %s: its user %s cannot be read: %v", exportsFile, e.line, e.name, e.user, err)
		return
	}
	if !regexp.MustCompile(`\b` + regexp.QuoteMeta(e.name) + `\b`).Match(data) {
		t.Errorf("%s:%d: %s: its user %s does not name it; list a file that does", exportsFile, e.line, e.name, e.user)
	}
}

// readExportList parses exportsFile: NAME, LAYER and USER separated by
// tabs; # starts a comment line.
func readExportList(t *testing.T) []listedExport {
	t.Helper()
	f, err := os.Open(exportsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []listedExport
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) != 3 || fields[2] == "" {
			t.Errorf("%s:%d: want NAME<TAB>LAYER<TAB>USER, got %q", exportsFile, n, line)
			continue
		}
		out = append(out, listedExport{name: fields[0], layer: fields[1], user: fields[2], line: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// packageExports returns the exported top-level names of the package in
// dir (functions, types, constants, variables; not methods or fields),
// tests excluded.
func packageExports(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, file := range parseDir(t, dir, 0) {
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					out[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							out[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								out[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return out
}

// parseDir parses the Go files of dir, tests excluded.
func parseDir(t *testing.T, dir string, mode parser.Mode) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, mode)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// TestEngineDoesNotImportUserLayer: the runtime is in layers, the user
// API (this package) on top, the door (oa2mcpimpl) beside it and the
// engine (runtime/internal/...) below. No engine package may import a
// runtime package outside runtime/internal: the engine never reaches back
// up into the user layer or the door.
func TestEngineDoesNotImportUserLayer(t *testing.T) {
	const module = "github.com/oa2mcp/oa2mcp/runtime"
	dirs, err := filepath.Glob(filepath.Join("internal", "*"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		for _, f := range parseDir(t, dir, parser.ImportsOnly) {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == module || strings.HasPrefix(path, module+"/") && !strings.HasPrefix(path, module+"/internal/") {
					t.Errorf("%s imports %s: the engine must not import the user layer or the door; move what it needs down into runtime/internal", dir, path)
				}
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no engine files found under internal/")
	}
}
