package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestPositionsMatchOrigins checks that the positions read from the raw
// text (positions3.go) are the ones kin-openapi's origin tracking gives,
// which Load used before it stopped paying for origins: operation keys,
// inline and $ref'd parameters (flow mappings, other files, whole files
// starting with comments), request bodies, path items $ref'd to another
// file, CRLF line ends and JSON.
func TestPositionsMatchOrigins(t *testing.T) {
	specs := []string{
		"testdata/fixes.yaml",
		"testdata/flow/openapi.yaml",
		crlfCopy(t, "testdata/flow/openapi.yaml"),
		corpus(t, "swagger-petstore-3.0.yaml"),
		corpus(t, "discourse-3.1.json"),
		corpus(t, "matrix-cs-3.1/api/client-server/key_backup.yaml"),
	}
	for _, spec := range specs {
		t.Run(filepath.Base(filepath.Dir(spec))+"/"+filepath.Base(spec), func(t *testing.T) {
			d, _ := loadOK(t, spec)
			want := originPositions(t, spec)
			got := map[string]string{}
			for _, o := range d.Operations {
				got[o.Method+" "+o.RawPath] = posText(o.Pos)
				for _, p := range o.Parameters {
					got[o.Method+" "+o.RawPath+" "+p.In+":"+p.Name] = posText(p.Pos)
				}
				if o.RequestBody != nil {
					got[o.Method+" "+o.RawPath+" body"] = posText(o.RequestBody.Pos)
				}
			}
			if !reflect.DeepEqual(got, want) {
				for k, w := range want {
					if got[k] != w {
						t.Errorf("%s: got %s, want %s", k, got[k], w)
					}
				}
				t.Fatalf("%d positions, want %d", len(got), len(want))
			}
		})
	}
}

// crlfCopy writes a copy of the flow spec (and the files it refers to)
// with CRLF line ends.
func crlfCopy(t *testing.T, spec string) string {
	dir := t.TempDir()
	for _, name := range []string{"openapi.yaml", "params.yaml", "whole.yaml", "items.yaml"} {
		b := readFile(t, filepath.Join(filepath.Dir(spec), name))
		writeFile(t, filepath.Join(dir, name), []byte(crlf(string(b))))
	}
	return filepath.Join(dir, "openapi.yaml")
}

// originPositions loads spec with kin-openapi's origins on and lists
// where they place each operation, parameter and request body, the way
// Load did with origins (declared path parameters of the operation win
// over those of the path item; the $ref'd value's origin comes first).
func originPositions(t *testing.T, spec string) map[string]string {
	kl := openapi3.NewLoader()
	kl.IncludeOrigin = true
	kl.IsExternalRefsAllowed = true
	doc, err := kl.LoadFromFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for raw, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + raw
			out[key] = locText(op.Origin)
			seen := map[string]bool{}
			for _, list := range []openapi3.Parameters{op.Parameters, item.Parameters} {
				for _, p := range list {
					name := p.Value.In + ":" + p.Value.Name
					if seen[name] || p.Value.In == "path" && !templateHas(raw, p.Value.Name) {
						continue
					}
					seen[name] = true
					if out[key+" "+name] = locText(p.Value.Origin); out[key+" "+name] == "" {
						out[key+" "+name] = locText(p.Origin)
					}
				}
			}
			if op.RequestBody != nil {
				out[key+" body"] = locText(op.RequestBody.Value.Origin)
			}
		}
	}
	return out
}

func templateHas(path, name string) bool {
	for _, m := range templateVarRe().FindAllStringSubmatch(path, -1) {
		if m[1] == name {
			return true
		}
	}
	return false
}

func locText(o *openapi3.Origin) string {
	if o == nil || o.Key == nil {
		return ""
	}
	return fmt.Sprintf("%s:%d:%d", filepath.Base(o.Key.File), o.Key.Line, o.Key.Column)
}

func posText(p Position) string {
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.File), p.Line, p.Column)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
