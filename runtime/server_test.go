package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testSecret = "sekret-value-123"

// echoed is what the test upstream reports about each request it got.
type echoed struct {
	Method      string              `json:"method"`
	RequestURI  string              `json:"requestURI"`
	Path        string              `json:"path"`
	Query       map[string][]string `json:"query"`
	Header      map[string]string   `json:"header"`
	ContentType string              `json:"contentType"`
	Body        string              `json:"body"`
	Form        map[string][]string `json:"form,omitempty"`
	Parts       map[string][]string `json:"parts,omitempty"`
}

// testUpstream echoes requests as JSON, except under /fail, /slow, /list,
// /empty, /text and /image.
func testUpstream(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/fail/{code}", failHandler)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/list", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "[1, 2, 12345678901234567890]")
	})
	mux.HandleFunc("/sniffed", func(w http.ResponseWriter, r *http.Request) {
		// No Content-Type: net/http sniffs "text/plain; charset=utf-8".
		io.WriteString(w, `[{"id":"A1","n":12345678901234567890}]`)
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat("x", 200*1024))
	})
	mux.HandleFunc("/jsonl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/jsonl")
		io.WriteString(w, "{\"n\":1}\n\n{\"n\":2}\n")
	})
	mux.HandleFunc("/badjsonl", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		io.WriteString(w, "{\"n\":1}\n{\"n\":\n")
	})
	mux.HandleFunc("/events", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": keep-alive\nevent: price\nid: 7\ndata: {\"sku\":\ndata: \"A\"}\nretry: 3000\n\ndata: done\n\n")
	})
	mux.HandleFunc("/blob", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(make([]byte, 1000))
	})
	// Not a ServeMux pattern: the mux would clean "/a/../b" paths.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/fail/") || strings.HasPrefix(r.URL.Path, "/slow") ||
			slices.Contains([]string{"/list", "/sniffed", "/empty", "/text", "/blob", "/jsonl", "/badjsonl", "/events"}, r.URL.Path) {
			mux.ServeHTTP(w, r)
			return
		}
		echoHandler(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func echoHandler(w http.ResponseWriter, r *http.Request) {
	e := echoed{Method: r.Method, RequestURI: r.RequestURI, Path: r.URL.Path, Query: r.URL.Query(),
		Header: map[string]string{}, ContentType: r.Header.Get("Content-Type")}
	for k := range r.Header {
		e.Header[k] = r.Header.Get(k)
	}
	mt, params, _ := mime.ParseMediaType(e.ContentType)
	switch mt {
	case "application/x-www-form-urlencoded":
		r.ParseForm()
		e.Form = r.PostForm
	case "multipart/form-data":
		e.Parts = map[string][]string{}
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			b, _ := io.ReadAll(p)
			e.Parts[p.FormName()] = append(e.Parts[p.FormName()], p.Header.Get("Content-Type")+"|"+string(b))
		}
	default:
		b, _ := io.ReadAll(r.Body)
		e.Body = string(b)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(e)
}

func failHandler(w http.ResponseWriter, r *http.Request) {
	switch r.PathValue("code") {
	case "404":
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(404)
		io.WriteString(w, `{"type":"about:blank","title":"Not Found","detail":"Pet 42 does not exist"}`)
	case "429":
		w.Header().Set("Retry-After", "7")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		io.WriteString(w, `{"error":{"message":"Too many requests"}}`)
	case "503":
		w.Header().Set("Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
		w.WriteHeader(503)
	case "500":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(500)
		io.WriteString(w, `{"message":"database exploded"}`)
	case "502":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		io.WriteString(w, `<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>nginx</h1><script>secret()</script></body></html>`)
	case "401":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":"invalid key `+r.Header.Get("X-Api-Key")+`"}`)
	case "400":
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		io.WriteString(w, `{"errors":[{"message":"name is too short"}]}`)
	}
}

// objSchema is a closed object schema with the given properties (JSON
// members) and required names.
func objSchema(props string, required ...string) string {
	req := ""
	if len(required) > 0 {
		b, _ := json.Marshal(required)
		req = `,"required":` + string(b)
	}
	return `{"type":"object","additionalProperties":false,"properties":{` + props + `}` + req + `}`
}

// testSpec is a hand-written serverSpec covering the parameter and body
// kinds the generator emits.
func testSpec() *ServerDef {
	obj := objSchema
	return &ServerDef{
		Name: "petstore", Title: "Pet Store", Version: "1.2.3",
		Instructions: "Use these tools to manage pets.",
		EnvPrefix:    "PETSTORE",
		Security: []SecurityScheme{
			{Name: "api_key", Kind: "apiKey", In: "header", ParamName: "X-API-Key", EnvVar: "PETSTORE_API_KEY"},
			{Name: "query_key", Kind: "apiKey", In: "query", ParamName: "key", EnvVar: "PETSTORE_QUERY_KEY"},
		},
		Tools: []*Tool{
			{Name: "get_pet", Title: "Get pet", Description: "Get a pet by id.", ReadOnly: true, Idempotent: true, OpenWorld: true,
				InputSchema: obj(`"petId":{"type":"string","minLength":1}`, "petId"),
				Op: &Operation{Method: "GET", Path: "/pets/{petId}", Params: []Param{
					{Name: "petId", Arg: "petId", In: InPath, Style: "simple", Required: true}}}},
			{Name: "find_pets", Description: "Find pets.", ReadOnly: true,
				InputSchema: obj(`"status":{"type":"array","items":{"type":"string","enum":["available","pending","sold"]}},
					"tags":{"type":"array","items":{"type":"string"}},
					"filter":{"type":"object","properties":{"color":{"type":"string"},"size":{"type":"object"}}},
					"limit":{"type":"integer","minimum":1,"maximum":100,"default":20},
					"trace":{"type":"string"},
					"session":{"type":"string"},
					"q":{"type":"string"}`),
				Op: &Operation{Method: "GET", Path: "/pets", Params: []Param{
					{Name: "status", Arg: "status", In: InQuery, Style: "form", Explode: true},
					{Name: "tags", Arg: "tags", In: InQuery, Style: "form"},
					{Name: "filter", Arg: "filter", In: InQuery, Style: "deepObject", Explode: true},
					{Name: "limit", Arg: "limit", In: InQuery, Style: "form", Explode: true},
					{Name: "q", Arg: "q", In: InQuery, Style: "form", Explode: true},
					{Name: "X-Trace", Arg: "trace", In: InHeader, Style: "simple"},
					{Name: "session", Arg: "session", In: InCookie, Style: "form", Explode: true}}}},
			{Name: "create_pet", Description: "Create a pet.", Destructive: false,
				InputSchema: obj(`"name":{"type":"string","minLength":2},"status":{"type":"string","enum":["available","pending","sold"]},"birthday":{"type":"string","format":"date"}`, "name"),
				Op: &Operation{Method: "POST", Path: "/pets", Security: [][]string{{"api_key"}},
					Body: &Body{MediaType: "application/json", Required: true, Fields: []BodyField{
						{Name: "name", Arg: "name"}, {Name: "status", Arg: "status"}, {Name: "birthday", Arg: "birthday"}}}}},
			{Name: "create_pet_form", Description: "Create a pet from a form.",
				InputSchema: obj(`"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}},"meta":{"type":"object"}`),
				Op: &Operation{Method: "POST", Path: "/pets/form",
					Body: &Body{MediaType: "application/x-www-form-urlencoded", Required: true, Fields: []BodyField{
						{Name: "name", Arg: "name", Required: true}, {Name: "tags", Arg: "tags"}, {Name: "meta", Arg: "meta"}}}}},
			{Name: "touch_pet", Description: "Touch a pet (a beta endpoint with a body of optional fields).",
				InputSchema: obj(`"note":{"type":"string"},"limit":{"type":"integer"}`),
				Op: &Operation{Method: "POST", Path: "/pets/touch?beta=true", Params: []Param{
					{Name: "limit", Arg: "limit", In: InQuery, Style: "form", Explode: true}},
					Body: &Body{MediaType: "application/json", Required: true, Fields: []BodyField{{Name: "note", Arg: "note"}}}}},
			{Name: "upload_note", Description: "Upload a note.",
				InputSchema: obj(`"title":{"type":"string"},"note":{"type":"string"},"count":{"type":"integer"}`),
				Op: &Operation{Method: "POST", Path: "/upload",
					Body: &Body{MediaType: "multipart/form-data", Fields: []BodyField{
						{Name: "title", Arg: "title"}, {Name: "note", Arg: "note"}, {Name: "count", Arg: "count"}}}}},
			{Name: "fail", Description: "Fail on purpose.", Destructive: true,
				InputSchema: obj(`"code":{"type":"string"}`, "code"),
				Op: &Operation{Method: "GET", Path: "/fail/{code}", Security: [][]string{{"query_key"}, {"api_key"}}, Params: []Param{
					{Name: "code", Arg: "code", In: InPath, Style: "simple", Required: true}}}},
			{Name: "fetch", Description: "Fetch a fixed path.",
				InputSchema: obj(`"which":{"type":"string","enum":["slow","list","sniffed","empty","text","blob","jsonl","events","badjsonl"]}`, "which"),
				Op: &Operation{Method: "GET", Path: "/{which}", Params: []Param{
					{Name: "which", Arg: "which", In: InPath, Style: "simple", Required: true}}}},
			{Name: "fetch_step", Description: "Fetch a fixed path in one step, as a task tool with rewritten inputs does.",
				InputSchema: obj(`"which":{"type":"string","enum":["empty","blob","list"]}`, "which"),
				Steps: []Step{{ID: "call", Op: Operation{Method: "GET", Path: "/{which}", Params: []Param{
					{Name: "which", Arg: "which", In: InPath, Style: "simple", Required: true}}},
					Args: []Binding{{Arg: "which", Expr: "${input.which}"}}}}},
		},
	}
}

// testEnv returns a Getenv with the test credentials.
func testEnv(base string) func(string) string {
	env := map[string]string{"PETSTORE_BASE_URL": base, "PETSTORE_API_KEY": testSecret}
	return func(k string) string { return env[k] }
}

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type harness struct {
	srv  *Server
	cs   *mcp.ClientSession
	logs *syncBuffer
}

// connect serves srv over in-memory transports to a go-sdk client
// speaking protocolVersion ("" for the latest).
func connect(t *testing.T, srv *Server, protocolVersion string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newHarness(t *testing.T, opts Options, protocolVersion string) *harness {
	t.Helper()
	logs := &syncBuffer{}
	opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if opts.Getenv == nil {
		opts.Getenv = testEnv(testUpstream(t).URL)
	}
	srv, err := NewServer(testSpec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{srv: srv, cs: connect(t, srv, protocolVersion), logs: logs}
}

// call invokes a tool and returns the result and its concatenated text.
func (h *harness) call(t *testing.T, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := h.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): protocol error %v", name, err)
	}
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return res, sb.String()
}

// echo calls a tool expected to succeed and decodes the upstream's echo.
func (h *harness) echo(t *testing.T, name string, args any) echoed {
	t.Helper()
	res, text := h.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s: unexpected isError: %s", name, text)
	}
	var e echoed
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		t.Fatalf("%s: text is not the echo JSON: %v\n%s", name, err, text)
	}
	return e
}

