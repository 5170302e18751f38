package runtime

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"
)

// directTransport is the upstream client's transport for plain http://
// APIs reached without a proxy: the calling goroutine writes the request
// on a kept-alive connection and reads the answer itself. net/http's
// Transport hands every request to a writer goroutine and every answer
// back from a reader goroutine of the connection: two goroutine switches
// and their wake-ups per call, the largest part of a stdio server's CPU
// per call after the system calls themselves (docs/benchmarks.md). What
// the Transport does that a caller can see is kept: it asks for gzip and
// decompresses it, skips 1xx answers, bounds the header block
// (maxResponseHeaderBytes), keeps at most maxIdlePerHost idle connections
// per host for idleTimeout (closing within reapEvery those the API
// closed), never reuses a connection whose answer was
// not read to its end or said Connection: close, sends a replayable
// request again once on a fresh connection when a kept-alive one turns
// out closed, and returns an answer the API sent before it stopped
// reading the request (earlyAnswer). Everything else (https, a proxy,
// Expect, bodies without a length or rewind) goes to fallback, the
// Transport itself.
type directTransport struct {
	fallback *http.Transport
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)

	mu     sync.Mutex
	idle   map[string][]*directConn // by host:port, most recently used last
	reaper *time.Timer              // armed while idle connections are kept
	armed  bool
}

const (
	// maxIdlePerHost and idleTimeout are the fallback Transport's
	// MaxIdleConnsPerHost and IdleConnTimeout.
	maxIdlePerHost = 128
	idleTimeout    = 90 * time.Second
	// max1xx bounds the informational answers skipped before the real one.
	max1xx = 5
	// reapEvery is how often idle connections are checked: one the API
	// closed is closed here within about this time (the Transport's
	// reader goroutine closes it at once), one idle for idleTimeout too.
	reapEvery = time.Second
)

// directConn is one kept-alive connection.
type directConn struct {
	conn      net.Conn
	lim       limitReader // the header block's bound
	br        *bufio.Reader
	bw        *bufio.Writer
	addr      string
	idleSince time.Time
}

// limitReader reads from r at most n bytes while limited; past them it
// fails, which bounds an answer's header block.
type limitReader struct {
	r       io.Reader
	n       int64
	limited bool
}

// errHeaderTooLarge and errTooMany1xx say what the Transport says.
var (
	errHeaderTooLarge = fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", maxResponseHeaderBytes)
	errTooMany1xx     = errors.New("net/http: too many 1xx informational responses")
)

