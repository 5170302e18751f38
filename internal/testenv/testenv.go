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

// PythonClientsDir returns the folder of the Python client libraries'
// sources the client compatibility suite runs ($OA2MCP_PYTHON_CLIENTS, else
// ../shared/clients/python beside the repository). Missing, it fails the
// test, like the corpus.
func PythonClientsDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("OA2MCP_PYTHON_CLIENTS")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared", "clients", "python")
	}
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Fatalf("Python client sources not found at %s (set OA2MCP_PYTHON_CLIENTS): %v", dir, err)
	}
	return dir
}

// RuntimeDir returns the runtime module's folder, runtime/ of this
// repository: what --runtime-dir names for servers generated outside it.
func RuntimeDir(t testing.TB) string {
	return filepath.Join(RepoRoot(t), "runtime")
}

// TempModule makes a Go module at a new temporary folder for generated
// code (WriteModule), with this repository's runtime.
func TempModule(t testing.TB, module string) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteModule(dir, module, RuntimeDir(t)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteModule writes go.mod and go.sum of a module for generated code
// into dir: it requires the runtime (and its optional modules), replaced
// by the copies in runtimeDir, with go.sum lines for their requirements,
// so `go build` needs no other go.sum edits. Run go commands there
// with GOWORK=off, or the repository's workspace claims the folder.
func WriteModule(dir, module, runtimeDir string) error {
	rt := runtimeDir
	gomod := "module " + module + "\n\ngo 1.26\n\nrequire (\n" +
		"\tgithub.com/modelcontextprotocol/go-sdk v1.8.0\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime v0.5.0\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/prommetrics v0.5.0\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/redisstore v0.5.0\n)\n\nreplace (\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime => " + rt + "\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/prommetrics => " + filepath.Join(rt, "prommetrics") + "\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/redisstore => " + filepath.Join(rt, "redisstore") + "\n)\n"
	var sum []byte
	for _, sub := range []string{"", "prommetrics", "redisstore"} {
		b, err := os.ReadFile(filepath.Join(rt, sub, "go.sum"))
		if err != nil {
			return err
		}
		sum = append(sum, b...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// GoEnv is the environment for go commands run in a TempModule: the
// repository's workspace off and go.mod completed as needed. Modules the
// generated code needs and this machine has not cached come through the
// module proxy the go command is configured with, so a machine with an
// empty module cache passes as well as one that ran the tests before.
func GoEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
}
