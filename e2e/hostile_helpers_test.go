//go:build linux && e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What the hostile-client and hostile-token tests share: a real petstore
// server process over Streamable HTTP with tight listener bounds, raw
// requests on raw connections, and the process's resident memory and
// open file descriptors read from /proc.

// hostileLimits are the listener flags of the servers under attack: short
// enough that the slow-peer cases end within seconds.
var hostileLimits = []string{"--http-read-header-timeout", "2s", "--http-read-timeout", "3s",
	"--http-idle-timeout", "2s", "--http-max-connections", "512"}

// hostileServer is a server process under attack.
type hostileServer struct {
	endpoint string // http://127.0.0.1:PORT/mcp
	host     string // 127.0.0.1:PORT
	pid      int
}

// startHostile starts the petstore server with the hostile limits and
// extra flags. $OA2MCP_HOSTILE_SERVER names another server binary to
// attack, started without those flags (to measure a build that predates
// them).
func startHostile(t *testing.T, bins petstoreBins, backend string, extra ...string) *hostileServer {
	t.Helper()
	bin := bins.server
	args := []string{"--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backend}
	if b := os.Getenv("OA2MCP_HOSTILE_SERVER"); b != "" {
		bin = b
	} else {
		args = append(append(args, hostileLimits...), extra...)
	}
	endpoint, pid := startProcess(t, "petstore MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`), bin, args...)
	u, err := url.Parse(endpoint)
	must(t, err)
	return &hostileServer{endpoint: endpoint, host: u.Host, pid: pid}
}

// procUsage is a process's memory and descriptors.
type procUsage struct {
	peakRSSKiB, rssKiB int // VmHWM, VmRSS
	fds                int
}

func (u procUsage) String() string {
	return fmt.Sprintf("peak RSS %.1f MiB, RSS %.1f MiB, %d fds", float64(u.peakRSSKiB)/1024, float64(u.rssKiB)/1024, u.fds)
}

// usage reads /proc/PID/status and /proc/PID/fd.
func usage(t *testing.T, pid int) procUsage {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("the server process is gone: %v", err)
	}
	var u procUsage
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmHWM:":
			u.peakRSSKiB, _ = strconv.Atoi(f[1])
		case "VmRSS:":
			u.rssKiB, _ = strconv.Atoi(f[1])
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	must(t, err)
	u.fds = len(fds)
	return u
}

// resetPeak starts a new peak RSS measurement (clear_refs 5 resets
// VmHWM).
func resetPeak(t *testing.T, pid int) {
	t.Helper()
	must(t, os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0))
}

// waitFDs waits, at most limit, until the process has at most max open
// descriptors, and returns the last count.
func waitFDs(t *testing.T, pid, max int, limit time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		n := usage(t, pid).fds
		if n <= max || time.Now().After(deadline) {
			return n
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// mcpHeaders are the headers of a well-formed POST of a 2025-03-26 era
// client (no MCP-Protocol-Version), which the batch rules once spared.
func mcpHeaders() http.Header {
	return http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
}

// post sends one request with a bounded client and returns status, body
// and the response header.
func post(t *testing.T, endpoint string, h http.Header, body []byte) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
	must(t, err)
	req.Header = h
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	return resp.StatusCode, b, resp.Header
}

// jsonrpcError decodes a JSON-RPC error answer: code and message, ok false
// when body is no such answer.
func jsonrpcError(body []byte) (int, string, bool) {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil || m.JSONRPC != "2.0" {
		return 0, "", false
	}
	return m.Error.Code, m.Error.Message, true
}

// listTools is a tools/list the server must answer with 200.
var listTools = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

// requireAlive fails unless the server still answers tools/list.
func requireAlive(t *testing.T, s *hostileServer) {
	t.Helper()
	status, body, _ := post(t, s.endpoint, mcpHeaders(), listTools)
	if status != http.StatusOK || !bytes.Contains(body, []byte(`"tools"`)) {
		t.Fatalf("the server no longer answers tools/list: %d %s", status, truncate(string(body), 400))
	}
}

// rawRequest writes head (request line and headers, without the blank
// line's end) and then body on a fresh connection.
func dial(t *testing.T, host string) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", host, err)
	}
	return c
}

// closedWithin reports whether the server closed c (read EOF or reset)
// within limit, reading and dropping whatever it sends first; the
// response's status line, if any, is returned.
func closedWithin(c net.Conn, limit time.Duration) (closed bool, status string) {
	_ = c.SetReadDeadline(time.Now().Add(limit))
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err == nil {
		status = strings.TrimSpace(line)
		_, err = io.Copy(io.Discard, br)
		if err == nil {
			return true, status // EOF
		}
	}
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false, status
	}
	return true, status
}

// postHead is the head of a POST to /mcp with a Content-Length.
func postHead(host string, length int, extra ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", host, length)
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	return b.String()
}