func TestProtocolEras(t *testing.T) {
	for _, tc := range []struct{ name, ask, want string }{
		{"modern", "", "2026-07-28"},
		{"legacy", "2025-11-25", "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, Options{}, tc.ask)
			if got := h.cs.InitializeResult().ProtocolVersion; got != tc.want {
				t.Fatalf("negotiated %q, want %q", got, tc.want)
			}
			if got := h.cs.InitializeResult().Instructions; got != "Use these tools to manage pets." {
				t.Errorf("instructions = %q", got)
			}
			checkToolList(t, h.cs)
			res, text := h.call(t, "get_pet", map[string]any{"petId": "42"})
			if res.IsError || !strings.Contains(text, `"path":"/pets/42"`) {
				t.Fatalf("get_pet: isError=%v text=%s", res.IsError, text)
			}
			sc, ok := res.StructuredContent.(map[string]any)
			if !ok || sc["method"] != "GET" {
				t.Errorf("structuredContent = %#v", res.StructuredContent)
			}
		})
	}
}

func checkToolList(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range lt.Tools {
		byName[tool.Name] = tool
	}
	if len(byName) != len(testSpec().Tools) {
		t.Fatalf("listed %d tools, want %d", len(byName), len(testSpec().Tools))
	}
	gp := byName["get_pet"]
	if gp == nil || gp.Title != "Get pet" || gp.Description == "" {
		t.Fatalf("get_pet = %+v", gp)
	}
	schema, _ := json.Marshal(gp.InputSchema)
	if !strings.Contains(string(schema), `"required":["petId"]`) {
		t.Errorf("schema = %s", schema)
	}
	a := gp.Annotations
	if a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
		t.Errorf("get_pet annotations = %+v", a)
	}
	if f := byName["fail"].Annotations; f.DestructiveHint == nil || !*f.DestructiveHint || f.OpenWorldHint == nil || *f.OpenWorldHint {
		t.Errorf("fail annotations = %+v", f)
	}
}

