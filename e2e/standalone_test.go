//go:build e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/internal/cli"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// TestStandaloneModule generates into a folder outside any Go module,
// with --runtime-dir: the generated go.mod must let `go mod tidy && go
// build ./...` succeed, as the note and README.md tell users to run it,
// and the generated call cases must pass.
func TestStandaloneModule(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop")
	spec := filepath.Join(testenv.RepoRoot(t), "testdata", "features", "openapi.yaml")
	var stdout, stderr strings.Builder
	if code := cli.Run([]string{"generate", "--spec", spec, "--out", out, "--name", "shop", "--runtime-dir", testenv.RuntimeDir(t)}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	gomod, err := os.ReadFile(filepath.Join(out, "go.mod"))
	if err != nil || !strings.Contains(string(gomod), "replace github.com/oa2mcp/oa2mcp/runtime => ") {
		t.Fatalf("go.mod without the runtime replace directive: %v\n%s", err, gomod)
	}
	// The commands below are the ones users are told to run: the note and
	// the README's Run section both name go mod tidy before the build.
	if !strings.Contains(stderr.String(), "run go mod tidy there before the first build") {
		t.Errorf("the note for a new go.mod does not say to run go mod tidy:\n%s", stderr.String())
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	tidy, run := strings.Index(string(readme), "```sh\ngo mod tidy\n```"), strings.Index(string(readme), "go run ./cmd/shop")
	if err != nil || tidy < 0 || run < tidy {
		t.Errorf("README.md does not say to run go mod tidy before go run ./cmd/shop (%v)", err)
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "./..."}, {"vet", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = out
		// tidy may need test dependencies of the SDK: the module proxy.
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "shop")); err == nil {
		t.Log("built binary in module root")
	}
}
