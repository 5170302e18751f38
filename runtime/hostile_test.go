package runtime

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// Unit tests of the upstream-facing defences; e2e/hostile_test.go drives
// the same defences in a generated server process.

// panicTransport panics on /boom, as a faulty hand-written transport
// might, and answers everything else.
type panicTransport struct{}

func (panicTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/boom" {
		panic("transport fault")
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"ok":true}`)), Request: r}, nil
}

// TestStepPanicIsToolError: a panic in a step goroutine (steps run
// concurrently, outside the call's own recover) fails that call with an
// internal_error result, and the server goes on serving.
func TestStepPanicIsToolError(t *testing.T) {
	get := func(p string) Operation { return Operation{Method: "GET", Path: p} }
	def := &ServerDef{Name: "p", Tools: []*Tool{
		{Name: "two", InputSchema: `{"type":"object"}`, Steps: []Step{{ID: "a", Op: get("/ok")}, {ID: "b", Op: get("/boom")}}},
		{Name: "one", InputSchema: `{"type":"object"}`, Op: &Operation{Method: "GET", Path: "/ok"}},
	}}
	srv, err := NewServer(def, Options{BaseURL: "http://127.0.0.1:9", HTTPClient: &http.Client{Transport: panicTransport{}}, Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		res, err := srv.CallTool(context.Background(), "two", map[string]any{})
		if err != nil || !res.IsError || !strings.Contains(resultText(res), "error kind: internal_error") {
			t.Fatalf("panicking step: err %v, result %q", err, resultText(res))
		}
	}
	res, err := srv.CallTool(context.Background(), "one", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("after the panics the server does not serve: %v %q", err, resultText(res))
	}
}

// TestParseRetryAfterBounded: any Retry-After, seeded random or odd by
// hand, reads as no value or as seconds in [0, maxRetryAfterSeconds], and
// a value over the retry cap is never waited.
func TestParseRetryAfterBounded(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	odd := []string{"9223372036854775807", "9223372036854775808", "99999999999999999999", "-1", "-9223372036854775808",
		"1.5", "1e3", "0x10", " 7 ", "", "soon", "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
		"Tue, 01 Dec 2026 12:00:30 GMT", "86400", "86401", strings.Repeat("9", 500)}
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := 0; i < 500; i++ {
		odd = append(odd, randomRetryAfter(r, now))
	}
	p := retryPolicy{allowed: true, max: 3, base: 100 * time.Millisecond, maxWait: 3 * time.Second}
	for _, h := range odd {
		secs, ok := parseRetryAfter(h, now)
		if ok && (secs < 0 || secs > maxRetryAfterSeconds) {
			t.Fatalf("seed %d: Retry-After %q reads as %d s, outside [0, %d]", seed, h, secs, maxRetryAfterSeconds)
		}
		if !ok {
			continue
		}
		d, retry := p.wait(0, &callError{retryable: true, retryAfter: secs}, time.Time{})
		if retry && (d < 0 || d > p.maxWait) {
			t.Fatalf("seed %d: Retry-After %q (%d s) waits %v, cap %v", seed, h, secs, d, p.maxWait)
		}
		if secs > 3 && retry {
			t.Fatalf("seed %d: Retry-After %q (%d s) over the cap is retried after %v", seed, h, secs, d)
		}
	}
	if secs, _ := parseRetryAfter("9223372036854775807", now); secs != maxRetryAfterSeconds {
		t.Errorf("int64-max Retry-After reads as %d, want the clamp %d", secs, maxRetryAfterSeconds)
	}
}

func randomRetryAfter(r *rand.Rand, now time.Time) string {
	switch r.IntN(4) {
	case 0:
		return fmt.Sprint(r.Int64())
	case 1:
		return fmt.Sprint(-r.Int64N(1 << 40))
	case 2:
		return now.Add(time.Duration(r.Int64N(1<<62) - 1<<61)).UTC().Format(http.TimeFormat)
	}
	b := make([]byte, r.IntN(12))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

// TestReadUpstreamBodyNeverSizedByHeader: whatever Content-Length an
// answer declares, for any status, the reader keeps at most limit+1
// bytes and allocates for what arrived, not for what was declared.
func TestReadUpstreamBodyNeverSizedByHeader(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	const limit = 1 << 16
	for i := 0; i < 300; i++ {
		status := []int{200, 201, 299, 302, 400, 404, 500, 503}[r.IntN(8)]
		sent := r.IntN(3 * limit)
		declared := []int64{-1, 0, int64(sent), 1e9, 1e11, 1<<63 - 1}[r.IntN(6)]
		resp := &http.Response{StatusCode: status, ContentLength: declared, Header: http.Header{},
			Body: io.NopCloser(bytes.NewReader(make([]byte, sent)))}
		b, err := readUpstreamBody(resp, limit)
		ok := status < 300
		if ok && declared > limit {
			if err == nil {
				t.Fatalf("seed %d: 2xx declaring %d bytes over the limit read without error", seed, declared)
			}
			continue
		}
		keep := int64(limit)
		if !ok {
			keep = min(limit, maxErrorBodyBytes)
		}
		if int64(len(b.data)) > keep || int64(cap(b.data)) > 2*(keep+512) {
			t.Fatalf("seed %d: status %d, declared %d, sent %d: kept %d bytes, capacity %d (limit %d)", seed, status, declared, sent, len(b.data), cap(b.data), keep)
		}
	}
}

// wireListener records the bytes every connection sends it and answers
// with a body of its own.
type wireListener struct {
	ln   net.Listener
	mu   sync.Mutex
	wire bytes.Buffer
}

func newWireListener(t *testing.T) *wireListener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &wireListener{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					w.mu.Lock()
					w.wire.Write(buf[:n])
					done := bytes.Contains(w.wire.Bytes(), []byte("\r\n\r\n"))
					w.mu.Unlock()
					if done {
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\nConnection: close\r\n\r\n{\"from\":\"other\"}\n")
						return
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return w
}

func (w *wireListener) received() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wire.String()
}

// TestRedirectPolicy: a redirect to another port is refused, naming the
// host and the override setting, and the other port receives nothing;
// listed in RedirectHosts, it is followed, and what reaches the wire
// there carries no credential, no caller header and no Referer.
func TestRedirectPolicy(t *testing.T) {
	other := newWireListener(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+other.ln.Addr().String()+"/landing", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(up.Close)
	def := func(hosts []string) *ServerDef {
		return &ServerDef{Name: "r", RedirectHosts: hosts,
			Security: []SecurityScheme{{Name: "k", Kind: "apiKey", In: "header", ParamName: "X-Api-Key", EnvVar: "R_KEY"}},
			Tools: []*Tool{{Name: "get", InputSchema: `{"type":"object","properties":{"customer":{"type":"string"}}}`,
				Op: &Operation{Method: "GET", Path: "/x", Security: [][]string{{"k"}},
					Params: []Param{{Name: "X-Customer-Id", Arg: "customer", In: "header", Style: "simple"}}}}}}
	}
	env := func(k string) string {
		if k == "R_KEY" {
			return "secret-key-123456"
		}
		return ""
	}
	call := func(hosts []string) string {
		srv, err := NewServer(def(hosts), Options{BaseURL: up.URL + "/?q=querysecret", Getenv: env, Logger: discardLogger()})
		if err != nil {
			t.Fatal(err)
		}
		res, err := srv.CallTool(context.Background(), "get", map[string]any{"customer": "cust-42"})
		if err != nil {
			t.Fatal(err)
		}
		return resultText(res)
	}
	if text := call(nil); !strings.Contains(text, other.ln.Addr().String()) || !strings.Contains(text, "server.allow_redirect_hosts") {
		t.Errorf("refused redirect: the text does not name the host and the setting: %q", text)
	}
	if got := other.received(); got != "" {
		t.Fatalf("the other origin received a refused redirect:\n%s", got)
	}
	text := call([]string{other.ln.Addr().String()})
	if !strings.Contains(text, "other") {
		t.Errorf("allowed redirect: want the other host's answer, got %q", text)
	}
	got := strings.ToLower(other.received())
	if got == "" {
		t.Fatal("allowed redirect: the other host received nothing")
	}
	for _, leak := range []string{"secret-key-123456", "x-api-key", "cust-42", "x-customer-id", "referer", "querysecret"} {
		if strings.Contains(got, leak) {
			t.Errorf("the other origin received %q:\n%s", leak, got)
		}
	}
}
