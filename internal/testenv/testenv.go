// Package testenv finds what the tests need outside the module: the public
// spec corpus, the repository root and the go command.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// NpmFile returns a file an npm package ships, by its path under
// node_modules ("@octokit/openapi/generated/api.github.com.json"), from
// .cache/node of the repository, where scripts/install-deps.sh installs
// the pinned packages and checks the files' sha256. A missing file fails
// the test rather than skipping it.
func NpmFile(t testing.TB, path string) string {
	t.Helper()
	file := filepath.Join(RepoRoot(t), ".cache", "node", "node_modules", filepath.FromSlash(path))
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("%s is missing: run scripts/install-deps.sh, which installs the npm package that ships it (%v)", file, err)
	}
	return file
}

// GoModFile returns a file a Go module ships, by its module path, version
// and path inside the module
// ("github.com/hashicorp/vault-client-go@v0.4.3/openapi.json"), from the
// go command's module cache, where scripts/install-deps.sh downloads the
// pinned modules from the module proxy and checks the files' sha256. A
// missing file fails the test rather than skipping it.
func GoModFile(t testing.TB, path string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	cache := strings.TrimSpace(string(out))
	if err != nil || cache == "" {
		t.Fatalf("testenv: go env GOMODCACHE: %v", err)
	}
	file := filepath.Join(cache, filepath.FromSlash(path))
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("%s is missing: run scripts/install-deps.sh, which downloads the Go module that ships it (%v)", file, err)
	}
	return file
}
