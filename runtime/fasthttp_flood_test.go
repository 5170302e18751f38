package runtime

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
)

// TestHTTPShapeCacheFlood sends thousands of tools/call POSTs with
// distinct large headers, credentials among them, to a real HTTP server
// on 127.0.0.1: the shape cache stays within its byte bound throughout,
// evicts, holds none of the header values, and the heap after the flood
// is back near where it started.
func TestHTTPShapeCacheFlood(t *testing.T) {
	if !fastpath.Compiled {
		t.Log("fast path compiled out: the handler has no shape cache; checking the flood is served")
	}
	srv := fastTestServer(t, testUpstream(t).URL, true)
	// a quarter of the usual bound, so that a short flood fills it
	const bound = (1 << 20) / 4
	srv.shapeCacheBytes = bound
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	fast := srv.httpFast
	if fastpath.Compiled && fast == nil {
		t.Fatal("the fast path is compiled in but the HTTP handler has none")
	}
	heapBefore := heapAfterGC()
	const requests, workers, headerBytes = 1500, 4, 16 << 10
	deadline := time.Now().Add(90 * time.Second)
	var mu sync.Mutex
	var failures []string
	var maxBytes int
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < requests && time.Now().Before(deadline); i += workers {
				status, err := floodPost(hs.URL, i, headerBytes)
				mu.Lock()
				if err != nil || status != http.StatusOK {
					failures = append(failures, fmt.Sprintf("request %d: status %d, %v", i, status, err))
				}
				if fast != nil {
					b, _ := fast.CacheUsage()
					maxBytes = max(maxBytes, b)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if time.Now().After(deadline) {
		t.Fatalf("the flood did not finish in 90s")
	}
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed, first: %s", len(failures), requests, failures[0])
	}
	if fast != nil {
		b, n := fast.CacheUsage()
		t.Logf("shape cache: %d bytes in %d shapes at the end, at most %d bytes (bound %d)", b, n, maxBytes, bound)
		if maxBytes > bound {
			t.Errorf("the shape cache reached %d bytes, above its bound %d", maxBytes, bound)
		}
		if n >= requests {
			t.Errorf("the shape cache kept %d shapes of %d distinct requests: nothing was evicted", n, requests)
		}
		checkNoHeaderValues(t, fast)
	}
	if grown := heapAfterGC() - heapBefore; grown > 16<<20 {
		t.Errorf("the heap grew by %d MiB over the flood and stayed", grown>>20)
	}
}

// floodPost posts one tools/call with a distinct header of n bytes and
// distinct credentials.
func floodPost(url string, i, n int) (int, error) {
	body := `{"jsonrpc":"2.0","id":` + fmt.Sprint(i) + `,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"7"}}}`
	req, err := http.NewRequest("POST", url, strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", fmt.Sprintf("Bearer secret-token-%d", i))
	req.Header.Set("Cookie", fmt.Sprintf("session=secret-cookie-%d", i))
	req.Header.Set("X-Filler", fmt.Sprintf("%08d", i)+strings.Repeat("f", n))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// checkNoHeaderValues fails t if a cached shape holds a request's
// credentials or filler.
func checkNoHeaderValues(t *testing.T, fast *fastpath.HTTP) {
	t.Helper()
	fast.EachCachedShape(func(header http.Header, suffix []byte) {
		var all bytes.Buffer
		all.Write(suffix)
		for k, vs := range header {
			all.WriteString(k + ":" + strings.Join(vs, ",") + "\n")
		}
		for _, secret := range []string{"secret-token", "secret-cookie", "ffffffff"} {
			if bytes.Contains(all.Bytes(), []byte(secret)) {
				t.Errorf("a cached shape holds a request header value (%s):\n%s", secret, clipText(all.String()))
			}
		}
	})
}

func heapAfterGC() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
