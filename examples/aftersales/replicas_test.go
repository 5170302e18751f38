package aftersales

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// replicaSet runs server replicas as real processes of the built command
// on 127.0.0.1, sharing one handle store, upstream, token file and
// request-state key: what a deployment of several replicas looks like.
type replicaSet struct {
	t      testing.TB
	bin    string
	args   []string
	env    []string
	ports  []int
	mu     sync.Mutex
	procs  []*exec.Cmd
	stderr []*syncBuffer
}

// newReplicaSet builds the server once and prepares n replicas on free
// ports; start them with startAll.
func newReplicaSet(t testing.TB, n int, store, baseURL string, callers map[string]string) *replicaSet {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "aftersales")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/aftersales").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var lines strings.Builder
	for token, sub := range callers {
		fmt.Fprintf(&lines, "%s %s tickets:read tickets:write\n", token, sub)
	}
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte(lines.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	rs := &replicaSet{t: t, bin: bin, procs: make([]*exec.Cmd, n), stderr: make([]*syncBuffer, n),
		args: []string{"--transport", "http", "--handle-store", store, "--base-url", baseURL, "--auth-tokens-file", tokens, "--log-level", "warn"},
		env:  append(os.Environ(), "AFTERSALES_STATE_KEY="+stateKey)}
	for i := 0; i < n; i++ {
		rs.ports = append(rs.ports, freePort(t))
	}
	t.Cleanup(rs.stopAll)
	return rs
}

// freePort is a loopback port free right now.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func (rs *replicaSet) addr(i int) string { return fmt.Sprintf("127.0.0.1:%d", rs.ports[i]) }

// url is replica i's MCP endpoint.
func (rs *replicaSet) url(i int) string { return "http://" + rs.addr(i) + "/mcp" }

func (rs *replicaSet) startAll() {
	for i := range rs.ports {
		rs.start(i)
	}
}

// start runs replica i and waits until /healthz answers (at most 10 s).
func (rs *replicaSet) start(i int) {
	rs.t.Helper()
	cmd := exec.Command(rs.bin, append(rs.args, "--addr", rs.addr(i))...)
	cmd.Env = rs.env
	errs := &syncBuffer{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		rs.t.Fatal(err)
	}
	rs.mu.Lock()
	rs.procs[i], rs.stderr[i] = cmd, errs
	rs.mu.Unlock()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + rs.addr(i) + "/healthz"); err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	rs.t.Fatalf("replica %d did not start on %s: %s", i, rs.addr(i), errs.String())
}

// kill ends replica i at once (SIGKILL: no graceful shutdown).
func (rs *replicaSet) kill(i int) {
	rs.mu.Lock()
	cmd := rs.procs[i]
	rs.procs[i] = nil
	rs.mu.Unlock()
	if cmd != nil {
		cmd.Process.Kill()
		cmd.Wait()
	}
}

func (rs *replicaSet) stopAll() {
	for i := range rs.procs {
		rs.kill(i)
	}
}
