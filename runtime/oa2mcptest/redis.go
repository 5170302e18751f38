package oa2mcptest

import (
	"fmt"
	"net"
	"os/exec"
	"sync"
	"time"
)

// ProcessTB is what StartRedis needs of a *testing.T.
type ProcessTB interface {
	Helper()
	Fatal(args ...any)
	Cleanup(func())
	TempDir() string
}

// RedisServer is a private redis-server process of a test.
type RedisServer struct {
	// Addr is HOST:PORT on loopback; URL the redis:// URL of database 0.
	Addr, URL string
	mu        sync.Mutex
	cmd       *exec.Cmd
}

// StartRedis starts a private redis-server on a free loopback port for a
// test and returns its redis:// URL; it stops when the test ends. A
// missing redis-server fails the test (never skips it), so a suite cannot
// pass without the store it claims to test.
func StartRedis(t ProcessTB) string {
	t.Helper()
	return StartRedisServer(t).URL
}

// StartRedisServer starts redis-server with extra arguments (say
// "--sentinel" after a config file, or "--cluster-enabled", "yes") on a
// free loopback port; it is killed when the test ends.
func StartRedisServer(t ProcessTB, extra ...string) *RedisServer {
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
	// A config file (Sentinel's) must come first; options follow it.
	args := append(append([]string{}, extra...), "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	cmd := exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	r := &RedisServer{Addr: addr, URL: "redis://" + addr + "/0", cmd: cmd}
	t.Cleanup(r.Kill)
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return r
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("redis-server did not start on " + addr)
	return nil
}

// Kill stops the server at once (SIGKILL), as a crash would; a second
// Kill does nothing.
func (r *RedisServer) Kill() {
	r.mu.Lock()
	cmd := r.cmd
	r.cmd = nil
	r.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}
