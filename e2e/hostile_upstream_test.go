//go:build linux && e2e

package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A hostile upstream: a raw TCP server on 127.0.0.1 that reads each HTTP
// request and answers it the way the current fault says, byte for byte
// (lying lengths, drips, hangs, resets, bombs, redirects), which no
// well-behaved http.Server would do. A second listener, the "foreign"
// host of cross-origin redirects, records every byte it receives on the
// wire.

// fault is one way of answering badly. The zero value of each field is
// the harmless choice, which is what minimising a failing case falls
// back to.
type fault struct {
	Status     int    // HTTP status (0: 200)
	Body       string // body shape: see hostileBody
	Length     string // Content-Length: "" exact, "none" (close-delimited), "chunked", "1e9", "1e11", "max", "more", "less"
	Timing     string // "" at once, "drip" (a byte per 50 ms), "hang" (headers, then nothing), "reset" (RST mid-body)
	RetryAfter string // Retry-After value; "" none
	BigHeaders bool   // 9 MB of response headers
	Redirect   string // "" none, "foreign" (to the other port), "loop" (to itself), "chain" (same origin, then foreign)
}

func (f fault) String() string {
	return fmt.Sprintf("%+v", struct {
		Status                                     int
		Body, Length, Timing, RetryAfter, Redirect string
		BigHeaders                                 bool
	}{f.Status, f.Body, f.Length, f.Timing, f.RetryAfter, f.Redirect, f.BigHeaders})
}

// hostileUpstream serves the current fault to every request.
type hostileUpstream struct {
	t        *testing.T
	ln       net.Listener
	foreign  *wireRecorder
	current  atomic.Pointer[fault]
	requests atomic.Int64
	mu       sync.Mutex
	headers  []http.Header // what each request carried
	bomb     []byte        // gzip of 100 MB of zeros
}

func startHostileUpstream(t *testing.T) *hostileUpstream {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	h := &hostileUpstream{t: t, ln: ln, foreign: startWireRecorder(t), bomb: gzipBomb(100 << 20)}
	h.set(fault{})
	go h.serve()
	t.Cleanup(func() { ln.Close() })
	return h
}

// baseURL is the upstream's base URL for the generated server.
func (h *hostileUpstream) baseURL() string { return "http://" + h.ln.Addr().String() + "/api/v3" }

// set makes every following request get f.
func (h *hostileUpstream) set(f fault) {
	h.current.Store(&f)
	h.requests.Store(0)
}

func (h *hostileUpstream) serve() {
	for {
		c, err := h.ln.Accept()
		if err != nil {
			return
		}
		go h.answer(c)
	}
}

// answer reads one request and sends the current fault's answer. Every
// connection ends within 30 s whatever the client does.
func (h *hostileUpstream) answer(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	req, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil {
		return
	}
	h.requests.Add(1)
	h.mu.Lock()
	h.headers = append(h.headers, req.Header.Clone())
	h.mu.Unlock()
	f := *h.current.Load()
	w := bufio.NewWriterSize(c, 64<<10)
	status := f.Status
	if status == 0 {
		status = 200
	}
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nConnection: close\r\n", status, http.StatusText(status))
	if loc := h.location(f, req); loc != "" {
		fmt.Fprintf(w, "Location: %s\r\n", loc)
	}
	if f.RetryAfter != "" {
		fmt.Fprintf(w, "Retry-After: %s\r\n", f.RetryAfter)
	}
	if f.BigHeaders {
		pad := strings.Repeat("a", 8000)
		for i := 0; i < 9<<20/8000; i++ {
			if _, err := fmt.Fprintf(w, "X-Pad-%d: %s\r\n", i, pad); err != nil {
				return
			}
		}
	}
	body, ctype, gz := h.body(f)
	if f.Timing == "drip" {
		// Long enough that the drip outlasts any tool timeout.
		body = bytes.Repeat(body, 400/len(body)+1)
	}
	if ctype != "" {
		fmt.Fprintf(w, "Content-Type: %s\r\n", ctype)
	}
	if gz {
		w.WriteString("Content-Encoding: gzip\r\n")
	}
	chunked := f.Length == "chunked" || f.Body == "huge"
	switch {
	case chunked:
		w.WriteString("Transfer-Encoding: chunked\r\n")
	case f.Length == "none":
	default:
		fmt.Fprintf(w, "Content-Length: %s\r\n", declaredLength(f.Length, len(body)))
	}
	w.WriteString("\r\n")
	if w.Flush() != nil {
		return
	}
	switch f.Timing {
	case "hang":
		io.Copy(io.Discard, c) // until the client gives up
		return
	case "drip":
		for i := 0; i < 400; i++ {
			if _, err := c.Write(body[i%len(body) : i%len(body)+1]); err != nil {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		return
	case "reset":
		c.Write(body[:len(body)/2])
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0) // Close sends RST
		}
		return
	}
	if f.Body == "huge" {
		chunk := bytes.Repeat([]byte("[1,"), 64<<10/3)
		for sent := 0; sent < 100<<20; sent += len(chunk) {
			if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
				return
			}
		}
		fmt.Fprint(c, "0\r\n\r\n")
		return
	}
	if chunked {
		fmt.Fprintf(c, "%x\r\n%s\r\n0\r\n\r\n", len(body), body)
		return
	}
	c.Write(body)
}

