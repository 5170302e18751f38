package redisstore_test

import (
	"fmt"
	"net"
	"os/exec"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
	"github.com/oa2mcp/oa2mcp/runtime/redisstore"
)

func TestRedisStoreContract(t *testing.T) {
	store, err := redisstore.Open(startRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	oa2mcptest.HandleStoreContract(t, store)
}

func TestOpenUnreachable(t *testing.T) {
	if _, err := redisstore.Open("redis://127.0.0.1:1/0"); err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
}

// startRedis starts a private redis-server on a free loopback port. It
// fails (never skips) when redis-server is missing, so CI cannot pass
// without the test.
func startRedis(t testing.TB) string {
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
	t.Fatalf("redis-server did not start on %s", addr)
	return ""
}