func (l *limitReader) Read(p []byte) (int, error) {
	if !l.limited {
		return l.r.Read(p)
	}
	if l.n <= 0 {
		return 0, errHeaderTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

func newDirectTransport(fallback *http.Transport, dial func(ctx context.Context, network, addr string) (net.Conn, error)) http.RoundTripper {
	if !canProbeConn {
		return fallback
	}
	t := &directTransport{fallback: fallback, dial: dial, idle: map[string][]*directConn{}}
	t.reaper = time.AfterFunc(time.Hour, t.reap)
	t.reaper.Stop()
	return t
}

// reap closes the idle connections the API closed or that were idle for
// idleTimeout, and checks again later while any remain.
func (t *directTransport) reap() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*directConn{}
	t.mu.Unlock()
	now := time.Now()
	kept := map[string][]*directConn{}
	for addr, list := range idle {
		for _, c := range list {
			_ = c.conn.SetReadDeadline(time.Time{})
			if now.Sub(c.idleSince) < idleTimeout && connOpen(c.conn) {
				kept[addr] = append(kept[addr], c)
			} else {
				_ = c.conn.Close()
			}
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for addr, list := range t.idle { // put back meanwhile: the most recent
		kept[addr] = append(kept[addr], list...)
	}
	for addr, list := range kept {
		for len(list) > maxIdlePerHost {
			_ = list[0].conn.Close()
			list = list[1:]
		}
		kept[addr] = list
	}
	t.idle = kept
	t.armed = len(kept) > 0
	if t.armed {
		t.reaper.Reset(reapEvery)
	}
}

// direct reports whether req is one this transport sends itself.
func (t *directTransport) direct(req *http.Request) bool {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" || req.Method == http.MethodConnect ||
		req.Header.Get("Expect") != "" || len(req.Trailer) > 0 || len(req.TransferEncoding) > 0 {
		return false
	}
	if req.Body != nil && req.Body != http.NoBody && (req.ContentLength <= 0 || req.GetBody == nil) {
		return false
	}
	if t.fallback.Proxy != nil {
		if p, err := t.fallback.Proxy(req); err != nil || p != nil {
			return false
		}
	}
	return true
}

// RoundTrip sends req and returns the answer; its body gives the
// connection back once read to its end and closed.
func (t *directTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.direct(req) {
		return t.fallback.RoundTrip(req)
	}
	ctx := req.Context()
	addr := hostPort(req.URL.Host)
	for attempt := 0; ; attempt++ {
		if err := ctx.Err(); err != nil {
			closeRequestBody(req)
			return nil, err
		}
		c, reused, err := t.conn(ctx, addr)
		if err != nil {
			closeRequestBody(req)
			return nil, err
		}
		resp, stale, err := t.exchange(ctx, c, req)
		if err == nil {
			return resp, nil
		}
		_ = c.conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !(reused && stale && attempt == 0 && replayable(req)) {
			return nil, err
		}
		if req, err = rewound(req); err != nil {
			return nil, err
		}
	}
}

// replayable is the Transport's rule for sending a request again after
// a kept-alive connection failed before any answer: a method without
// side effects, or an idempotency key, and a body that can be read again.
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// rewound is req with its body ready to be sent again.
func rewound(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	r := *req
	r.Body = body
	return &r, nil
}

func isConnReset(err error) bool { return errors.Is(err, syscall.ECONNRESET) }

func closeRequestBody(req *http.Request) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
}

// hostPort is host with the http port when it names none.
func hostPort(host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		return host + ":80"
	}
	return net.JoinHostPort(host, "80")
}

// conn returns a kept-alive connection to addr that is still open, or a
// new one; reused says which.
func (t *directTransport) conn(ctx context.Context, addr string) (*directConn, bool, error) {
	now := time.Now()
	t.mu.Lock()
	for list := t.idle[addr]; len(list) > 0; list = t.idle[addr] {
		c := list[len(list)-1]
		list[len(list)-1] = nil
		t.idle[addr] = list[:len(list)-1]
		t.mu.Unlock()
		idle := now.Sub(c.idleSince)
		// Checked before every reuse: the API may have closed it (many
		// close idle connections after 5 s, some right after an answer
		// without saying so), which the Transport's reader goroutine
		// would have noticed at once. One system call that never waits.
		_ = c.conn.SetReadDeadline(time.Time{}) // a past call's deadline must not fail the check
		if idle < idleTimeout && connOpen(c.conn) {
			return c, true, nil
		}
		_ = c.conn.Close()
		t.mu.Lock()
	}
	t.mu.Unlock()
	nc, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, false, err
	}
	c := &directConn{conn: nc, addr: addr}
	c.lim.r = nc
	c.br = bufio.NewReaderSize(&c.lim, 4<<10)
	c.bw = bufio.NewWriterSize(nc, 4<<10)
	return c, false, nil
}

// put keeps c for the next request to its host, within maxIdlePerHost.
func (t *directTransport) put(c *directConn) {
	c.idleSince = time.Now()
	t.mu.Lock()
	if len(t.idle[c.addr]) < maxIdlePerHost {
		t.idle[c.addr] = append(t.idle[c.addr], c)
		c = nil
		if !t.armed {
			t.armed = true
			t.reaper.Reset(reapEvery)
		}
	}
	t.mu.Unlock()
	if c != nil {
		_ = c.conn.Close()
	}
}

// CloseIdleConnections closes the kept-alive connections, these and the
// fallback's.
func (t *directTransport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = map[string][]*directConn{}
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			_ = c.conn.Close()
		}
	}
	t.fallback.CloseIdleConnections()
}

// shallowWithHeader is req with an empty header of its own.
func shallowWithHeader(req *http.Request) *http.Request {
	r := *req
	r.Header = http.Header{}
	return &r
}

// gzipOnly is the Accept-Encoding the Transport adds to a request that
// names none.
var gzipOnly = []string{"gzip"}

