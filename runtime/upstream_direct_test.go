package runtime

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// The direct transport against net/http's Transport: the same requests,
// drawn at random, through both to one real server on 127.0.0.1 that
// answers in every way the transports treat differently (gzip, chunked,
// Connection: close, informational answers, no body, a header block over
// the bound, a connection dropped after the answer); what the server
// received and what the caller got must be the same.

// directDial is the dialer newUpstreamClient gives both transports.
var directDial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext

// newTestTransports returns the transport pair under comparison.
func newTestTransports() (*http.Transport, http.RoundTripper) {
	std := &http.Transport{DialContext: directDial, MaxIdleConnsPerHost: maxIdlePerHost, IdleConnTimeout: idleTimeout, MaxResponseHeaderBytes: maxResponseHeaderBytes}
	return std, newDirectTransport(&http.Transport{DialContext: directDial, MaxResponseHeaderBytes: maxResponseHeaderBytes}, directDial)
}

// seenRequest is what the server received, in a comparable form.
func seenRequest(r *http.Request) string {
	body, _ := io.ReadAll(r.Body)
	var keys []string
	for k := range r.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %s %s host=%s len=%d te=%v\n", r.Method, r.RequestURI, r.Proto, r.Host, r.ContentLength, r.TransferEncoding)
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s: %q\n", k, r.Header[k])
	}
	sb.Write(body)
	return sb.String()
}

// answer writes the answer mode names.
func answer(w http.ResponseWriter, r *http.Request, mode string) {
	w.Header().Set("X-Mode", mode)
	switch mode {
	case "gzip":
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		_, _ = io.WriteString(zw, `{"compressed":true}`)
		_ = zw.Close()
	case "chunked":
		w.WriteHeader(200)
		for i := range 3 {
			_, _ = fmt.Fprintf(w, "part %d;", i)
			w.(http.Flusher).Flush()
		}
	case "close":
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "closing")
	case "early":
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(201)
		_, _ = io.WriteString(w, "after hints")
	case "nocontent":
		w.WriteHeader(204)
	case "bigheader":
		for i := range 40 {
			w.Header().Set(fmt.Sprintf("X-Big-%d", i), strings.Repeat("h", 2000))
		}
		_, _ = io.WriteString(w, "too big")
	case "hangup":
		_, _ = io.WriteString(w, "then gone")
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = c.Close()
		}
	case "status":
		w.WriteHeader(503)
		_, _ = io.WriteString(w, `{"error":"busy"}`)
	default:
		_, _ = io.WriteString(w, `{"id":1,"name":"doggie"}`)
	}
}

var answerModes = []string{"plain", "plain", "gzip", "chunked", "close", "early", "nocontent", "bigheader", "hangup", "status"}

// outcome is what a caller got, in a comparable form.
func outcome(resp *http.Response, err error) string {
	if err != nil {
		if strings.Contains(err.Error(), "exceeded") {
			return "error: header bound"
		}
		return "error: " + err.Error()
	}
	defer resp.Body.Close()
	body, rerr := io.ReadAll(resp.Body)
	var keys []string
	for k := range resp.Header {
		if k != "Date" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d %s len=%d uncompressed=%v close=%v read error=%v\n", resp.StatusCode, resp.Proto, resp.ContentLength, resp.Uncompressed, resp.Close, rerr != nil)
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s: %q\n", k, resp.Header[k])
	}
	sb.Write(body)
	return sb.String()
}

// randomRequest draws a request to base whose answer mode is mode.
func randomRequest(r *rand.Rand, base, mode string) *http.Request {
	method := []string{"GET", "GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"}[r.IntN(7)]
	var body io.Reader
	if method != "GET" && method != "HEAD" && r.IntN(3) > 0 {
		body = bytes.NewReader(bytes.Repeat([]byte(`{"k":"v"}`), 1+r.IntN(500)))
	}
	req, _ := http.NewRequest(method, base+"/p/"+mode+"?q="+fmt.Sprint(r.IntN(100)), body)
	for range r.IntN(4) {
		req.Header.Set([]string{"X-Trace", "x-lower", "Accept", "Authorization", "Idempotency-Key"}[r.IntN(5)], fmt.Sprint("v", r.IntN(9)))
	}
	if r.IntN(8) == 0 {
		req.Header.Set("Accept-Encoding", "identity")
	}
	if r.IntN(10) == 0 {
		req.Close = true
	}
	return req
}

