package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiscoverFlagAndKey: --discover, and discover: true in the config
// file, generate a discovery server; without either, one tool per
// operation.
func TestDiscoverFlagAndKey(t *testing.T) {
	dir := t.TempDir()
	specCopy, _ := os.ReadFile(spec(t, "features"))
	os.WriteFile(filepath.Join(dir, "api.yaml"), specCopy, 0o644)
	cfg := filepath.Join(dir, "oa2mcp.yaml")
	os.WriteFile(cfg, []byte("version: 1\nspec: api.yaml\nout: viakey\nname: shop\ndiscover: true\n"), 0o644)
	for _, tc := range []struct {
		what string
		args []string
		out  string
		want bool
	}{
		{"flag", []string{"generate", "--spec", filepath.Join(dir, "api.yaml"), "--out", filepath.Join(dir, "viaflag"), "--name", "shop", "--discover"}, "viaflag", true},
		{"config key", []string{"generate", "-c", cfg}, "viakey", true},
		{"neither", []string{"generate", "--spec", filepath.Join(dir, "api.yaml"), "--out", filepath.Join(dir, "plain"), "--name", "shop"}, "plain", false},
	} {
		code, stdout, stderr := run(t, tc.args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.what, code, stderr)
		}
		_, err := os.Stat(filepath.Join(dir, tc.out, "oa2mcp_index.go"))
		if (err == nil) != tc.want || strings.Contains(stdout, "operations for discovery") != tc.want {
			t.Errorf("%s: index file %v, stdout %q; want discovery %v", tc.what, err, stdout, tc.want)
		}
		if tc.want && strings.Contains(stderr, "no tools") {
			t.Errorf("%s: warns about a server without tools: %s", tc.what, stderr)
		}
	}
}
