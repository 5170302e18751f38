package load

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"time"
)

// FuzzLoad checks that arbitrary bytes never make Load panic or hang.
func FuzzLoad(f *testing.F) {
	corpusDir := testenv.CorpusDir(f)
	for _, s := range []string{
		"testdata/fixes.yaml", "testdata/dangling.yaml", "testdata/syntax.yaml",
		filepath.Join(corpusDir, "oai-petstore-3.0.yaml"),
		filepath.Join(corpusDir, "oai-petstore-2.0.json"),
		filepath.Join(corpusDir, "oai-tictactoe-3.1.yaml"),
		filepath.Join(corpusDir, "swagger-petstore-3.1.yaml"),
	} {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, filepath.Ext(s) == ".json")
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		name := "spec.yaml"
		if asJSON {
			name = "spec.json"
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done := make(chan struct{})
		go func() {
			defer close(done)
			doc, probs := Load(ctx, p, Options{})
			if doc == nil && !probs.HasErrors() {
				t.Error("nil document without an error")
			}
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatal("Load hung")
		}
	})
}
