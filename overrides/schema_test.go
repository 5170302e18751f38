package overrides

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite schema.json from the Go types")

// TestSchemaInSync derives the JSON Schema of the override file from the
// Go types (with their doc comments as descriptions) and compares it with
// the published overrides/schema.json.
func TestSchemaInSync(t *testing.T) {
	docs := fieldDocs(t, "overrides.go")
	g := &schemaGen{docs: docs, defs: map[string]any{}}
	root := g.object(reflect.TypeOf(File{}))
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = "https://github.com/oa2mcp/oa2mcp/overrides/schema.json"
	root["title"] = "oa2mcp override file"
	root["required"] = []string{"version"}
	root["$defs"] = g.defs
	got, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if *update {
		if err := os.WriteFile("schema.json", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("schema.json")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("overrides/schema.json is out of date with the Go types; run go test ./overrides -update (%v)", err)
	}
}

type schemaGen struct {
	docs map[string]string // "Type.Field" → doc comment
	defs map[string]any
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		s := g.schema(f.Type)
		if d := g.docs[t.Name()+"."+f.Name]; d != "" {
			s["description"] = d
		}
		props[name] = s
	}
	return map[string]any{"type": "object", "additionalProperties": false, "properties": props}
}

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		return g.schema(t.Elem())
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case reflect.Struct:
		if _, ok := g.defs[t.Name()]; !ok {
			g.defs[t.Name()] = true // placeholder against recursion
			g.defs[t.Name()] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + t.Name()}
	}
	return map[string]any{}
}

// fieldDocs reads the doc comments of struct fields from a source file.
func fieldDocs(t *testing.T, file string) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			return true
		}
		var pending string
		for _, fld := range st.Fields.List {
			doc := strings.Join(strings.Fields(fld.Doc.Text()), " ")
			if doc == "" {
				doc = pending
			}
			for _, name := range fld.Names {
				out[ts.Name.Name+"."+name.Name] = doc
			}
			pending = ""
		}
		return true
	})
	return out
}