// location is the Location header of a redirect fault.
func (h *hostileUpstream) location(f fault, req *http.Request) string {
	foreign := "http://" + h.foreign.ln.Addr().String() + "/steal?from=" + req.URL.Path
	switch f.Redirect {
	case "foreign":
		return foreign
	case "loop":
		n, _ := strconv.Atoi(req.URL.Query().Get("n"))
		return fmt.Sprintf("%s?n=%d", req.URL.Path, n+1)
	case "chain":
		if strings.HasPrefix(req.URL.Path, "/hop") {
			return foreign
		}
		return "/hop" + req.URL.Path
	}
	return ""
}

// body returns the body bytes of f, its content type and whether it is
// gzip-encoded.
func (h *hostileUpstream) body(f fault) ([]byte, string, bool) {
	switch f.Body {
	case "html":
		return []byte("<!DOCTYPE html><html><head><title>Gateway Error</title></head><body><h1>Bad gateway</h1><p>" +
			strings.Repeat("upstream trouble ", 200) + "</p></body></html>"), "text/html; charset=utf-8", false
	case "invalid-utf8":
		return []byte("\xff\xfe\xfd{\"message\": \"\xc3\x28 broken \xe2\x82\"}"), "application/json", false
	case "gzip-bomb":
		return h.bomb, "application/json", true
	case "huge":
		return []byte("[1,"), "application/json", false
	case "good":
		return []byte(`{"available": 3, "sold": 1}`), "application/json", false
	case "json-error":
		return []byte(`{"code":"E42","message":"the upstream says no"}`), "application/json", false
	}
	// Invalid JSON that a 2xx cannot turn into a result.
	return []byte(`{"available": [1, 2, {"broken": `), "application/json", false
}

// declaredLength is the Content-Length a fault declares for n real bytes.
func declaredLength(mode string, n int) string {
	switch mode {
	case "1e9":
		return "1000000000"
	case "1e11":
		return "100000000000"
	case "max":
		return "9223372036854775807"
	case "more":
		return strconv.Itoa(n + 4096)
	case "less":
		return strconv.Itoa(max(n/2, 1))
	}
	return strconv.Itoa(n)
}

// gzipBomb compresses n zero bytes (about 1000:1).
func gzipBomb(n int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for i := 0; i < n; i += len(zero) {
		zw.Write(zero)
	}
	zw.Close()
	return b.Bytes()
}

// wireRecorder is a TCP listener that records every byte sent to it.
type wireRecorder struct {
	ln    net.Listener
	mu    sync.Mutex
	conns int
	wire  bytes.Buffer
}

func startWireRecorder(t *testing.T) *wireRecorder {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	r := &wireRecorder{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go r.record(c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return r
}

func (r *wireRecorder) record(c net.Conn) {
	defer c.Close()
	r.mu.Lock()
	r.conns++
	r.mu.Unlock()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		r.mu.Lock()
		r.wire.Write(buf[:n])
		r.mu.Unlock()
		if bytes.Contains(buf[:n], []byte("\r\n\r\n")) {
			body := `{"available":"FOREIGN-BODY"}`
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
			return
		}
		if err != nil {
			return
		}
	}
}

// received is what the recorder got so far: connections and bytes.
func (r *wireRecorder) received() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns, r.wire.String()
}
