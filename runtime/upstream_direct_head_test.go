package runtime

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestRequestHeadIsRequestWrite: for any request, seeded random over the
// fields Request.Write reads (methods, hosts, URLs with escapes and
// control bytes, header keys canonical or not, invalid or written by
// net/http itself, values with CR, LF and white space, bodies, Close,
// trailers, a client trace), appendRequestHead either declines or writes
// exactly what req.Write writes; it never accepts a request req.Write
// refuses, and it takes at least a third of them. A failure is shrunk to
// the fewest header fields.
func TestRequestHeadIsRequestWrite(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	taken := 0
	const n = 20000
	for i := 0; i < n; i++ {
		spec := randomRequestSpec(r)
		if bad := headMismatch(spec); bad != "" {
			spec = shrinkRequestSpec(spec)
			t.Fatalf("seed %d, request %d: %+v: %s", seed, i, spec, headMismatch(spec))
		}
		if _, ok := appendRequestHead(nil, spec.build()); ok {
			taken++
		}
	}
	if taken < n/3 {
		t.Fatalf("seed %d: appendRequestHead wrote %d of %d requests, want the plain ones (a third at least)", seed, taken, n)
	}
}

// requestSpec is a random request as data, so that a failure can be
// shrunk and printed.
type requestSpec struct {
	Method, Host, URL string
	Opaque            string      // set as URL.Opaque when not empty: a request URI url.Parse never makes
	Header            [][2]string // key, value; a value "\x00none" makes an empty slice
	Body              string
	BodySet, Close    bool
	Trailer, Trace    bool
}

func (s requestSpec) build() *http.Request {
	u, err := url.Parse(s.URL)
	if err != nil {
		u = &url.URL{Scheme: "http", Host: "h", Path: "/"}
	}
	if s.Opaque != "" {
		u.Opaque = s.Opaque
	}
	req := &http.Request{Method: s.Method, URL: u, Host: s.Host, Header: http.Header{}, Close: s.Close, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	for _, kv := range s.Header {
		if kv[1] == "\x00none" {
			req.Header[kv[0]] = []string{}
			continue
		}
		req.Header[kv[0]] = append(req.Header[kv[0]], kv[1])
	}
	if s.BodySet {
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(s.Body)), int64(len(s.Body))
	}
	if s.Trailer {
		req.Trailer = http.Header{"X-Sum": nil}
	}
	ctx := context.Background()
	if s.Trace {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{})
	}
	return req.WithContext(ctx)
}

// headMismatch is "" when appendRequestHead agrees with req.Write on s.
func headMismatch(s requestSpec) string {
	got, ok := appendRequestHead(nil, s.build())
	var want bytes.Buffer
	err := s.build().Write(&want)
	switch {
	case !ok:
		return ""
	case err != nil:
		return "accepted a request Request.Write refuses: " + err.Error()
	case string(got) != want.String():
		return "wrote\n" + strings.ReplaceAll(string(got), "\r\n", "⏎\n") + "Request.Write wrote\n" + strings.ReplaceAll(want.String(), "\r\n", "⏎\n")
	}
	return ""
}

func shrinkRequestSpec(s requestSpec) requestSpec {
	for i := 0; i < len(s.Header); i++ {
		try := s
		try.Header = append(append([][2]string{}, s.Header[:i]...), s.Header[i+1:]...)
		if headMismatch(try) != "" {
			s, i = try, i-1
		}
	}
	return s
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func randomRequestSpec(r *rand.Rand) requestSpec {
	methods := []string{"", "GET", "GET", "GET", "HEAD", "DELETE", "POST", "PUT", "PATCH", "OPTIONS", "PROPFIND", "get", "BAD METHOD", "G\x00T"}
	hosts := []string{"", "", "", "", "", "api.example.com", "127.0.0.1:8080", "[::1]:9", "[fe80::1%25eth0]:80", "bücher.example", "h_o.st", "a b", "x\r\ny"}
	urls := []string{"http://api.example.com/v1/pets/1", "http://127.0.0.1:8080/pet/1?x=1&y=%20z", "http://h/a%2Fb/c?q=caf%C3%A9",
		"http://h/", "http://h", "http://h/p?", "http://h/%7E/x#frag", "http://user:pw@h/private", "http://[::1]:9/x", "http://bücher.example/",
		"http://h/a b", "http://h/ctl%00", "http://h/ctl\x7f", "/relative/only", "http://h/" + strings.Repeat("s", 300)}
	keys := []string{"Accept", "Accept", "X-Api-Key", "Authorization", "accept", "x-lower", "Content-Type", "User-Agent", "user-agent",
		"Host", "Content-Length", "Transfer-Encoding", "Trailer", "Connection", "Bad Key", "x:y", "", "Ü", "X-Dup", "Mcp-Param-Id", "Traceparent"}
	values := []string{"application/json", "", " padded\t", "a\r\nInjected: 1", "line\nbreak", "\r", "tab\tinside", "café",
		"Bearer abc.def", "\x00none", "  ", "x\x00y", strings.Repeat("v", 100)}
	s := requestSpec{Method: pick(r, methods), Host: pick(r, hosts), URL: pick(r, urls)}
	if r.IntN(8) == 0 {
		s.Opaque = pick(r, []string{"/opaque/path", "/ctl\x01", "/del\x7f", "//other.host/x", "/tab\tx"})
	}
	for n := r.IntN(7); n > 0; n-- {
		s.Header = append(s.Header, [2]string{pick(r, keys), pick(r, values)})
	}
	switch r.IntN(20) {
	case 0:
		s.BodySet, s.Body = true, `{"a":1}`
	case 1:
		s.BodySet = true
	case 2:
		s.Close = true
	case 3:
		s.Trailer = true
	case 4:
		s.Trace = true
	}
	return s
}
