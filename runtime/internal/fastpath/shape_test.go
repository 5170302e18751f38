package fastpath

import (
	"bytes"
	"net/http"
	"net/url"
	"testing"
)

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
