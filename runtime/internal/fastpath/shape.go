package fastpath

import (
	"container/list"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"net/http"
	"sort"
	"sync"
)

// shapeCache holds the shapes the HTTP fast path learned (httpShape),
// under a digest of the request's shape rather than the request itself:
// a request's headers may be a megabyte each and carry Authorization and
// Cookie values, and the cache outlives every request. The digest is
// SHA-256 over a key drawn per cache and then the shape, so an attacker
// cannot precompute colliding requests; it never leaves the process.
// The cache is bounded in bytes (what a shape holds, counted with a
// fixed charge per entry) and evicts the least recently used shape.
type shapeCache struct {
	key [32]byte
	max int // bytes

	mu    sync.Mutex
	bytes int
	items map[shapeDigest]*list.Element // of *shapeEntry
	lru   list.List                     // front: most recently used
}

// shapeDigest names one shape.
type shapeDigest [sha256.Size]byte

type shapeEntry struct {
	digest shapeDigest
	shape  *httpShape
	size   int
}

const (
	// httpFastMaxBytes bounds a shape cache: about 3,000 shapes of the
	// usual size (one per client header set, tool and protocol
	// version; Authorization makes one per token).
	httpFastMaxBytes = 1 << 20
	// shapeEntryCost is what one entry costs beyond its headers and
	// suffix: the map slot, list element, entry and shape structs.
	shapeEntryCost = 256
)

func newShapeCache(maxBytes int) *shapeCache {
	c := &shapeCache{max: maxBytes, items: map[shapeDigest]*list.Element{}}
	_, _ = rand.Read(c.key[:]) // never fails (crypto/rand)
	return c
}

// get returns the shape learned under d, nil if none.
func (c *shapeCache) get(d shapeDigest) *httpShape {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.items[d]
	if e == nil {
		return nil
	}
	c.lru.MoveToFront(e)
	return e.Value.(*shapeEntry).shape
}

// put keeps shape under d, evicting the least recently used shapes to
// stay within the byte bound; a shape larger than a sixteenth of the
// bound is not kept.
func (c *shapeCache) put(d shapeDigest, shape *httpShape) {
	size := shape.size()
	if size > c.max/16 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.items[d]; old != nil {
		c.remove(old)
	}
	for c.bytes+size > c.max {
		c.remove(c.lru.Back())
	}
	c.items[d] = c.lru.PushFront(&shapeEntry{digest: d, shape: shape, size: size})
	c.bytes += size
}

func (c *shapeCache) remove(e *list.Element) {
	en := c.lru.Remove(e).(*shapeEntry)
	delete(c.items, en.digest)
	c.bytes -= en.size
}

// each calls fn with every shape the cache holds.
func (c *shapeCache) each(fn func(*httpShape)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; e = e.Next() {
		fn(e.Value.(*shapeEntry).shape)
	}
}

// usage is the bytes and shapes the cache holds.
func (c *shapeCache) usage() (bytes, shapes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, len(c.items)
}

// size is what shape holds, for the cache's bound.
func (s *httpShape) size() int {
	n := shapeEntryCost + len(s.suffix)
	for k, vs := range s.header {
		n += len(k) + 16
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}

// digest is the shape of a tools/call POST: the request line, Host,
// local address, TLS state, tool name, _meta protocol fields and every
// header but httpSkippedHeaders, each length-prefixed so that no two
// shapes write the same bytes.
func (c *shapeCache) digest(r *http.Request, call *fastCall) shapeDigest {
	h := sha256.New()
	h.Write(c.key[:])
	for _, s := range []string{r.Method, r.URL.RequestURI(), r.Proto, r.Host, localAddr(r), tlsState(r), call.name, call.metaKey} {
		writeField(h, s)
	}
	names := make([]string, 0, len(r.Header))
	for k := range r.Header {
		if !httpSkippedHeaders[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		writeField(h, k)
		vs := r.Header[k]
		writeLen(h, len(vs))
		for _, v := range vs {
			writeField(h, v)
		}
	}
	var d shapeDigest
	h.Sum(d[:0])
	return d
}

func writeField(h hash.Hash, s string) {
	writeLen(h, len(s))
	h.Write([]byte(s))
}

func writeLen(h hash.Hash, n int) {
	var b [binary.MaxVarintLen64]byte
	h.Write(b[:binary.PutUvarint(b[:], uint64(n))])
}
