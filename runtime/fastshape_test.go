package runtime

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHTTPShapeCacheFlood sends thousands of tools/call POSTs with
// distinct large headers, credentials among them, to a real HTTP server
// on 127.0.0.1: the shape cache stays within its byte bound throughout,
// evicts, holds none of the header values, and the heap after the flood
// is back near where it started.
func TestHTTPShapeCacheFlood(t *testing.T) {
	if !fastPathCompiled {
		t.Log("fast path compiled out: the handler has no shape cache; checking the flood is served")
	}
	srv := fastTestServer(t, testUpstream(t).URL, true)
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	fast, _ := srv.HTTPHandler().(*httpFast)
	// a quarter of the usual bound, so that a short flood fills it
	const bound = httpFastMaxBytes / 4
	if fast != nil {
		fast.shapes = newShapeCache(bound)
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
					b, _ := fast.shapes.usage()
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
		b, n := fast.shapes.usage()
		t.Logf("shape cache: %d bytes in %d shapes at the end, at most %d bytes (bound %d)", b, n, maxBytes, bound)
		if maxBytes > bound {
			t.Errorf("the shape cache reached %d bytes, above its bound %d", maxBytes, bound)
		}
		if n >= requests {
			t.Errorf("the shape cache kept %d shapes of %d distinct requests: nothing was evicted", n, requests)
		}
		checkNoHeaderValues(t, fast.shapes)
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
func checkNoHeaderValues(t *testing.T, c *shapeCache) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; e = e.Next() {
		sh := e.Value.(*shapeEntry).shape
		var all bytes.Buffer
		all.Write(sh.suffix)
		for k, vs := range sh.header {
			all.WriteString(k + ":" + strings.Join(vs, ",") + "\n")
		}
		for _, secret := range []string{"secret-token", "secret-cookie", "ffffffff"} {
			if bytes.Contains(all.Bytes(), []byte(secret)) {
				t.Fatalf("a cached shape holds a request header value (%s):\n%s", secret, clipText(all.String()))
			}
		}
	}
}

func heapAfterGC() int64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// TestShapeCacheEvicts: the cache keeps the most recently used shapes
// within its byte bound, and a shape larger than its share is not kept.
func TestShapeCacheEvicts(t *testing.T) {
	c := newShapeCache(16 * 1024)
	shape := func(n int) *httpShape {
		return &httpShape{header: http.Header{"Content-Type": {"application/json"}}, suffix: bytes.Repeat([]byte{'\n'}, n)}
	}
	d := func(i int) shapeDigest { return shapeDigest{byte(i), byte(i >> 8)} }
	for i := range 200 {
		c.put(d(i), shape(i%64))
		if i >= 1 && c.get(d(1)) == nil {
			t.Fatalf("after %d puts the shape used on every put was evicted", i)
		}
		if b, _ := c.usage(); b > 16*1024 {
			t.Fatalf("after %d puts the cache holds %d bytes, above 16 KiB", i, b)
		}
	}
	if c.get(d(2)) != nil {
		t.Error("the least recently used shape was not evicted")
	}
	c.put(d(1000), shape(2000))
	if c.get(d(1000)) != nil {
		t.Error("a shape above a sixteenth of the bound was kept")
	}
	var r1, r2 http.Request
	for _, r := range []*http.Request{&r1, &r2} {
		r.Method, r.Proto, r.Host = "POST", "HTTP/1.1", "h"
		r.URL = &url.URL{Path: "/mcp"}
	}
	r1.Header = http.Header{"A": {"bc"}}
	r2.Header = http.Header{"Ab": {"c"}}
	if c.digest(&r1, &fastCall{name: "t"}) == c.digest(&r2, &fastCall{name: "t"}) {
		t.Error("headers A: bc and Ab: c have one digest")
	}
	other := newShapeCache(1024)
	if c.digest(&r1, &fastCall{name: "t"}) == other.digest(&r1, &fastCall{name: "t"}) {
		t.Error("two caches give one request the same digest: the key is not per cache")
	}
}
