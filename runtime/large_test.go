package runtime

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// bigUpstream answers /big with a JSON list of 3,000 objects (about
// 300 KB), /huge with 15,000 (over the 1 MiB response limit) and /small
// with a short one.
func bigUpstream(t *testing.T) string {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		n := 3000
		switch r.URL.Path {
		case "/small":
			n = 2
		case "/huge":
			n = 15000 // about 1.5 MB, over the response limit
		}
		var b strings.Builder
		b.WriteString(`{"items":[`)
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"name":"item number %d","note":"%s"}`, i, i, strings.Repeat("z", 60))
		}
		b.WriteString(`]}`)
		w.Write([]byte(b.String()))
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestLargeResultLink: a result over the size limit gives its first part
// and a resource link; resources/read serves the whole to the caller that
// made the call, to nobody else, and not after it expired. A tool with an
// output schema keeps its structured content.
func TestLargeResultLink(t *testing.T) {
	clock := &movingClock{t: time.Now()}
	def := &ServerDef{Name: "big", Tools: []*Tool{
		{Name: "big", InputSchema: `{"type":"object"}`, Op: &Operation{Method: "GET", Path: "/big"}},
		{Name: "big_typed", InputSchema: `{"type":"object"}`, OutputSchema: `{"type":"object","properties":{"items":{"type":"array"}}}`, Op: &Operation{Method: "GET", Path: "/big"}},
	}}
	srv, err := NewServer(def, Options{BaseURL: bigUpstream(t), Now: clock.Now, Auth: &AuthOptions{Tokens: map[string]Caller{
		"token-of-ann-0123456789": {Subject: "ann"}, "token-of-bob-0123456789": {Subject: "bob"}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	ann, bob := httpSession(t, hs.URL, "token-of-ann-0123456789"), httpSession(t, hs.URL, "token-of-bob-0123456789")
	ctx := context.Background()
	for _, tool := range []string{"big", "big_typed"} {
		res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %s", tool, err, clipText(resultText(res)))
		}
		text := resultText(res)
		if len(text) > maxReturnBytes+1024 || !strings.Contains(text, "[This is the first 100 KiB") {
			t.Errorf("%s: text of %d bytes: %s", tool, len(text), clipText(text))
		}
		var link *mcp.ResourceLink
		for _, c := range res.Content {
			if l, ok := c.(*mcp.ResourceLink); ok {
				link = l
			}
		}
		if link == nil || !strings.HasPrefix(link.URI, resultScheme) || link.Size == nil || *link.Size < 200_000 {
			t.Fatalf("%s: no resource link to the whole: %+v", tool, link)
		}
		if (res.StructuredContent != nil) != (tool == "big_typed") {
			t.Errorf("%s: structured content present = %v", tool, res.StructuredContent != nil)
		}
		whole, err := ann.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
		if err != nil || len(whole.Contents) != 1 || int64(len(whole.Contents[0].Text)) != *link.Size || !strings.HasSuffix(whole.Contents[0].Text, `]}`) {
			t.Fatalf("%s: the owner cannot read the whole: %v", tool, err)
		}
		if whole.CacheScope != "private" {
			t.Errorf("%s: the owner's result has cacheScope %q; only the owner may cache it (private)", tool, whole.CacheScope)
		}
		if _, err := bob.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI}); err == nil {
			t.Errorf("%s: another caller read the result", tool)
		}
		clock.Advance(resultTTL + time.Second)
		if _, err := ann.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI}); err == nil {
			t.Errorf("%s: the result was served after it expired", tool)
		}
	}
}

// movingClock is a clock tests move on, safe for concurrent use.
type movingClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *movingClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *movingClock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// httpSession connects a go-sdk client over Streamable HTTP with a token.
func httpSession(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: tokenTransport{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

type tokenTransport struct{ token string }

func (tt tokenTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+tt.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestLargeStepResponseShaped: a step whose response holds 3,000 items
// (300 KB) is decoded and paged like any other, never turned into text or
// {}; a response over the response limit is a too_large error.
func TestLargeStepResponseShaped(t *testing.T) {
	base := bigUpstream(t)
	steps := func(path string) []Step {
		return []Step{{ID: "big", Op: Operation{Method: "GET", Path: path}}, {ID: "small", Op: Operation{Method: "GET", Path: "/small"}}}
	}
	out := &Output{ListPath: "big.items", Limit: 5, Pick: []Pick{{Name: "id", Path: "id"}}}
	def := &ServerDef{Name: "big", Tools: []*Tool{
		{Name: "page_big", InputSchema: `{"type":"object"}`, Steps: steps("/big"), Output: out},
		{Name: "page_huge", InputSchema: `{"type":"object"}`, Steps: steps("/huge"), Output: out},
	}}
	srv, err := NewServer(def, Options{BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := srv.CallTool(context.Background(), "page_big", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("page_big: %v %s", err, resultText(res))
	}
	text := resultText(res)
	for _, want := range []string{`"totalCount":3000`, `"hasMore":true`, `{"id":4}`, "items 1 to 5 of 3000"} {
		if !strings.Contains(text, want) {
			t.Errorf("page_big result lacks %s: %.300s", want, text)
		}
	}
	res, err = srv.CallTool(context.Background(), "page_huge", map[string]any{})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "error kind: "+KindTooLarge) {
		t.Errorf("page_huge: want a too_large error, got %v %.300s", err, resultText(res))
	}
}
