package write

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestPlanAndApply(t *testing.T) {
	dir := t.TempDir()
	gen := Header + "\npackage x\n"
	writeFile(t, filepath.Join(dir, "oa2mcp_tools.go"), gen)             // unchanged
	writeFile(t, filepath.Join(dir, "oa2mcp_tools_2.go"), gen)           // stale, owned
	writeFile(t, filepath.Join(dir, "oa2mcp_notours.go"), "package x\n") // no header: kept
	writeFile(t, filepath.Join(dir, "handwritten.go"), gen)              // wrong name: kept
	writeFile(t, filepath.Join(dir, "oa2mcp_server.go"), gen+"// old\n") // changed
	writeFile(t, filepath.Join(dir, "cmd", "old", "main.go"), gen)       // stale main
	cases := `{"x-oa2mcp-generated": "x"}`
	writeFile(t, filepath.Join(dir, "testdata", "oa2mcp_old.json"), cases) // stale case file
	writeFile(t, filepath.Join(dir, "testdata", "oa2mcp_mine.json"), "{}") // no marker: kept
	files := map[string][]byte{
		"oa2mcp_tools.go":  []byte(gen),
		"oa2mcp_server.go": []byte(gen),
		"cmd/new/main.go":  []byte(gen),
	}
	changes, err := Plan(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range changes {
		got = append(got, c.Kind.String()+" "+c.Path)
	}
	want := "create cmd/new/main.go, delete cmd/old/main.go, update oa2mcp_server.go, delete oa2mcp_tools_2.go, delete testdata/oa2mcp_old.json"
	if strings.Join(got, ", ") != want {
		t.Fatalf("plan = %s\nwant   %s", strings.Join(got, ", "), want)
	}
	if err := Apply(dir, changes); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []string{"oa2mcp_notours.go", "handwritten.go", "cmd/new/main.go", "testdata/oa2mcp_mine.json"} {
		if _, err := os.Stat(filepath.Join(dir, keep)); err != nil {
			t.Errorf("%s should exist: %v", keep, err)
		}
	}
	for _, gone := range []string{"oa2mcp_tools_2.go", "cmd/old"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Errorf("%s should be gone", gone)
		}
	}
	if again, _ := Plan(dir, files); len(again) != 0 {
		t.Errorf("second plan not empty: %v", again)
	}
}

func TestUnifiedDiff(t *testing.T) {
	c := Change{Path: "f.go", Kind: Update, Old: []byte("a\nb\nc\nd\n"), New: []byte("a\nB\nc\nd\ne\n")}
	got := UnifiedDiff("out/f.go", c)
	want := "--- a/out/f.go\n+++ b/out/f.go\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n"
	if got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	created := UnifiedDiff("x", Change{Kind: Create, New: []byte("x\n")})
	if !strings.HasPrefix(created, "--- /dev/null\n+++ b/x\n@@ -0,0 +1,1 @@\n+x\n") {
		t.Fatalf("create diff:\n%s", created)
	}
}

func TestOwnershipOfDocs(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "README.md"), "# my service\n")                             // hand-written: kept
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers":{},"x-oa2mcp-generated":"x"}`) // generated: updated
	files := map[string][]byte{
		"README.md": []byte(ReadmeHeader + "\nnew\n"),
		".mcp.json": []byte(`{"mcpServers":{"a":{}},"x-oa2mcp-generated":"x"}`),
	}
	changes, un, err := PlanUnowned(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Path != ".mcp.json" || changes[0].Kind != Update {
		t.Fatalf("plan: %+v", changes)
	}
	if strings.Join(un, ",") != "README.md" {
		t.Errorf("unowned = %v", un)
	}
	// Stale generated docs are deleted, hand-written ones never.
	writeFile(t, filepath.Join(dir, "README.md"), ReadmeHeader+"\nold\n")
	changes, _ = Plan(dir, map[string][]byte{})
	var got []string
	for _, c := range changes {
		got = append(got, c.Kind.String()+" "+c.Path)
	}
	if strings.Join(got, ", ") != "delete .mcp.json, delete README.md" {
		t.Errorf("stale plan: %v", got)
	}
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers":{}}`)
	writeFile(t, filepath.Join(dir, "README.md"), "# mine\n")
	if changes, _ := Plan(dir, map[string][]byte{}); len(changes) != 0 {
		t.Errorf("hand-written docs would change: %+v", changes)
	}
}

func TestOwned(t *testing.T) {
	for _, c := range []struct {
		path, data string
		want       bool
	}{
		{"oa2mcp_x.go", Header + "\npackage x\n", true},
		{"cmd/a/main.go", "package main\n", false},
		{"README.md", ReadmeHeader + "\n# x\n", true},
		{"README.md", "# x\n" + ReadmeHeader + "\n", false},
		{".mcp.json", `{"x-oa2mcp-generated": true}`, true},
		{".mcp.json", `{"mcpServers": {}}`, false},
		{".mcp.json", `not json`, false},
		{"testdata/oa2mcp_calls.json", `{"x-oa2mcp-generated": "x", "cases": []}`, true},
		{"testdata/oa2mcp_calls.json", `{"cases": []}`, false},
		{"testdata/mine.json", `{"x-oa2mcp-generated": "x"}`, false},
		{"go.mod", "module x\n", false},
	} {
		if got := Owned(c.path, []byte(c.data)); got != c.want {
			t.Errorf("Owned(%s, %q) = %v", c.path, c.data, got)
		}
	}
}

// TestApplyLeavesNoTemporaryFiles: written files get their contents and
// mode 0644 less the umask, and no temporary file stays behind.
func TestApplyLeavesNoTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{"oa2mcp_tools.go": []byte(Header + "\npackage x\n"), "cmd/x/main.go": []byte(Header + "\npackage main\n")}
	changes, err := Plan(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(dir, changes); err != nil {
		t.Fatal(err)
	}
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	for name, want := range files {
		full := filepath.Join(dir, filepath.FromSlash(name))
		got, err := os.ReadFile(full)
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: %q, %v", name, got, err)
		}
		if fi, err := os.Stat(full); err != nil || fi.Mode().Perm() != 0o644&^os.FileMode(umask) {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode().Perm(), 0o644&^os.FileMode(umask))
		}
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".oa2mcp-") {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
