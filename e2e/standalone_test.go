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

// TestStandaloneModule generates into a folder outside any Go module: the
// generated go.mod must let `go mod tidy && go build ./...` succeed.
func TestStandaloneModule(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop")
	spec := filepath.Join(testenv.RepoRoot(t), "testdata", "features", "openapi.yaml")
	var stdout, stderr strings.Builder
	if code := cli.Run([]string{"generate", "--spec", spec, "--out", out, "--name", "shop"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr.String())
	}
	for _, args := range [][]string{{"mod", "tidy"}, {"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = out
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "shop")); err == nil {
		t.Log("built binary in module root")
	}
}
