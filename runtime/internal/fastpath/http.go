package fastpath

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
)

// The Streamable HTTP fast path. For every stateless POST the SDK decodes
// the body twice, builds and tears down a session with its goroutines,
// validates the request _meta and the Mcp-* headers, and decodes the
// params again: about 0.4 ms of CPU and 300 KiB of garbage per call,
// several times what the call costs in the runtime. Server.HTTPHandler
// therefore puts HTTP in front of the SDK's handler: it serves the
// tools/call POSTs whose outcome is already known to be the SDK's and
// writes the response the SDK would, byte for byte; every other request
// goes to the SDK unchanged.
//
// The first POST of each shape goes to the SDK, and its answer teaches
// the fast path. A shape (shapeCache, which keeps a keyed digest of it,
// never the headers) is everything the SDK's handling of a tools/call
// depends on besides the id and the arguments: the request line, Host,
// every header but a few that vary per call and that the SDK does not
// read (Content-Length, trace context, X-Request-Id), the TLS state and
// local address, the tool's name and the protocol fields of _meta. A
// shape is learned from a 200 answer whose body is one JSON-RPC result
// for that request's id; the fast path then writes the same headers and
// framing, and names the server or adds resultType "complete" exactly
// when the SDK did for that shape. Lines qualify as on the stdio fast
// path (parseFastCall), tools as Host.Tool(name, true) says (the host
// leaves to the SDK the tools whose input schema has x-mcp-header
// annotations: their headers are checked against the arguments).
//
// TestHTTPFastPathMatchesSDK (package runtime) sends one script through
// both paths and compares status, headers and bodies.

// HTTP serves qualifying POSTs of a Streamable HTTP handler, and passes
// every other request to the SDK's.
type HTTP struct {
	host    Host
	next    http.Handler // the SDK's handler
	shapes  *shapeCache
	results *resultEncoder
}

// NewHTTP serves the qualifying POSTs in front of next, the SDK's
// handler, with a shape cache of at most maxBytes (0: the default).
func NewHTTP(host Host, next http.Handler, maxBytes int) *HTTP {
	if maxBytes <= 0 {
		maxBytes = httpFastMaxBytes
	}
	return &HTTP{host: host, next: next, shapes: newShapeCache(maxBytes), results: newResultEncoder(host.Impl())}
}

// CacheUsage is the bytes and shapes the shape cache holds.
func (h *HTTP) CacheUsage() (bytes, shapes int) { return h.shapes.usage() }

// EachCachedShape calls fn with the headers and the suffix of each shape
// the cache holds: what a test reads to check they hold no request's
// header values.
func (h *HTTP) EachCachedShape(fn func(header http.Header, suffix []byte)) {
	h.shapes.each(func(s *httpShape) { fn(s.header, s.suffix) })
}

// httpShape is how the SDK answered a tools/call of one shape.
type httpShape struct {
	header   http.Header // but Content-Length and Date
	suffix   []byte      // after the JSON-RPC object (a newline)
	annotate bool        // the result named the server in _meta
	complete bool        // the result carried resultType "complete"
}

// httpSkippedHeaders vary per call and are not read by the SDK (the tool
// handler gets them all).
var httpSkippedHeaders = map[string]bool{"Content-Length": true, "Traceparent": true, "Tracestate": true, "X-Request-Id": true}

func (h *HTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Body == nil || h.host.Paused() {
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, fastMaxLine+1))
	rest := r.Body
	r.Body = readCloser{io.MultiReader(bytes.NewReader(body), errorReader(err), rest), rest}
	if err != nil || len(body) > fastMaxLine {
		h.next.ServeHTTP(w, r)
		return
	}
	c, ok := parseFastCall(body)
	if !ok {
		h.next.ServeHTTP(w, r)
		return
	}
	handler := h.host.Tool(c.name, true)
	if handler == nil {
		h.next.ServeHTTP(w, r)
		return
	}
	key := h.shapes.digest(r, c)
	shape := h.shapes.get(key)
	if shape == nil {
		rec := &recorder{ResponseWriter: w}
		h.next.ServeHTTP(rec, r)
		h.learn(key, c, rec)
		return
	}
	h.serve(w, r, handler, c, shape)
}