// exchange writes req on c and reads the answer's header. stale reports
// a failure before any byte of an answer arrived (the connection was
// closed while idle).
func (t *directTransport) exchange(ctx context.Context, c *directConn, req *http.Request) (*http.Response, bool, error) {
	if d, ok := ctx.Deadline(); ok {
		_ = c.conn.SetDeadline(d)
	} else {
		_ = c.conn.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	gz := req.Header.Get("Accept-Encoding") == "" && req.Header.Get("Range") == "" && req.Method != http.MethodHead
	if gz {
		// As the Transport: ask for gzip, give the caller the plain body.
		// The header is the caller's, changed only while it is written
		// (a copy cost nine allocations per call): the caller waits in
		// RoundTrip, and sees it as it was.
		if req.Header == nil {
			req = shallowWithHeader(req)
		}
		req.Header["Accept-Encoding"] = gzipOnly
	}
	var err error
	if head, plain := appendRequestHead(c.bw.AvailableBuffer(), req); plain {
		_, err = c.bw.Write(head)
	} else {
		err = req.Write(c.bw)
	}
	if gz {
		delete(req.Header, "Accept-Encoding")
	}
	if err == nil {
		err = c.bw.Flush()
	}
	if err != nil {
		if resp, ok := t.earlyAnswer(ctx, c, req); ok {
			return t.answered(ctx, c, resp, stop, gz), false, nil
		}
		stop()
		return nil, true, err
	}
	resp, stale, err := t.readResponse(c, req)
	if err != nil {
		stop()
		return nil, stale, err
	}
	return t.answered(ctx, c, resp, stop, gz), false, nil
}

// answered gives resp a body that hands c back once read to its end
// (unless the answer forbids reuse) and decodes the gzip it asked for.
func (t *directTransport) answered(ctx context.Context, c *directConn, resp *http.Response, stop func() bool, gz bool) *http.Response {
	// No body (204, 304, HEAD): nothing of it is left on the connection.
	body := &directBody{t: t, c: c, ctx: ctx, rc: resp.Body, stop: stop, keep: !resp.Close, eof: resp.Body == http.NoBody}
	resp.Body = body
	if gz && strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") && resp.Body != http.NoBody {
		resp.Header.Del("Content-Encoding")
		resp.Header.Del("Content-Length")
		resp.ContentLength, resp.Uncompressed = -1, true
		resp.Body = &gunzipBody{body: body}
	}
	return resp
}

// earlyAnswerWait bounds the wait for an answer the API may have sent
// before it stopped reading the request: it is already on its way when
// the write fails.
const earlyAnswerWait = 200 * time.Millisecond

// earlyAnswer reads an answer the API sent before the request was
// written whole: an API refusing a body (413, 401) may answer and close
// at once, and the write then fails. The Transport reads answers while
// it writes and returns such an answer; so does this. The connection is
// not reused.
func (t *directTransport) earlyAnswer(ctx context.Context, c *directConn, req *http.Request) (*http.Response, bool) {
	if ctx.Err() != nil {
		return nil, false // the write failed because the call ended
	}
	_ = c.conn.SetReadDeadline(time.Now().Add(earlyAnswerWait))
	resp, _, err := t.readResponse(c, req)
	if err != nil {
		return nil, false
	}
	d, _ := ctx.Deadline() // the body is read within the call's time again
	_ = c.conn.SetReadDeadline(d)
	resp.Close = true
	return resp, true
}

// readResponse reads the answer's header block within its bound,
// skipping informational answers (but 101).
func (t *directTransport) readResponse(c *directConn, req *http.Request) (*http.Response, bool, error) {
	for n := 0; ; n++ {
		c.lim.n, c.lim.limited = maxResponseHeaderBytes, true
		if _, err := c.br.Peek(1); err != nil {
			return nil, n == 0 && (errors.Is(err, io.EOF) || isConnReset(err)), err
		}
		resp, err := http.ReadResponse(c.br, req)
		c.lim.limited = false
		if err != nil {
			if errors.Is(err, errHeaderTooLarge) {
				err = errHeaderTooLarge
			}
			return nil, false, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, false, nil
		}
		if n >= max1xx {
			return nil, false, errTooMany1xx
		}
	}
}

// directBody is an answer's body: read to its end and closed, it gives
// its connection back.
type directBody struct {
	t    *directTransport
	c    *directConn
	ctx  context.Context
	rc   io.ReadCloser
	stop func() bool
	keep bool // the answer allows reuse
	eof  bool
	done bool
}

func (b *directBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("http: read on closed response body")
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil && b.ctx.Err() != nil:
		err = b.ctx.Err() // the poisoned deadline's timeout means this
	}
	return n, err
}

// Close gives the connection back when the body was read to its end
// (net/http's body reports EOF with its last bytes), the answer allows
// it and nothing more is buffered; else it closes it, as the Transport
// does with a body closed early.
func (b *directBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	stopped := b.stop() // false: the context ended, the deadline is poisoned
	_ = b.rc.Close()
	if b.eof && b.keep && stopped && b.c.br.Buffered() == 0 {
		b.t.put(b.c)
		return nil
	}
	return b.c.conn.Close()
}

// gunzipBody decompresses a gzip body on first read.
type gunzipBody struct {
	body *directBody
	zr   *gzip.Reader
	err  error
}

func (g *gunzipBody) Read(p []byte) (int, error) {
	if g.zr == nil && g.err == nil {
		g.zr, g.err = gzip.NewReader(g.body)
	}
	if g.err != nil {
		return 0, g.err
	}
	return g.zr.Read(p)
}

func (g *gunzipBody) Close() error { return g.body.Close() }
