//go:build !unix

package runtime

import "io"

// pollableStdin returns r unchanged: outside Unix, stdin stays as the
// parent handed it over (see stdiopoll_unix.go).
func pollableStdin(r io.Reader) (io.Reader, func()) { return r, func() {} }
