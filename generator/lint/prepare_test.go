package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPrepareCompilesEveryPattern: every package-level sync.OnceValue of
// a *regexp.Regexp in the package's source is in patterns, so Prepare
// compiles them all and a pattern added later cannot be missed.
func TestPrepareCompilesEveryPattern(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var declared, listed []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if isRegexpOnce(v) {
						declared = append(declared, vs.Names[i].Name)
					}
					if vs.Names[i].Name == "patterns" {
						for _, e := range v.(*ast.CompositeLit).Elts {
							listed = append(listed, e.(*ast.Ident).Name)
						}
					}
				}
			}
		}
	}
	if len(declared) == 0 {
		t.Fatal("found no sync.OnceValue patterns: the test no longer reads the source as it should")
	}
	for _, name := range declared {
		if !slices.Contains(listed, name) {
			t.Errorf("pattern %s is not in patterns: Prepare would leave it to be compiled on first use", name)
		}
	}
	Prepare() // every pattern compiles
}

// isRegexpOnce reports sync.OnceValue(func() *regexp.Regexp { ... }).
func isRegexpOnce(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "OnceValue" {
		return false
	}
	fn, ok := call.Args[0].(*ast.FuncLit)
	if !ok || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
		return false
	}
	star, ok := fn.Type.Results.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	rs, ok := star.X.(*ast.SelectorExpr)
	return ok && rs.Sel.Name == "Regexp"
}
