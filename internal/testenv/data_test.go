package testenv

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDataLocatorIsShared: the runtime module's copy of the test data
// locator is this one, byte for byte.
func TestDataLocatorIsShared(t *testing.T) {
	root := RepoRoot(t)
	ours, err := os.ReadFile(filepath.Join(root, "internal", "testenv", "data.go"))
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := os.ReadFile(filepath.Join(root, "runtime", "internal", "testenv", "data.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ours, theirs) {
		t.Error("runtime/internal/testenv/data.go differs from internal/testenv/data.go: copy the one you changed over the other")
	}
}

// fatalRecorder is a testing.TB whose Fatalf records the message and
// ends the goroutine, as the real one does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalRecorder) Fatal(args ...any) { f.Fatalf("%s", fmt.Sprint(args...)) }

// failure runs find and returns its failure message, "" if none.
func failure(t *testing.T, find func(testing.TB) string) string {
	rec := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		find(rec)
	}()
	<-done
	return rec.msg
}

// TestDataDirsSayWhatToSet: each locator takes its variable, and a
// folder without the data fails with a message naming the variable.
func TestDataDirsSayWhatToSet(t *testing.T) {
	for _, c := range []struct {
		env, marker string
		find        func(testing.TB) string
	}{
		{"OA2MCP_CORPUS", "README.md", func(tb testing.TB) string { return CorpusDir(tb) }},
		{"OA2MCP_JSONSCHEMA_SUITE", filepath.Join("tests", "draft2020-12"), func(tb testing.TB) string { return JSONSchemaSuiteDir(tb) }},
	} {
		empty := t.TempDir()
		t.Setenv(c.env, empty)
		msg := failure(t, c.find)
		if !strings.Contains(msg, "set "+c.env+" to") || !strings.Contains(msg, empty) {
			t.Errorf("%s on an empty folder failed with %q, want the folder and what to set", c.env, msg)
		}
		full := t.TempDir()
		if err := os.MkdirAll(filepath.Join(full, c.marker), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Setenv(c.env, full)
		if msg := failure(t, func(tb testing.TB) string {
			if got := c.find(tb); got != full {
				tb.Fatalf("found %s, want %s", got, full)
			}
			return ""
		}); msg != "" {
			t.Errorf("%s set to a folder with the data: %s", c.env, msg)
		}
	}
}
