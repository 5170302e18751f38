//go:build !unix

package runtime

import "net"

// canProbeConn: outside Unix an idle connection cannot be checked without
// reading it, so newDirectTransport keeps net/http's Transport.
const canProbeConn = false

func connOpen(net.Conn) bool { return false }
