package oa2mcptest

import (
	"fmt"
	"net"
	"os/exec"
	"time"
)

// ProcessTB is what StartRedis needs of a *testing.T.
type ProcessTB interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
	TempDir() string
}

// StartRedis starts a private redis-server on a free loopback port for a
// test and returns its redis:// URL; it stops when the test ends. A
// missing redis-server fails the test (never skips it), so a suite cannot
// pass without the store it claims to test.
func StartRedis(t ProcessTB) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is not installed; run scripts/install-deps.sh (it installs the Debian package redis-server)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(path, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "redis://" + addr + "/0"
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("redis-server did not start on " + addr)
	return ""
}
