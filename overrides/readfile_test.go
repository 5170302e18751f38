package overrides

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReadFileMissing: the message names the file once, then why.
func TestReadFileMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.yaml")
	_, problems := ReadFile(path)
	got := problems.Error()
	if want := path + ": cannot read the override file: no such file or directory; check the --overrides path"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestWrongTypeNamesTheKey: the example, `limit: many`, names
// its key and the type wanted, not Go's field and type.
func TestWrongTypeNamesTheKey(t *testing.T) {
	_, problems := Decode("o.yaml", []byte("version: 1\ntools:\n  - name: x\n    operation: y\n    output: {list: {limit: many}}\n"))
	got := problems.Error()
	if !strings.Contains(got, `o.yaml:5:28: tools[0].output.list.limit must be an integer, not the string "many"`) || strings.Contains(got, "Go struct") {
		t.Errorf("got %s", got)
	}
}