func TestStreamableHTTP(t *testing.T) {
	up := testUpstream(t)
	srv, err := NewServer(testSpec(), Options{Getenv: testEnv(up.URL)})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	for _, version := range []string{"", "2025-11-25"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil)
		cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("connect %q: %v", version, err)
		}
		t.Logf("negotiated %s", cs.InitializeResult().ProtocolVersion)
		if version == "" && cs.InitializeResult().ProtocolVersion != "2026-07-28" {
			t.Errorf("stateless HTTP negotiated %s", cs.InitializeResult().ProtocolVersion)
		}
		checkToolList(t, cs)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_pet", Arguments: map[string]any{"petId": "7"}})
		if err != nil || res.IsError {
			t.Fatalf("call over HTTP: %v %+v", err, res)
		}
		cs.Close()
	}
}

func TestInProcessUpstream(t *testing.T) {
	var got string
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.RequestURI + " " + r.Header.Get("X-API-Key")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	h := newHarness(t, Options{BaseURL: "http://api.internal/v1", Upstream: up, Getenv: testEnv("")}, "")
	res, text := h.call(t, "create_pet", map[string]any{"name": "Rex"})
	if res.IsError || text != `{"ok":true}` {
		t.Fatalf("in-process call: %v %s", res.IsError, text)
	}
	if got != "POST /v1/pets "+testSecret {
		t.Errorf("upstream saw %q", got)
	}
}