// serve runs one call and writes the response the SDK would.
func (h *HTTP) serve(w http.ResponseWriter, r *http.Request, handler Handler, c *fastCall, shape *httpShape) {
	h.host.Enter()
	defer h.host.Leave()
	res, err := handler(r.Context(), &Call{Name: c.name, Args: c.args, Meta: c.meta, HTTP: r})
	buf := h.results.getBuffer()
	defer h.results.putBuffer(buf)
	line, err := h.results.encode((*buf)[:0], c, res, err, shape.annotate, shape.complete)
	if err != nil {
		http.Error(w, "cannot encode the tool result: "+err.Error(), http.StatusInternalServerError)
		return
	}
	for k, v := range shape.header {
		w.Header()[k] = v
	}
	w.WriteHeader(http.StatusOK)
	line = append(line, shape.suffix...)
	_, _ = w.Write(line)
	*buf = line
}

// learn records the shape of an SDK answer that was one JSON-RPC result
// for c's id, with status 200.
func (h *HTTP) learn(key shapeDigest, c *fastCall, rec *recorder) {
	if rec.status != http.StatusOK || rec.overflow {
		return
	}
	body := rec.body.Bytes()
	end := bytes.LastIndexByte(body, '}')
	if end < 0 || len(bytes.TrimSpace(body[end+1:])) > 0 || !json.Valid(body[:end+1]) {
		return
	}
	var id, result []byte
	var version string
	if !plainjson.EachMember(body[:end+1], func(k, v []byte) bool {
		switch string(k) {
		case "jsonrpc":
			version = string(v)
		case "id":
			id = v
		case "result":
			result = v
		default:
			return false
		}
		return true
	}) || version != `"2.0"` || string(id) != c.idKey || len(result) == 0 || result[0] != '{' {
		return
	}
	shape := &httpShape{header: rec.header, suffix: append([]byte(nil), body[end+1:]...)}
	var meta []byte
	plainjson.EachMember(result, func(k, v []byte) bool {
		switch string(k) {
		case "resultType":
			shape.complete = string(v) == `"complete"`
		case "_meta":
			meta = v
		}
		return true
	})
	if meta != nil {
		plainjson.EachMember(meta, func(k, _ []byte) bool {
			shape.annotate = shape.annotate || string(k) == mcp.MetaKeyServerInfo
			return true
		})
	}
	h.shapes.put(key, shape)
}

func localAddr(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(interface{ String() string }); ok && a != nil {
		return a.String()
	}
	return ""
}

func tlsState(r *http.Request) string {
	if r.TLS != nil {
		return "tls"
	}
	return ""
}

// recorder passes a response through and keeps its status, headers and
// first fastMaxLine bytes of body.
type recorder struct {
	http.ResponseWriter
	status   int
	header   http.Header
	body     bytes.Buffer
	overflow bool
}

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
		rec.header = rec.ResponseWriter.Header().Clone()
		delete(rec.header, "Content-Length")
		delete(rec.header, "Date")
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(p []byte) (int, error) {
	if rec.status == 0 {
		rec.WriteHeader(http.StatusOK)
	}
	if rec.body.Len()+len(p) > fastMaxLine {
		rec.overflow = true
	} else {
		rec.body.Write(p)
	}
	return rec.ResponseWriter.Write(p)
}

// Flush lets an event stream through; a flushed answer is not learned.
func (rec *recorder) Flush() {
	rec.overflow = true
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// readCloser reads the body already read followed by the rest, and
// closes the original.
type readCloser struct {
	io.Reader
	io.Closer
}

// errorReader fails with err after the bytes read before it (nil: EOF,
// so the rest of the body follows).
func errorReader(err error) io.Reader {
	if err == nil {
		return strings.NewReader("")
	}
	return failingReader{err}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
