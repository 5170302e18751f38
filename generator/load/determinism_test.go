package load

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/goccy/go-yaml"
)

func TestDeterministic(t *testing.T) {
	for _, f := range []string{corpus(t, "stripe-2018-3.0.yaml"), corpus(t, "go-admin-2.0.json")} {
		a, pa := loadOK(t, f)
		b, pb := loadOK(t, f)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(pa, pb) {
			t.Errorf("%s: two loads differ", f)
		}
	}
}

// TestReorderedCopy loads a spec and a copy with every mapping's keys in
// another order (YAML as written vs JSON with sorted keys); apart from
// positions the results must be equal.
func TestReorderedCopy(t *testing.T) {
	for _, src := range []string{"testdata/fixes.yaml", corpus(t, "oai-petstore-expanded-3.0.yaml"), corpus(t, "swagger-petstore-3.0.yaml")} {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := yaml.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		js, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		copyPath := filepath.Join(t.TempDir(), "copy.json")
		if err := os.WriteFile(copyPath, js, 0o644); err != nil {
			t.Fatal(err)
		}
		a, _ := loadOK(t, src)
		b, _ := loadOK(t, copyPath)
		stripPositions(a)
		stripPositions(b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: reordered copy loads differently", src)
		}
	}
}

func stripPositions(d *Document) {
	d.File = ""
	for _, o := range d.Operations {
		o.Pos = Position{}
		for _, p := range o.Parameters {
			p.Pos = Position{}
		}
		if o.RequestBody != nil {
			o.RequestBody.Pos = Position{}
		}
	}
}