func TestBaseURL(t *testing.T) {
	spec := testSpec()
	spec.DefaultBaseURL = "https://default.example.com/api/"
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "PETSTORE_BASE_URL" {
				return v
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name, opt, env, def, want, wantErr string
	}{
		{name: "option wins", opt: "http://opt.example.com", env: "http://env.example.com", def: spec.DefaultBaseURL, want: "http://opt.example.com"},
		{name: "env next", env: "http://env.example.com/x/", def: spec.DefaultBaseURL, want: "http://env.example.com/x"},
		{name: "default last", def: spec.DefaultBaseURL, want: "https://default.example.com/api"},
		{name: "relative", def: "/api/v3", wantErr: "not an absolute"},
		{name: "none", wantErr: "no upstream base URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := *spec
			s.DefaultBaseURL = tc.def
			srv, err := NewServer(&s, Options{BaseURL: tc.opt, Getenv: env(tc.env)})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || srv.baseURL != tc.want {
				t.Fatalf("base = %v, %v; want %s", srv, err, tc.want)
			}
		})
	}
}

func TestRequests(t *testing.T) {
	h := newHarness(t, Options{}, "")
	t.Run("path escaping", func(t *testing.T) {
		e := h.echo(t, "get_pet", map[string]any{"petId": "../admin?x=1"})
		if e.RequestURI != "/pets/..%2Fadmin%3Fx%3D1" || len(e.Query) != 0 {
			t.Errorf("requestURI = %q, query %v", e.RequestURI, e.Query)
		}
		e = h.echo(t, "get_pet", map[string]any{"petId": "a b/c#d@evil.com"})
		if e.RequestURI != "/pets/a%20b%2Fc%23d%40evil.com" {
			t.Errorf("requestURI = %q", e.RequestURI)
		}
	})
	t.Run("query styles and defaults", func(t *testing.T) {
		e := h.echo(t, "find_pets", map[string]any{
			"status": []any{"available", "sold"}, "tags": []any{"a,b", "c"},
			"filter": map[string]any{"color": "red", "size": map[string]any{"max": 3}},
			"q":      "x&admin=1", "trace": "t-1", "session": "s 1",
		})
		want := "/pets?status=available&status=sold&tags=a%2Cb,c&filter[color]=red&filter[size][max]=3&limit=20&q=x%26admin%3D1"
		if e.RequestURI != want {
			t.Errorf("requestURI =\n %s\nwant\n %s", e.RequestURI, want)
		}
		if e.Query["q"][0] != "x&admin=1" || e.Header["X-Trace"] != "t-1" || e.Header["Cookie"] != "session=s%201" {
			t.Errorf("q=%v header=%v", e.Query["q"], e.Header)
		}
		if !strings.HasPrefix(e.Header["User-Agent"], "petstore-mcp/1.2.3") || !strings.Contains(e.Header["Accept"], "application/json") {
			t.Errorf("headers = %v", e.Header)
		}
	})
	t.Run("json body with credentials", func(t *testing.T) {
		e := h.echo(t, "create_pet", map[string]any{"name": "Rex", "status": "pending"})
		if e.Body != `{"name":"Rex","status":"pending"}` || e.ContentType != "application/json" || e.Method != "POST" {
			t.Errorf("body %q type %q", e.Body, e.ContentType)
		}
	})
	t.Run("form body", func(t *testing.T) {
		e := h.echo(t, "create_pet_form", map[string]any{"name": "Rex & Co", "tags": []any{"x", "y"}, "meta": map[string]any{"k": "v"}})
		if got := e.Form; got["name"][0] != "Rex & Co" || len(got["tags"]) != 2 || got["meta[k]"][0] != "v" {
			t.Errorf("form = %v", got)
		}
	})
	t.Run("fixed query and empty required body", func(t *testing.T) {
		e := h.echo(t, "touch_pet", map[string]any{"limit": 2})
		if e.RequestURI != "/pets/touch?beta=true&limit=2" || e.Body != "{}" || e.ContentType != "application/json" {
			t.Errorf("requestURI %q body %q type %q", e.RequestURI, e.Body, e.ContentType)
		}
	})
	t.Run("multipart body", func(t *testing.T) {
		e := h.echo(t, "upload_note", map[string]any{"title": "hello", "note": "line1\nline2", "count": 3})
		if got := e.Parts; got["title"][0] != "|hello" || got["note"][0] != "|line1\nline2" || got["count"][0] != "|3" {
			t.Errorf("parts = %q", got)
		}
	})
}

