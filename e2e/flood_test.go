//go:build linux && e2e

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// The flood: 1,100 anonymous tools/call POSTs, four at a time, each with
// a distinct header of floodHeaderBytes, just under the listener's
// 64 KiB header limit so that every one reaches the HTTP fast path. Its
// shape cache is bounded in bytes (1 MiB), so the server's resident
// memory may grow by at most floodRSSGrowth: the requests in flight and
// the garbage collector's headroom. (A cache keyed by the headers
// themselves, as it once was, holds 1,024 of them: about 60 MiB here,
// and 1,028 MB with the 1 MB headers the listener now refuses.)
const (
	floodRequests    = 1100
	floodHeaderBytes = 60_000
	floodRSSGrowth   = 32 << 20
)

// TestHTTPHeaderFlood floods the generated petstore server, a real
// process over Streamable HTTP, with tools/call POSTs whose headers are
// large and distinct, and checks that every call is answered and the
// server's RSS grows by less than floodRSSGrowth during and after the
// flood; headers past the listener's limit get 431 and leave the server
// serving.
func TestHTTPHeaderFlood(t *testing.T) {
	bins := buildPetstore(t, testenv.RepoRoot(t))
	backend := startBackend(t, bins)
	url, pid := startProcess(t, "petstore MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
		bins.server, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backend)
	start := rssOf(t, pid)
	const workers = 4
	deadline := time.Now().Add(3 * time.Minute)
	var mu sync.Mutex
	var peak int64
	var failures []string
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for i := w; i < floodRequests && time.Now().Before(deadline); i += workers {
				status, err := floodCall(client, url, i, floodHeaderBytes)
				rss := rssOf(t, pid)
				mu.Lock()
				peak = max(peak, rss)
				if err != nil || status != http.StatusOK {
					failures = append(failures, fmt.Sprintf("request %d: status %d, %v", i, status, err))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if time.Now().After(deadline) {
		t.Fatal("the flood did not finish within 3 minutes")
	}
	end := rssOf(t, pid)
	t.Logf("server RSS: %d MiB before, peak %d MiB, %d MiB after %d requests with %d-byte headers (growth bound %d MiB)", start>>20, peak>>20, end>>20, floodRequests, floodHeaderBytes, floodRSSGrowth>>20)
	if len(failures) > 0 {
		t.Errorf("%d of %d requests failed, first: %s", len(failures), floodRequests, failures[0])
	}
	if peak-start > floodRSSGrowth || end-start > floodRSSGrowth {
		t.Errorf("the server's RSS grew to %d MiB (%d MiB after the flood) from %d MiB, more than %d MiB", peak>>20, end>>20, start>>20, floodRSSGrowth>>20)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	for i := range 8 {
		if status, _ := floodCall(client, url, floodRequests+i, 1_000_000); status != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("a 1 MB header got status %d, want 431", status)
		}
	}
	if status, err := floodCall(client, url, floodRequests+8, 100); err != nil || status != http.StatusOK {
		t.Errorf("after the oversized headers the server answered %d, %v; want 200", status, err)
	}
}

// floodCall posts one anonymous tools/call with a distinct header of
// size bytes.
func floodCall(client *http.Client, url string, i, size int) (int, error) {
	body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"petstore_count_stock","arguments":{}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("X-Filler", fmt.Sprintf("%08d", i)+strings.Repeat("f", max(size-8, 0)))
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// rssOf is the resident set size of process pid, from /proc.
func rssOf(t *testing.T, pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Errorf("reading the server's memory: %v", err)
		return 0
	}
	m := regexp.MustCompile(`VmRSS:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Errorf("no VmRSS in /proc/%d/status", pid)
		return 0
	}
	kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return kb << 10
}
