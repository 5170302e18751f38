package runtime

import (
	"os/exec"
	"strings"
	"testing"
)

// TestVersionGuards builds the guards of code generated for an older and
// a newer contract than this runtime serves: each must fail to compile,
// on the one line whose comment says which side to upgrade, and only
// there. (Code of the current version compiles: every golden case and
// example does.)
func TestVersionGuards(t *testing.T) {
	for _, c := range []struct{ dir, line string }{
		{"./testdata/v1guard", "guard.go:14:"}, // "regenerate it with a newer oa2mcp"
		{"./testdata/v3guard", "guard.go:11:"}, // "the runtime is older than this code"
	} {
		out, err := exec.Command("go", "build", "-o", "/dev/null", c.dir).CombinedOutput()
		text := string(out)
		if err == nil {
			t.Errorf("%s compiled; want the guard to refuse it", c.dir)
			continue
		}
		if !strings.Contains(text, c.line) || !strings.Contains(text, "overflows") || strings.Count(text, "overflows") != 1 {
			t.Errorf("%s: want one overflow error at %s, got:\n%s", c.dir, c.line, text)
		}
	}
}