func TestInputErrors(t *testing.T) {
	h := newHarness(t, Options{}, "2025-11-25")
	for _, tc := range []struct {
		name, tool string
		args       any
		want       []string
	}{
		{"missing required", "get_pet", nil, []string{`"petId" is required`}},
		{"enum", "create_pet", map[string]any{"name": "Rex", "status": "lost"},
			[]string{`"status" must be one of "available", "pending", "sold"; got "lost"`, "call again"}},
		{"nested enum and range", "find_pets", map[string]any{"status": []any{"gone"}, "limit": 0},
			[]string{`"status[0]" must be one of`, `"limit" must be at least 1`, "2 problems"}},
		{"type", "find_pets", map[string]any{"limit": "ten"}, []string{`"limit" must be an integer; got "ten" (a string)`}},
		{"unknown property", "get_pet", map[string]any{"petID": "1"}, []string{`"petID" is not an allowed property (did you mean "petId"?)`}},
		{"format", "create_pet", map[string]any{"name": "Rex", "birthday": "31/01/2026"}, []string{`"birthday" must be a date formatted YYYY-MM-DD`}},
		{"dot segment", "get_pet", map[string]any{"petId": ".."}, []string{`"petId" must not be ".."`}},
		{"header CRLF", "find_pets", map[string]any{"trace": "x\r\nX-Evil: 1"}, []string{`"trace" must not contain line breaks`}},
		{"required body field", "create_pet_form", map[string]any{"tags": []any{"a"}}, []string{`request body needs "name"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, text := h.call(t, tc.tool, tc.args)
			if !res.IsError {
				t.Fatalf("not isError: %s", text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("message %q\nlacks %q", clipText(text), w)
				}
			}
		})
	}
}

func TestUpstreamOutcomes(t *testing.T) {
	h := newHarness(t, Options{Timeout: 300 * time.Millisecond}, "")
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		isError    bool
		want       []string
		notWant    []string
	}{
		{"404 problem", "fail", map[string]any{"code": "404"}, true,
			[]string{"HTTP 404", "Not Found: Pet 42 does not exist", "does not exist", "Do not retry unchanged"}, nil},
		{"429 retry-after", "fail", map[string]any{"code": "429"}, true,
			[]string{"HTTP 429", "Too many requests", "Retry after 7 seconds"}, nil},
		{"503 http-date", "fail", map[string]any{"code": "503"}, true,
			[]string{"HTTP 503", "Retry after ", " seconds", "temporarily unavailable"}, nil},
		{"500", "fail", map[string]any{"code": "500"}, true,
			[]string{"HTTP 500", "database exploded", "may retry later"}, nil},
		{"html page", "fail", map[string]any{"code": "502"}, true,
			[]string{"HTTP 502", `HTML error page titled "502 Bad Gateway"`}, []string{"<script", "nginx"}},
		{"400 errors array", "fail", map[string]any{"code": "400"}, true,
			[]string{"name is too short", "Do not retry unchanged"}, nil},
		{"401 echoes key", "fail", map[string]any{"code": "401"}, true,
			[]string{"HTTP 401", "[REDACTED]", "Do not retry"}, []string{testSecret}},
		{"timeout", "fetch", map[string]any{"which": "slow"}, true,
			[]string{"did not answer", "timeout", "retry once later"}, nil},
		{"array wrapped", "fetch", map[string]any{"which": "list"}, false,
			[]string{"[1,2,12345678901234567890]"}, nil},
		{"JSON labelled text/plain", "fetch", map[string]any{"which": "sniffed"}, false,
			[]string{`{"result":[{"id":"A1","n":12345678901234567890}]}`}, nil},
		{"json lines as items", "fetch", map[string]any{"which": "jsonl"}, false,
			[]string{`{"result":[{"n":1},{"n":2}]}`}, nil},
		{"broken json lines", "fetch", map[string]any{"which": "badjsonl"}, true,
			[]string{"application/x-ndjson", "not valid JSON"}, nil},
		{"server-sent events as items", "fetch", map[string]any{"which": "events"}, false,
			[]string{`{"result":[{"data":"{\"sku\":\n\"A\"}","event":"price","id":"7","retry":3000},{"data":"done"}]}`}, []string{"keep-alive"}},
		{"no content", "fetch", map[string]any{"which": "empty"}, false,
			[]string{"succeeded (HTTP 204", "no content"}, nil},
		{"long text truncated", "fetch", map[string]any{"which": "text"}, false,
			[]string{"text/plain, 204,800 bytes, from GET /{which}", "over the 100 KiB this server returns inline", "resources/read", "oa2mcp://results/"}, nil},
		{"binary described", "fetch", map[string]any{"which": "blob"}, false,
			[]string{"application/octet-stream, 1,000 bytes, from GET /{which}"}, nil},
		{"no content from a step", "fetch_step", map[string]any{"which": "empty"}, false,
			[]string{"succeeded (HTTP 204", "no content"}, []string{"null"}},
		{"binary from a step is not called empty", "fetch_step", map[string]any{"which": "blob"}, false,
			nil, []string{"no content"}},
		{"JSON from a step", "fetch_step", map[string]any{"which": "list"}, false,
			[]string{"12345678901234567890"}, nil},
		{"echoed secret redacted", "create_pet", map[string]any{"name": "Rex"}, false,
			[]string{"[REDACTED]"}, []string{testSecret}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, text := h.call(t, tc.tool, tc.args)
			if res.IsError != tc.isError {
				t.Fatalf("isError = %v: %s", res.IsError, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("message %q\nlacks %q", text, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(text, w) {
					t.Errorf("message %q\ncontains %q", clipText(text), w)
				}
			}
			// The server keeps working after every failure.
			if r, txt := h.call(t, "get_pet", map[string]any{"petId": "1"}); r.IsError {
				t.Fatalf("follow-up call failed: %s", txt)
			}
		})
	}
	res, _ := h.call(t, "fetch", map[string]any{"which": "list"})
	if sc, ok := res.StructuredContent.(map[string]any); !ok || sc["result"] == nil {
		t.Errorf("array not wrapped: %#v", res.StructuredContent)
	}
	logs := h.logs.String()
	if strings.Contains(logs, testSecret) {
		t.Errorf("logs contain the secret:\n%s", logs)
	}
	if !strings.Contains(logs, "tool=fail outcome=error error_kind=not_found status=404") ||
		!strings.Contains(logs, "error_kind=timeout") || !strings.Contains(logs, "tool=get_pet outcome=ok") {
		t.Errorf("call records missing:\n%s", logs)
	}
}

func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := newHarness(t, Options{BaseURL: "http://" + addr}, "")
	res, text := h.call(t, "get_pet", map[string]any{"petId": "1"})
	if !res.IsError || !strings.Contains(text, "connection refused") || !strings.Contains(text, "Retry later") {
		t.Fatalf("isError=%v text=%s", res.IsError, text)
	}
}

func TestQueryKeyNotLeaked(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	env := map[string]string{"PETSTORE_QUERY_KEY": testSecret}
	h := newHarness(t, Options{BaseURL: "http://" + addr, Getenv: func(k string) string { return env[k] }}, "")
	_, text := h.call(t, "fail", map[string]any{"code": "404"})
	if strings.Contains(text, testSecret) || strings.Contains(h.logs.String(), testSecret) {
		t.Fatalf("secret leaked: %s", text)
	}
}

// clipText keeps failure messages about large results readable.
func clipText(s string) string {
	if len(s) > 400 {
		return s[:200] + " … " + s[len(s)-200:]
	}
	return s
}
