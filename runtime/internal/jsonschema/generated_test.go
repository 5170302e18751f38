package jsonschema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testenv"
)

// schemaFields are the Tool and Ask fields that hold JSON Schema text.
var schemaFields = map[string]bool{"InputSchema": true, "OutputSchema": true, "Schema": true}

// TestGeneratedSchemasCompile compiles, strictly, every schema the
// generator emits today (the golden cases and the committed examples):
// a keyword the runtime refuses there would stop a generated server at
// start.
func TestGeneratedSchemasCompile(t *testing.T) {
	root := testenv.WorkspaceRoot(t)
	var files []string
	for _, pat := range []string{"testdata/*/want/*.go", "examples/*/oa2mcp_tools*.go"} {
		m, _ := filepath.Glob(filepath.Join(root, pat))
		files = append(files, m...)
	}
	count := 0
	for _, path := range files {
		for _, s := range schemaLiterals(t, path) {
			count++
			if _, err := Compile(s.text); err != nil {
				rel, _ := filepath.Rel(root, path)
				t.Errorf("%s:%d: %s: %v", rel, s.line, s.field, err)
			}
		}
	}
	if count < 20 {
		t.Fatalf("found only %d schemas in %d generated files", count, len(files))
	}
	t.Logf("%d generated schemas compile", count)
}

type schemaLiteral struct {
	field, text string
	line        int
}

// schemaLiterals returns the string literals assigned to schema fields in
// a Go file.
func schemaLiterals(t *testing.T, path string) []schemaLiteral {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []schemaLiteral
	ast.Inspect(f, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		key, ok1 := kv.Key.(*ast.Ident)
		lit, ok2 := kv.Value.(*ast.BasicLit)
		if !ok1 || !ok2 || !schemaFields[key.Name] || lit.Kind != token.STRING {
			return true
		}
		text, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
		}
		out = append(out, schemaLiteral{field: key.Name, text: text, line: fset.Position(lit.Pos()).Line})
		return true
	})
	return out
}
