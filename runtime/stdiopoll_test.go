//go:build unix

package runtime

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// nonBlocking reports whether fd's file description is in non-blocking
// mode.
func nonBlocking(t *testing.T, f *os.File) bool {
	t.Helper()
	sc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := sc.Control(func(fd uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		flags = int(r)
		if e != 0 {
			ferr = e
		}
	}); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	return flags&syscall.O_NONBLOCK != 0
}

// TestPollableStdin: a pipe is read through a non-blocking duplicate,
// which restore closes after putting the pipe back in blocking mode; the
// pipe itself stays open and readable; a regular file is left alone.
func TestPollableStdin(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	in, restore := pollableStdin(pr)
	if in == io.Reader(pr) {
		t.Fatal("a pipe was not switched")
	}
	if !nonBlocking(t, pr) {
		t.Error("the pipe is not in non-blocking mode while served")
	}
	if _, err := pw.WriteString("line 1\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := io.ReadFull(in, buf); err != nil || string(buf) != "line 1\n" {
		t.Fatalf("read %q, %v through the duplicate", buf, err)
	}
	restore()
	if nonBlocking(t, pr) {
		t.Error("restore left the pipe in non-blocking mode")
	}
	if _, err := pw.WriteString("line 2\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(pr, buf); err != nil || string(buf) != "line 2\n" {
		t.Fatalf("after restore the pipe read %q, %v", buf, err)
	}
	reg, err := os.Create(filepath.Join(t.TempDir(), "stdin"))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if in, restore := pollableStdin(reg); in != io.Reader(reg) {
		t.Error("a regular file was switched")
	} else {
		restore()
	}
}
