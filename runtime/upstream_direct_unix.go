//go:build unix

package runtime

import (
	"net"
	"syscall"
)

// canProbeConn: connOpen works here.
const canProbeConn = true

// connOpen reports whether the API has left c open while it was idle: a
// peek that does not wait finds nothing to read (EAGAIN). End of stream,
// a reset or bytes nobody asked for mean it must not be reused.
func connOpen(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	var buf [1]byte
	err = rc.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		open = rerr == syscall.EAGAIN
		return true // never wait: the answer is now
	})
	return err == nil && open
}
