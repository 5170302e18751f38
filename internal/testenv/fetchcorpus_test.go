package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFetchCorpusVerify runs scripts/fetch-corpus.sh --verify (the check
// the fetch ends with; this machine cannot reach GitHub) on the corpus the
// tests read, which must match scripts/corpus.sha256, and on a copy with
// one file changed and one removed, which must fail naming both.
func TestFetchCorpusVerify(t *testing.T) {
	root := RepoRoot(t)
	script := filepath.Join(root, "scripts", "fetch-corpus.sh")
	corpus := CorpusDir(t)
	if out, err := exec.Command(script, "--verify", corpus).CombinedOutput(); err != nil {
		t.Fatalf("the corpus does not match scripts/corpus.sha256: %v\n%s", err, out)
	}
	copyDir := t.TempDir()
	if out, err := exec.Command("cp", "-r", corpus+"/.", copyDir).CombinedOutput(); err != nil {
		t.Fatalf("copying the corpus: %v\n%s", err, out)
	}
	f, err := os.OpenFile(filepath.Join(copyDir, "box-3.0.json"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(" ")
	f.Close()
	if err := os.Remove(filepath.Join(copyDir, "matrix-cs-3.1", "api", "client-server", "sync.yaml")); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(script, "--verify", copyDir).CombinedOutput()
	if err == nil {
		t.Fatalf("--verify passed a corpus with a changed and a missing file:\n%s", out)
	}
	for _, want := range []string{"changed: box-3.0.json", "missing: matrix-cs-3.1/api/client-server/sync.yaml", "(2 files)"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--verify output lacks %q:\n%s", want, out)
		}
	}
}
