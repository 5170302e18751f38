// Package testenv finds what the tests need outside the module: the public
// spec corpus, the repository root and the go command.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the folder holding this module's go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && len(data) > 0 && isOurs(data) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testenv: repository root (go.mod of github.com/oa2mcp/oa2mcp) not found")
		}
		dir = parent
	}
}

func isOurs(gomod []byte) bool {
	const want = "module github.com/oa2mcp/oa2mcp\n"
	return len(gomod) >= len(want) && string(gomod[:len(want)]) == want
}

// CorpusDir returns the public spec corpus: $OA2MCP_CORPUS, or
// ../shared/corpus beside the repository. A missing corpus fails the test
// rather than skipping it, so CI can never pass without it.
func CorpusDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("OA2MCP_CORPUS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared", "corpus")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("spec corpus not found at %s (set OA2MCP_CORPUS): %v", dir, err)
	}
	return dir
}
