//go:build linux && e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// TestHostileHTTP attacks a real petstore server process over Streamable
// HTTP: foreign, null and missing Origin, wrong Accept and Content-Type,
// oversized and deeply nested bodies, batches, slow headers and bodies
// over many connections, idle keep-alive connections and more connections
// than the cap. Each case asserts its bounded outcome (status, JSON-RPC
// error, time), and after each the server still answers; the slow cases
// also bound peak RSS and open descriptors.
func TestHostileHTTP(t *testing.T) {
	root := testenv.RepoRoot(t)
	bins := buildPetstore(t, root)
	backend := startBackend(t, bins)
	s := startHostile(t, bins, backend, "--allowed-origins", "https://app.example.com")
	base := usage(t, s.pid)
	t.Logf("at start: %s", base)
	cases := []struct {
		name string
		run  func(t *testing.T, s *hostileServer)
	}{
		{"origin", hostileOrigin},
		{"media types", hostileMediaTypes},
		{"oversized body", hostileOversized},
		{"deep nesting", hostileDeepNesting},
		{"batches", hostileBatches},
		{"slow headers", func(t *testing.T, s *hostileServer) { hostileSlow(t, s, false) }},
		{"slow bodies", func(t *testing.T, s *hostileServer) { hostileSlow(t, s, true) }},
		{"idle keep-alive", hostileIdle},
		{"connection cap", hostileConnCap},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.run(t, s)
			requireAlive(t, s)
		})
	}
	end := usage(t, s.pid)
	t.Logf("at end: %s", end)
}

// hostileOrigin: only a missing Origin, an allowed one and the server's
// own loopback origin pass; the rest get 403 with a JSON-RPC error, also
// for a tools/call the fast path already knows.
func hostileOrigin(t *testing.T, s *hostileServer) {
	call := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"petstore_get_pet","arguments":{"pet_id":1}}}`)
	for i := 0; i < 3; i++ { // teaches the fast path this shape
		if status, body, _ := post(t, s.endpoint, mcpHeaders(), call); status != http.StatusOK {
			t.Fatalf("tools/call without Origin: %d %s", status, body)
		}
	}
	cases := []struct {
		origins []string
		want    int
	}{
		{nil, 200},
		{[]string{"https://app.example.com"}, 200},
		{[]string{"http://" + s.host}, 200},
		{[]string{"https://evil.example"}, 403},
		{[]string{"null"}, 403},
		{[]string{""}, 403},
		{[]string{"http://localhost:1"}, 403},
		{[]string{"https://app.example.com.evil.example"}, 403},
		{[]string{"https://app.example.com", "https://evil.example"}, 403},
		{[]string{"http://" + s.host + "/path"}, 403},
	}
	for _, c := range cases {
		for _, body := range [][]byte{listTools, call} {
			h := mcpHeaders()
			if c.origins != nil {
				h["Origin"] = c.origins
			}
			status, got, hdr := post(t, s.endpoint, h, body)
			if status != c.want {
				t.Errorf("Origin %q: status %d, want %d (%s)", c.origins, status, c.want, truncate(string(got), 200))
				continue
			}
			if c.want == 403 {
				code, msg, ok := jsonrpcError(got)
				if !ok || code != -32600 || !strings.Contains(msg, "Origin") || hdr.Get("Content-Type") != "application/json" {
					t.Errorf("Origin %q: the 403 body is not a JSON-RPC error naming the Origin: %s", c.origins, got)
				}
			}
		}
	}
}

// hostileMediaTypes: wrong Accept or Content-Type is a 4xx, never a call.
func hostileMediaTypes(t *testing.T, s *hostileServer) {
	for _, c := range []struct {
		header, value string
		want          int
	}{
		{"Accept", "text/html", 400},
		{"Accept", "", 400},
		{"Content-Type", "text/plain", 415},
		{"Content-Type", "", 415},
		{"Content-Type", "application/json-patch+json", 415},
	} {
		h := mcpHeaders()
		if c.value == "" {
			delete(h, c.header)
		} else {
			h.Set(c.header, c.value)
		}
		if status, body, _ := post(t, s.endpoint, h, listTools); status != c.want {
			t.Errorf("%s %q: status %d, want %d (%s)", c.header, c.value, status, c.want, truncate(string(body), 200))
		}
	}
}

// hostileOversized: bodies over 4 MiB get 413, announced or chunked.
func hostileOversized(t *testing.T, s *hostileServer) {
	big := append([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"`), bytes.Repeat([]byte("a"), 5<<20)...)
	big = append(big, `"}}`...)
	start := time.Now()
	status, body, _ := post(t, s.endpoint, mcpHeaders(), big)
	if code, _, ok := jsonrpcError(body); status != 413 || !ok || code != -32600 {
		t.Errorf("5 MiB body: %d %s", status, truncate(string(body), 300))
	}
	// Chunked: no Content-Length to refuse up front.
	req, _ := http.NewRequest(http.MethodPost, s.endpoint, struct{ *bytes.Reader }{bytes.NewReader(big)})
	req.Header = mcpHeaders()
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != 413 {
			t.Errorf("chunked 5 MiB body: status %d, want 413", resp.StatusCode)
		}
	} // a reset while still sending is a refusal too
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refusing two oversized bodies took %s", d)
	}
}