func TestDirectTransportMatchesNetHTTP(t *testing.T) {
	seen := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- seenRequest(r)
		answer(w, r, strings.TrimPrefix(r.URL.Path, "/p/"))
	}))
	defer srv.Close()
	std, direct := newTestTransports()
	defer std.CloseIdleConnections()
	defer direct.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 7))
	deadline := time.Now().Add(20 * time.Second)
	var prev, mode string
	for i := range 400 {
		if time.Now().After(deadline) {
			t.Fatalf("seed %d: 400 requests took over 20 s (stopped at %d)", seed, i)
		}
		prev = mode
		mode = answerModes[r.IntN(len(answerModes))]
		reqSeed := r.Uint64()
		var got [2]string
		var gotSeen [2]string
		for j, rt := range []http.RoundTripper{std, direct} {
			req := randomRequest(rand.New(rand.NewPCG(reqSeed, 1)), srv.URL, mode)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			resp, err := (&http.Client{Transport: rt}).Do(req.WithContext(ctx))
			got[j] = outcome(resp, err)
			cancel()
			select {
			case gotSeen[j] = <-seen:
			case <-time.After(5 * time.Second):
				gotSeen[j] = "nothing"
			}
		}
		if mode == "hangup" {
			// The API hung up after a whole answer (one to HEAD has no
			// body) without saying so: both transports must have seen
			// the connection end before the next request, which takes
			// the FIN's arrival.
			time.Sleep(20 * time.Millisecond)
		}
		if got[0] != got[1] || gotSeen[0] != gotSeen[1] {
			t.Fatalf("seed %d, request %d (answer %s, previous %s): net/http and the direct transport differ\nserver saw, net/http:\n%s\nserver saw, direct:\n%s\ncaller got, net/http:\n%s\ncaller got, direct:\n%s",
				seed, i, mode, prev, gotSeen[0], gotSeen[1], got[0], got[1])
		}
	}
}

// TestDirectTransportReusesConnections: sequential calls share one
// connection, as with the Transport (a dial per call would be a
// regression no output comparison shows).
func TestDirectTransportReusesConnections(t *testing.T) {
	conns := 0
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { answer(w, r, "plain") }))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns++
		}
	}
	srv.Start()
	defer srv.Close()
	_, direct := newTestTransports()
	c := &http.Client{Transport: direct}
	for range 50 {
		resp, err := c.Get(srv.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if conns != 1 {
		t.Fatalf("50 sequential calls opened %d connections, want 1", conns)
	}
}

// TestDirectTransportIdleClosedByAPI: an API that closes kept-alive
// connections after a short idle time (as Node's 5 s default does) must
// not fail the next call, a POST without idempotency key included,
// which cannot be sent twice.
func TestDirectTransportIdleClosedByAPI(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	requests := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				requests <- req.Method
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				time.Sleep(50 * time.Millisecond) // idle, then the API hangs up without saying so
			}(c)
		}
	}()
	_, direct := newTestTransports()
	c := &http.Client{Transport: direct, Timeout: 5 * time.Second}
	for i, method := range []string{"GET", "POST", "POST", "GET"} {
		if i > 0 {
			time.Sleep(200 * time.Millisecond)
		}
		req, _ := http.NewRequest(method, "http://"+ln.Addr().String()+"/", strings.NewReader("body"))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("call %d (%s) after the API closed the idle connection: %v", i, method, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" {
			t.Fatalf("call %d: body %q", i, b)
		}
		if m := <-requests; m != method {
			t.Fatalf("call %d: the API got %s, want %s", i, m, method)
		}
	}
	select {
	case m := <-requests:
		t.Fatalf("the API got a request twice (%s)", m)
	default:
	}
}

// TestDirectTransportCancel: a cancelled call ends promptly with the
// context's error, before and during the body, and the connection is
// not reused with a poisoned deadline.
func TestDirectTransportCancel(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slowbody" {
			w.Header().Set("Content-Length", "10")
			_, _ = io.WriteString(w, "12345")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, direct := newTestTransports()
	c := &http.Client{Transport: direct}
	for _, path := range []string{"/slowhead", "/slowbody"} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+path, nil)
		resp, err := c.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if !errorsIsCanceled(err) {
			t.Fatalf("%s: cancelled call ended with %v, want context.Canceled", path, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Fatalf("%s: the cancelled call took %v", path, d)
		}
	}
}

func errorsIsCanceled(err error) bool {
	return err != nil && (strings.Contains(err.Error(), context.Canceled.Error()))
}

// TestDirectTransportReapsClosedIdle: a kept-alive connection the API
// closes while idle is closed here within about reapEvery, not held
// until the next call (the Transport's reader goroutine closes it at
// once); one still open is kept.
func TestDirectTransportReapsClosedIdle(t *testing.T) {
	closing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer closing.Close()
	open := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") }))
	defer open.Close()
	_, rt := newTestTransports()
	direct := rt.(*directTransport)
	c := &http.Client{Transport: direct}
	for _, u := range []string{closing.URL, open.URL} {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	closing.CloseClientConnections() // the API hangs up on its idle connection
	idle := func(u string) int {
		direct.mu.Lock()
		defer direct.mu.Unlock()
		return len(direct.idle[hostPort(strings.TrimPrefix(u, "http://"))])
	}
	deadline := time.Now().Add(reapEvery + 3*time.Second)
	for idle(closing.URL) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a connection the API closed was still kept after %v", reapEvery+3*time.Second)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if idle(open.URL) != 1 {
		t.Fatalf("the open idle connection was not kept (%d kept)", idle(open.URL))
	}
}
