//go:build unix

package runtime

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin returns r as the network poller can wait on it, and a
// function that puts it back as it was. A stdio server's stdin is a pipe
// in blocking mode, as a parent hands it over: every read that waits for
// the client's next line then holds a thread in a system call, the Go
// runtime hands the thread's processor to another thread, and its
// monitor keeps waking every 20 µs to do so, about a tenth of a stdio
// server's CPU per call under load (docs/benchmarks.md). In non-blocking
// mode the reader parks in the poller instead.
//
// Only a pipe is switched: a terminal is shared with the shell, which
// must not find it non-blocking, and a socket is often stdout as well,
// whose blocking writers would then fail with EAGAIN. The switch is made
// on a duplicate descriptor, which restore closes (its own file, so the
// process's stdin stays open) after putting the pipe back in blocking
// mode for whoever shares it.
func pollableStdin(r io.Reader) (io.Reader, func()) {
	f, ok := r.(*os.File)
	if !ok {
		return r, func() {}
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return r, func() {}
	}
	sc, err := f.SyscallConn()
	if err != nil {
		return r, func() {}
	}
	dup := -1
	if sc.Control(func(fd uintptr) { dup, err = syscall.Dup(int(fd)) }) != nil || err != nil {
		return r, func() {}
	}
	if syscall.SetNonblock(dup, true) != nil {
		_ = syscall.Close(dup)
		return r, func() {}
	}
	p := os.NewFile(uintptr(dup), f.Name()) // non-blocking: the poller waits on it
	return p, func() {
		_ = syscall.SetNonblock(dup, false) // the pipe's mode is shared with its other holders
		_ = p.Close()
	}
}