// hostileDeepNesting: 200,000 nested arrays are refused within seconds.
func hostileDeepNesting(t *testing.T, s *hostileServer) {
	for _, inner := range []string{strings.Repeat("[", 200000) + strings.Repeat("]", 200000), strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000)} {
		body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"petstore_get_pet","arguments":` + inner + `}}`)
		start := time.Now()
		status, got, _ := post(t, s.endpoint, mcpHeaders(), body)
		if status >= 500 || time.Since(start) > 5*time.Second {
			t.Errorf("deep nesting: status %d after %s: %s", status, time.Since(start), truncate(string(got), 300))
		}
		if status == 200 && !bytes.Contains(got, []byte(`"isError":true`)) && !bytes.Contains(got, []byte(`"error"`)) {
			t.Errorf("deep nesting was served: %s", truncate(string(got), 300))
		}
	}
}

// batchOf is a JSON-RPC batch of n tools/call requests.
func batchOf(n int) []byte {
	msgs := make([]json.RawMessage, n)
	for i := range msgs {
		msgs[i] = json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"petstore_get_pet","arguments":{"pet_id":1}}}`, i+1))
	}
	b, _ := json.Marshal(msgs)
	return b
}

// hostileBatches: at most 100 messages per batch for every protocol
// version; malformed batches are refused whole.
func hostileBatches(t *testing.T, s *hostileServer) {
	status, body, _ := post(t, s.endpoint, mcpHeaders(), batchOf(100))
	var answers []json.RawMessage
	if status != 200 || json.Unmarshal(body, &answers) != nil || len(answers) != 100 {
		t.Errorf("a batch of 100: status %d, %d answers: %s", status, len(answers), truncate(string(body), 300))
	}
	for _, n := range []int{101, 30000} {
		start := time.Now()
		for _, h := range []http.Header{mcpHeaders(), withHeader(mcpHeaders(), "MCP-Protocol-Version", "2025-03-26")} {
			status, body, _ := post(t, s.endpoint, h, batchOf(n))
			code, msg, ok := jsonrpcError(body)
			if status != 400 || !ok || code != -32600 || !strings.Contains(msg, "at most 100") {
				t.Errorf("a batch of %d: %d %s", n, status, truncate(string(body), 300))
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("refusing batches of %d took %s: were they run?", n, d)
		}
	}
	one := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, b := range []string{`[]`, `[[` + one + `]]`, `[` + one + `,42]`, `[` + one + `,{"jsonrpc":"2.0"}]`} {
		status, body, _ := post(t, s.endpoint, mcpHeaders(), []byte(b))
		if status != 400 {
			t.Errorf("batch %s: status %d, want 400 (%s)", truncate(b, 80), status, truncate(string(body), 200))
		}
	}
}

func withHeader(h http.Header, k, v string) http.Header {
	h.Set(k, v)
	return h
}

// hostileConns is how many connections the slow cases open:
// $OA2MCP_HOSTILE_CONNS, else 1,000.
func hostileConns() int {
	if n, err := strconv.Atoi(os.Getenv("OA2MCP_HOSTILE_CONNS")); err == nil && n > 0 {
		return n
	}
	return 1000
}

// Bounds of the slow cases, for 1,000 connections on a server that
// accepts 512 at once.
const (
	slowPeakRSSMiB = 64 // peak RSS while under attack
	slowFDSlack    = 8  // open descriptors over the start's, after
)

// hostileSlow opens many connections that send a partial request
// (headers, or headers and part of a body) and then stall: the server
// closes each within its read timeouts, holds at most its connection cap
// at once, and ends with as many descriptors as it started with.
func hostileSlow(t *testing.T, s *hostileServer, body bool) {
	// Before: the upstream connections the earlier cases opened count.
	base := usage(t, s.pid)
	resetPeak(t, s.pid)
	n := hostileConns()
	head := "POST /mcp HTTP/1.1\r\nHost: " + s.host + "\r\nContent-Type: application/json\r\n"
	if body {
		head = postHead(s.host, 100000) + `{"jsonrpc":"2.0","id":1,`
	}
	start := time.Now()
	conns := make([]net.Conn, 0, n)
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", s.host, 5*time.Second)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		conns = append(conns, c)
		go c.Write([]byte(head))
	}
	// Accepted in rounds of at most the cap (512), each ending at a read
	// timeout (3 s).
	limit := time.Duration((n+511)/512+1)*3*time.Second + 3*time.Second
	peakFDs := 0
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			if closed, _ := closedWithin(c, limit); !closed {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(200 * time.Millisecond)
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			peakFDs = max(peakFDs, usage(t, s.pid).fds)
		}
	}
	tick.Stop()
	u := usage(t, s.pid)
	fds := waitFDs(t, s.pid, base.fds+slowFDSlack, 5*time.Second)
	t.Logf("%d stalled connections (body %v): all handled in %s; %s during, peak %d fds, %d fds after", n, body, time.Since(start).Round(100*time.Millisecond), u, peakFDs, fds)
	if open > 0 {
		t.Errorf("%d of %d stalled connections were still open after the read timeouts", open, n)
	}
	if peakFDs > base.fds+512+slowFDSlack {
		t.Errorf("peak %d open descriptors: more than the cap of 512 connections (start %d)", peakFDs, base.fds)
	}
	if fds > base.fds+slowFDSlack {
		t.Errorf("%d descriptors after the attack, %d at start", fds, base.fds)
	}
	if u.peakRSSKiB > slowPeakRSSMiB<<10 {
		t.Errorf("peak RSS %d KiB, bound %d MiB", u.peakRSSKiB, slowPeakRSSMiB)
	}
}

