package overrides

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the override decoder: it must never
// panic, and a nil file always comes with at least one error.
func FuzzDecode(f *testing.F) {
	for _, p := range []string{"../examples/petstore/overrides.yaml", "../testdata/bad-overrides/overrides.yaml", "../examples/aftersales/overrides.yaml"} {
		if data, err := os.ReadFile(filepath.FromSlash(p)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("version: 1\ntools:\n  - name: x\n    steps:\n      - operation: a\n        args: {b: ${steps.}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, problems := Decode("fuzz.yaml", data)
		if file == nil && !problems.HasErrors() {
			t.Fatalf("no file and no error for %q", data)
		}
	})
}
