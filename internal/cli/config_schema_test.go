package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

var updateSchema = flag.Bool("update", false, "rewrite docs/config.schema.json from fileConfig")

// TestConfigSchemaInSync keeps docs/config.schema.json, which oa2mcp.yaml
// files name for editor completion, in step with fileConfig.
func TestConfigSchemaInSync(t *testing.T) {
	typ := reflect.TypeOf(fileConfig{})
	props := map[string]any{}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		var s map[string]any
		switch f.Type.Kind() {
		case reflect.String:
			s = map[string]any{"type": "string"}
		case reflect.Bool:
			s = map[string]any{"type": "boolean"}
		case reflect.Int:
			s = map[string]any{"type": "integer"}
		case reflect.Slice:
			s = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
		default:
			t.Fatalf("field %s: add its kind to this test", f.Name)
		}
		props[name] = s
	}
	props["version"] = map[string]any{"const": 1}
	root := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "oa2mcp.yaml (generate settings)",
		"type": "object", "additionalProperties": false, "required": []string{"version"}, "properties": props,
	}
	got, _ := json.MarshalIndent(root, "", "  ")
	got = append(got, '\n')
	path := filepath.Join(testenv.RepoRoot(t), "docs", "config.schema.json")
	if *updateSchema {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(want, got) {
		t.Fatalf("docs/config.schema.json is out of date; run go test ./internal/cli -run TestConfigSchemaInSync -update (%v)", err)
	}
}
