package testenv

// This file is kept byte for byte in internal/testenv (root module) and
// runtime/internal/testenv (runtime module, which cannot import the
// root module): TestDataLocatorIsShared compares the two.

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusDir returns the public spec corpus: $OA2MCP_CORPUS, else
// ../shared/corpus beside the repository. A missing corpus fails the test
// rather than skipping it, so CI can never pass without it.
func CorpusDir(t testing.TB) string {
	t.Helper()
	return dataDir(t, "OA2MCP_CORPUS", "corpus", "README.md",
		"the public spec corpus (scripts/fetch-corpus.sh DIR fetches it)")
}

// JSONSchemaSuiteDir returns the JSON Schema Test Suite:
// $OA2MCP_JSONSCHEMA_SUITE, else ../shared/jsonschema-suite beside the
// repository; missing, it fails the test.
func JSONSchemaSuiteDir(t testing.TB) string {
	t.Helper()
	return dataDir(t, "OA2MCP_JSONSCHEMA_SUITE", "jsonschema-suite", filepath.Join("tests", "draft2020-12"),
		"a checkout of github.com/json-schema-org/JSON-Schema-Test-Suite")
}

// PythonClientsDir returns the Python client libraries' sources the
// client compatibility suite runs: $OA2MCP_PYTHON_CLIENTS, else
// ../shared/clients/python beside the repository; missing, it fails the
// test.
func PythonClientsDir(t testing.TB) string {
	t.Helper()
	return dataDir(t, "OA2MCP_PYTHON_CLIENTS", filepath.Join("clients", "python"), "README.md",
		"the Python client sources (see docs/external-clients.md)")
}

// dataDir is $env, else ../shared/name beside the repository root (the
// folder holding go.work); it fails t, saying what to set, unless marker
// is there.
func dataDir(t testing.TB, env, name, marker, what string) string {
	t.Helper()
	dir := os.Getenv(env)
	where := "$" + env + "=" + dir
	if dir == "" {
		dir = filepath.Join(WorkspaceRoot(t), "..", "shared", name)
		where = "$" + env + " is not set, and the default " + dir
	}
	if _, err := os.Stat(filepath.Join(dir, marker)); err != nil {
		t.Fatalf("test data not found: %s has no %s; set %s to the folder of %s", where, marker, env, what)
	}
	return dir
}

// WorkspaceRoot is the nearest folder upwards holding go.work: the
// repository's root, from any of its modules.
func WorkspaceRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("test data: the repository root (the folder holding go.work) is not above the working directory")
		}
		dir = parent
	}
}