// hostileIdle: keep-alive connections that stop after a request are
// closed by the idle timeout.
func hostileIdle(t *testing.T, s *hostileServer) {
	const n = 100
	base := usage(t, s.pid)
	conns := make([]net.Conn, n)
	for i := range conns {
		c := dial(t, s.host)
		defer c.Close()
		if _, err := c.Write([]byte(postHead(s.host, len(listTools)) + string(listTools))); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := 0
	start := time.Now()
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The answer, then nothing until the idle timeout (2 s).
			if closed, status := closedWithin(c, 6*time.Second); !closed || !strings.HasPrefix(status, "HTTP/1.1 200") {
				mu.Lock()
				open++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d idle keep-alive connections closed after %s", n, time.Since(start).Round(100*time.Millisecond))
	if open > 0 {
		t.Errorf("%d of %d idle keep-alive connections were not answered and closed within 6 s", open, n)
	}
	if fds := waitFDs(t, s.pid, base.fds+slowFDSlack, 5*time.Second); fds > base.fds+slowFDSlack {
		t.Errorf("%d descriptors after the idle connections, %d at start", fds, base.fds)
	}
}

// hostileConnCap: 800 silent connections hold at most 512 descriptors of
// the server; a real request still gets through once they time out.
func hostileConnCap(t *testing.T, s *hostileServer) {
	const n = 800
	base := usage(t, s.pid)
	for i := 0; i < n; i++ {
		c := dial(t, s.host)
		defer c.Close()
	}
	time.Sleep(500 * time.Millisecond)
	if fds := usage(t, s.pid).fds; fds > base.fds+512+slowFDSlack {
		t.Errorf("%d silent connections: the server holds %d descriptors, cap 512 (start %d)", n, fds, base.fds)
	}
	// The header timeout (2 s) frees the slots, twice.
	deadline := time.Now().Add(15 * time.Second)
	for {
		if fds := usage(t, s.pid).fds; fds <= base.fds+slowFDSlack {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the silent connections still hold %d descriptors (start %d)", usage(t, s.pid).fds, base.fds)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
