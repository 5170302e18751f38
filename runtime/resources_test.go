package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// petUpstream answers GET /pets/ID with a pet, 404 for "gone", and
// records every path it was asked for.
type petUpstream struct {
	mu    sync.Mutex
	paths []string
}

func (u *petUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.paths = append(u.paths, r.URL.EscapedPath())
	u.mu.Unlock()
	id := strings.TrimPrefix(r.URL.Path, "/pets/")
	if strings.HasPrefix(r.URL.Path, "/status/") {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("3 pets " + strings.TrimPrefix(r.URL.Path, "/status/")))
		return
	}
	if id == "gone" {
		http.Error(w, `{"message":"no such pet"}`, http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"id":%q,"name":"Rex"}`, id)
}

func (u *petUpstream) seen() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.paths...)
}

// resourceSpec serves get_pet as petstore://pets/{petId} and
// pets_by_status as petstore://status/{status} (an enum, so completable).
func resourceSpec(base string) *ServerDef {
	return &ServerDef{Name: "petstore", EnvPrefix: "PETSTORE", DefaultBaseURL: base,
		Tools: []*Tool{
			{Name: "get_pet", Description: "Get a pet by id.", ReadOnly: true,
				InputSchema: objSchema(`"petId":{"type":"string","pattern":"^[A-Za-z0-9._-]{1,40}$","examples":["rex","rita"]}`, "petId"),
				Op: &Operation{Method: "GET", Path: "/pets/{petId}",
					Params: []Param{{Name: "petId", Arg: "petId", In: InPath, Style: "simple", Required: true}}}},
			{Name: "get_note", Description: "Get a note; any text names one.", ReadOnly: true,
				InputSchema: objSchema(`"noteId":{"type":"string"}`, "noteId"),
				Op: &Operation{Method: "GET", Path: "/notes/{noteId}",
					Params: []Param{{Name: "noteId", Arg: "noteId", In: InPath, Style: "simple", Required: true}}}},
			{Name: "pets_by_status", Description: "Count pets by status.", ReadOnly: true,
				InputSchema: objSchema(`"status":{"type":"string","enum":["available","pending","sold"]}`, "status"),
				Op: &Operation{Method: "GET", Path: "/status/{status}", ResponseMedia: "text/plain",
					Params: []Param{{Name: "status", Arg: "status", In: InPath, Style: "simple", Required: true}}}},
		},
		Resources: []Resource{
			{URITemplate: "petstore://pets/{petId}", Name: "pet", Description: "A pet.", MIMEType: "application/json", Tool: "get_pet"},
			{URITemplate: "petstore://notes/{noteId}", Name: "note", Description: "A note.", MIMEType: "application/json", Tool: "get_note"},
			{URITemplate: "petstore://status/{status}", Name: "status", Description: "Pets of a status.", MIMEType: "text/plain", Tool: "pets_by_status"},
		}}
}

func resourceServer(t *testing.T, spec func(base string) *ServerDef) (*petUpstream, *mcp.ClientSession) {
	t.Helper()
	up := &petUpstream{}
	hs := httptest.NewServer(up)
	t.Cleanup(hs.Close)
	srv, err := NewServer(spec(hs.URL), Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return up, connect(t, srv, "")
}

func TestResourceTemplates(t *testing.T) {
	up, cs := resourceServer(t, resourceSpec)
	ctx := context.Background()
	list, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, rt := range list.ResourceTemplates {
		uris = append(uris, rt.URITemplate)
	}
	if !strings.Contains(strings.Join(uris, " "), "petstore://pets/{petId}") {
		t.Fatalf("templates %v lack petstore://pets/{petId}", uris)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "petstore://pets/rex"})
	if err != nil {
		t.Fatal(err)
	}
	if c := rr.Contents[0]; c.URI != "petstore://pets/rex" || c.MIMEType != "application/json" || !strings.Contains(c.Text, `"id":"rex"`) {
		t.Fatalf("contents %+v", c)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "petstore://status/sold"})
	if err != nil {
		t.Fatal(err)
	}
	if c := rr.Contents[0]; len(rr.Contents) != 1 || c.MIMEType != "text/plain" || c.Text != "3 pets sold" {
		t.Fatalf("text contents %+v (%d items), want the text alone", c, len(rr.Contents))
	}
	for _, uri := range []string{"petstore://pets/gone", "test://nonexistent-resource-for-conformance-testing", "petstore://pets/..", "petstore://status/lost"} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if msg := notFoundShape(err, uri); msg != "" {
			t.Errorf("%s: %s", uri, msg)
		}
	}
	if got := up.seen(); strings.Join(got, " ") != "/pets/rex /status/sold /pets/gone" {
		t.Fatalf("upstream saw %v, want only the well-formed reads", got)
	}
}

// notFoundShape checks the SEP-2164 error: -32602 with the URI in data.
func notFoundShape(err error, uri string) string {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return fmt.Sprintf("error %v, want a JSON-RPC error", err)
	}
	if je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(string(je.Data), "uri") {
		return fmt.Sprintf("error %d %q data %s, want -32602 with the uri in data", je.Code, je.Message, je.Data)
	}
	return ""
}

// TestResourceURIsSeeded: random and hostile URIs (traversal, encoded
// slashes, controls, overlong, other schemes) reach the upstream only
// when they name a declared template with clean, valid variables; every
// other read is a -32602 error, and the server serves on.
func TestResourceURIsSeeded(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2164))
	up, cs := resourceServer(t, resourceSpec)
	ctx := context.Background()
	for i := range 300 {
		uri := randomURI(r)
		before := len(up.seen())
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		after := up.seen()
		if err != nil {
			if msg := notFoundShape(err, uri); msg != "" && !strings.Contains(err.Error(), "-32602") {
				t.Fatalf("seed %d, case %d: %q: %s", seed, i, uri, msg)
			}
		}
		for _, p := range after[before:] {
			if msg := cleanUpstreamPath(p); msg != "" {
				t.Fatalf("seed %d, case %d: %q reached the upstream as %q: %s", seed, i, uri, p, msg)
			}
		}
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "petstore://pets/rex"}); err != nil {
		t.Fatalf("seed %d: the server does not serve on: %v", seed, err)
	}
}

// cleanUpstreamPath is the invariant of an upstream path: /notes/ID
// with ID one clean segment (no dot segment, slash or control character),
// /pets/ID with
// ID one segment matching get_pet's pattern and no dot segment, or
// /status/S with S in the enum.
func cleanUpstreamPath(p string) string {
	if seg, ok := strings.CutPrefix(p, "/notes/"); ok {
		v, err := url.PathUnescape(seg)
		if err != nil || strings.Contains(seg, "/") || v == "." || v == ".." || strings.ContainsAny(v, "/\\") || strings.ContainsFunc(v, unicode.IsControl) {
			return "a dot, slash or control segment"
		}
		return ""
	}
	if s, ok := strings.CutPrefix(p, "/status/"); ok {
		if s != "available" && s != "pending" && s != "sold" {
			return "status off the enum"
		}
		return ""
	}
	seg, ok := strings.CutPrefix(p, "/pets/")
	if !ok || strings.Contains(seg, "/") {
		return "not one segment under /pets/"
	}
	v, err := url.PathUnescape(seg)
	if err != nil || v == "." || v == ".." || strings.ContainsAny(v, "/\\") {
		return "a dot or slash segment"
	}
	for _, c := range v {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-", c)) {
			return "a value off the pattern"
		}
	}
	return ""
}

// randomURI draws a resource URI: well-formed ones, and hostile ones.
func randomURI(r *rand.Rand) string {
	values := []string{"rex", "..", ".", "%2e%2e", "a%2Fb", "a/b", "%00", "a%0Ab", "%ZZ", "a b", "r%C3%A9x", "sold", "pending",
		"lost", "a?x=1", "a#f", strings.Repeat("x", 41), strings.Repeat("y", 3000), "%2F", "\\", "a%5Cb", "", "rex/..", "..%2F..%2Fetc"}
	prefixes := []string{"petstore://notes/", "petstore://notes/", "petstore://pets/", "petstore://status/", "petstore://pets", "petstore:/pets/", "PETSTORE://pets/", "test://", "oa2mcp://results/", ""}
	uri := prefixes[r.IntN(len(prefixes))] + values[r.IntN(len(values))]
	if r.IntN(4) == 0 {
		b := []byte(uri)
		for range 1 + r.IntN(3) {
			if len(b) > 0 {
				b[r.IntN(len(b))] = byte(r.IntN(128))
			}
		}
		uri = string(b)
	}
	return uri
}

func TestCompletion(t *testing.T) {
	_, cs := resourceServer(t, resourceSpec)
	if cs.InitializeResult().Capabilities.Completions == nil {
		t.Fatal("completions capability not declared although status has an enum")
	}
	ctx := context.Background()
	for _, tc := range []struct {
		ref        *mcp.CompleteReference
		arg, value string
		want       string
	}{
		{&mcp.CompleteReference{Type: "ref/resource", URI: "petstore://status/{status}"}, "status", "p", "pending"},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "petstore://status/{status}"}, "status", "", "available pending sold"},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "petstore://status/{status}"}, "status", "S", "sold"},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "petstore://pets/{petId}"}, "petId", "ri", "rita"},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "petstore://pets/{petId}"}, "other", "", ""},
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "test_prompt_with_arguments"}, "arg1", "test", ""},
	} {
		res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: tc.ref, Argument: mcp.CompleteParamsArgument{Name: tc.arg, Value: tc.value}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(res.Completion.Values, " "); got != tc.want || res.Completion.Total != len(res.Completion.Values) || res.Completion.HasMore {
			t.Errorf("%v %s=%q: %+v, want %q", tc.ref, tc.arg, tc.value, res.Completion, tc.want)
		}
	}
}

// TestCompletionBounds: at most 100 values, total counts every match,
// hasMore says there were more.
func TestCompletionBounds(t *testing.T) {
	var values []string
	for i := range 150 {
		values = append(values, fmt.Sprintf("v%03d", i))
	}
	c := completion(values, "V")
	if len(c.Values) != maxCompletions || c.Total != 150 || !c.HasMore {
		t.Fatalf("%d values, total %d, hasMore %v; want 100, 150, true", len(c.Values), c.Total, c.HasMore)
	}
	if c := completion(values, "v14"); len(c.Values) != 10 || c.Total != 10 || c.HasMore {
		t.Fatalf("v14: %+v", c)
	}
}

// TestNoCompletionWithoutValues: the capability is declared only when a
// template variable has values to offer.
func TestNoCompletionWithoutValues(t *testing.T) {
	_, cs := resourceServer(t, func(base string) *ServerDef {
		s := resourceSpec(base)
		s.Resources = s.Resources[:1]
		s.Tools[0].InputSchema = objSchema(`"petId":{"type":"string"}`, "petId")
		return s
	})
	if cs.InitializeResult().Capabilities.Completions != nil {
		t.Fatal("completions declared with nothing to complete")
	}
}

// TestResourceBindErrors: a template that does not fit its tool is a
// startup error that says why.
func TestResourceBindErrors(t *testing.T) {
	for _, tc := range []struct{ tmpl, tool, want string }{
		{"pets/{petId}", "get_pet", "must start with a scheme"},
		{"petstore://pets/{pet}", "get_pet", "no input of tool"},
		{"petstore://pets", "get_pet", "requires \"petId\""},
		{"petstore://pets/{+petId}", "get_pet", "not a simple variable"},
		{"petstore://pets/{petId}", "nope", "not defined"},
		{"petstore://pets/{petId}{x}", "get_pet", "side by side"},
	} {
		spec := resourceSpec("http://127.0.0.1:1")
		spec.Resources = []Resource{{URITemplate: tc.tmpl, Name: "x", Tool: tc.tool}}
		_, err := NewServer(spec, Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s: error %v, want %q", tc.tmpl, tc.tool, err, tc.want)
		}
	}
}

// TestStdioServesOnAfterHostileURI: a read of a URI with a control
// character over stdio gets a not-found answer and the process serves
// on (go-sdk's own error for it does not encode, which ended ServeIO).
func TestStdioServesOnAfterHostileURI(t *testing.T) {
	up := &petUpstream{}
	hs := httptest.NewServer(up)
	t.Cleanup(hs.Close)
	srv, err := NewServer(resourceSpec(hs.URL), Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.ServeIO(context.Background(), inR, outW) }()
	t.Cleanup(func() { inW.Close() })
	lines := bufio.NewScanner(outR)
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	for i, uri := range []string{`unknown://a\u000fb`, `petstore://notes/a\u0001b`, `petstore://pets/rex`} {
		go func() {
			_, _ = fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"%s",%s}}`+"\n", i+1, uri, meta)
		}()
		got := make(chan string, 1)
		go func() {
			if lines.Scan() {
				got <- lines.Text()
			} else {
				got <- ""
			}
		}()
		select {
		case line := <-got:
			want := `"code":-32602`
			if i == 2 {
				want = `"contents"`
			}
			if !strings.Contains(line, want) {
				t.Fatalf("read %s: %q, want %s", uri, line, want)
			}
		case err := <-done:
			t.Fatalf("read %s ended the server: %v", uri, err)
		case <-time.After(5 * time.Second):
			t.Fatalf("read %s: no answer within 5s", uri)
		}
	}
}
