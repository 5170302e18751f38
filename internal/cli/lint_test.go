package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLintText(t *testing.T) {
	code, stdout, stderr := run(t, "lint", "--spec", spec(t, "features"), "--name", "shop")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"[description-when-to-use]", "\tfix: ", "shop: 5 tools, tools/list ≈ "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if code, _, _ := run(t, "lint", "--spec", spec(t, "features"), "--strict"); code != 1 {
		t.Errorf("--strict with warnings: exit %d, want 1", code)
	}
	if code, _, _ := run(t, "lint", "--spec", spec(t, "features"), "--format", "xml"); code != 2 {
		t.Errorf("--format xml: exit %d, want 2", code)
	}
	if code, _, _ := run(t, "lint"); code != 2 {
		t.Errorf("no --spec: exit %d, want 2", code)
	}
	if code, _, _ := run(t, "lint", "--spec", spec(t, "bad-refs")); code != 1 {
		t.Errorf("bad spec: exit %d, want 1", code)
	}
}

func TestLintJSON(t *testing.T) {
	code, stdout, stderr := run(t, "lint", "--spec", spec(t, "features"), "--name", "shop", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Version    int            `json:"version"`
		Server     string         `json:"server"`
		Tools      int            `json:"tools"`
		ListTokens int            `json:"listTokens"`
		Counts     map[string]int `json:"counts"`
		Findings   []struct {
			Rule, Severity, Tool, Param, Message, Fix string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if rep.Version != 1 || rep.Server != "shop" || rep.Tools != 5 || rep.ListTokens == 0 || len(rep.Findings) == 0 {
		t.Errorf("report: %+v", rep)
	}
	for _, sev := range []string{"error", "warning", "info"} {
		if _, ok := rep.Counts[sev]; !ok {
			t.Errorf("counts lack %s", sev)
		}
	}
	for _, f := range rep.Findings {
		if f.Rule == "" || f.Severity == "" || f.Message == "" || f.Fix == "" {
			t.Errorf("incomplete finding %+v", f)
		}
	}
}

func TestGenerateVerboseAndLintSummary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop")
	code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", out, "--name", "shop", "-v", "--no-call-tests")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"oa2mcp: load ", "oa2mcp: generate ", "oa2mcp: write ", "oa2mcp: total ", "lint: ", "warning(s)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "\x1b[") {
		t.Error("colour escape codes written to a non-terminal")
	}
	for _, f := range []string{"oa2mcp_calls_test.go", "testdata/oa2mcp_calls.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err == nil {
			t.Errorf("--no-call-tests still wrote %s", f)
		}
	}
	for _, f := range []string{"README.md", ".mcp.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

func TestHandWrittenReadmeKept(t *testing.T) {
	out := t.TempDir()
	readme := filepath.Join(out, "README.md")
	os.WriteFile(readme, []byte("# my service\n"), 0o644)
	code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", out, "--name", "shop")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if data, _ := os.ReadFile(readme); string(data) != "# my service\n" {
		t.Errorf("hand-written README.md was overwritten:\n%s", data)
	}
	if !strings.Contains(stderr, "README.md: left alone") {
		t.Errorf("stderr does not mention the kept README.md:\n%s", stderr)
	}
	if code, stdout, _ := run(t, "generate", "--spec", spec(t, "features"), "--out", out, "--name", "shop", "--check"); code != 0 {
		t.Errorf("--check after generate: exit %d\n%s", code, stdout)
	}
}
