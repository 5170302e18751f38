package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// discoveryUpstream is a loopback API for the discovery tests: items to
// list, read and delete; it records every request.
type discoveryUpstream struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newDiscoveryUpstream(t testing.TB) *discoveryUpstream {
	t.Helper()
	u := &discoveryUpstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"id":"1","name":"widget"}]`)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "missing" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(404)
			io.WriteString(w, `{"title":"Not Found","detail":"no item with this id"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%q,"name":"widget"}`, r.PathValue("id"))
	})
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.hits = append(u.hits, r.Method+" "+r.URL.Path)
		u.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

// requests returns the requests so far and forgets them.
func (u *discoveryUpstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := u.hits
	u.hits = nil
	return out
}

const itemIDSchema = `{"type":"object","properties":{"id":{"type":"string","minLength":1,"description":"The item's id, e.g. 42."}},"required":["id"],"additionalProperties":false}`

// discoverySpec is a server with one curated tool and three operations
// for discovery.
func discoverySpec(prefix string) *ServerDef {
	idParam := []Param{{Name: "id", Arg: "id", In: InPath, Style: "simple", Required: true}}
	ops := []*Discoverable{
		{Tool: &Tool{Name: "delete_item", Title: "Delete an item", Description: "Delete an item by its id. Destructive.",
			InputSchema: itemIDSchema, Destructive: true, Idempotent: true, OpenWorld: true,
			Op: &Operation{OperationID: "deleteItem", Method: "DELETE", Path: "/items/{id}", Params: idParam}}},
		{Tool: &Tool{Name: "get_item", Title: "Get an item", Description: "Read one item by its id.",
			InputSchema: itemIDSchema, ReadOnly: true, Idempotent: true, OpenWorld: true,
			Op: &Operation{OperationID: "getItem", Method: "GET", Path: "/items/{id}", Params: idParam}},
			Returns: "an Item object with fields id, name"},
		{Tool: &Tool{Name: "list_items", Title: "List items", Description: "List the items of the shop.",
			InputSchema: `{"type":"object","properties":{"limit":{"type":"integer","minimum":1,"maximum":50}},"additionalProperties":false}`,
			ReadOnly:    true, Idempotent: true, OpenWorld: true,
			Op: &Operation{OperationID: "listItems", Method: "GET", Path: "/items",
				Params: []Param{{Name: "limit", Arg: "limit", In: InQuery, Style: "form", Explode: true}}}}},
	}
	return &ServerDef{
		Name: "shop", Title: "Shop", Version: "1.0.0",
		Tools: []*Tool{{Name: prefix + "count_items", Description: "Count the shop's items.", ReadOnly: true,
			InputSchema: `{"type":"object","additionalProperties":false}`,
			Op:          &Operation{Method: "GET", Path: "/items"}}},
		Discovery: &Discovery{Prefix: prefix, Topics: "items", Operations: ops, Index: testIndex(ops)},
	}
}

// testIndex indexes each operation's name, id and title with equal
// weights: enough to test the tools; the generator's ranking is tested
// with the generator.
func testIndex(ops []*Discoverable) string {
	texts := make([]string, len(ops))
	for i, op := range ops {
		texts[i] = op.Tool.Name + " " + op.Tool.Op.OperationID + " " + op.Tool.Title
	}
	return search.PlainIndex(texts)
}

// discoveryClient connects a go-sdk client over in-memory transports;
// el, when set, answers elicitations (the client then declares them).
func discoveryClient(t *testing.T, srv *Server, era string, el func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "discovery-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: el})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newDiscoveryServer(t *testing.T, def *ServerDef, u *discoveryUpstream, opts Options) *Server {
	t.Helper()
	opts.BaseURL = u.URL
	srv, err := NewServer(def, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

// discResult is a tool result with its text and structured content.
type discResult struct {
	text    string
	isError bool
	data    map[string]any
}

func callDiscovery(t *testing.T, cs *mcp.ClientSession, name string, args any) discResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	r := discResult{isError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if m, ok := res.StructuredContent.(map[string]any); ok {
		r.data = m
	}
	return r
}

func (r discResult) wantError(t *testing.T, what, kind string, phrases ...string) {
	t.Helper()
	if !r.isError || !strings.Contains(r.text, "[error kind: "+kind) {
		t.Errorf("%s: want an error of kind %s, got isError=%v: %s", what, kind, r.isError, r.text)
	}
	for _, p := range phrases {
		if !strings.Contains(r.text, p) {
			t.Errorf("%s: error lacks %q: %s", what, p, r.text)
		}
	}
}

func TestDiscoveryToolsList(t *testing.T) {
	u := newDiscoveryUpstream(t)
	for _, prefix := range []string{"", "shop_"} {
		cs := discoveryClient(t, newDiscoveryServer(t, discoverySpec(prefix), u, Options{}), "", nil)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*mcp.Tool{}
		var names []string
		for _, tl := range res.Tools {
			got[tl.Name] = tl
			names = append(names, tl.Name)
		}
		sort.Strings(names)
		want := []string{prefix + "call_operation", prefix + "count_items", prefix + "describe_operation", prefix + "search_operations"}
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Fatalf("prefix %q: tools %v, want %v (operations must not be listed)", prefix, names, want)
		}
		search := got[prefix+"search_operations"]
		if !search.Annotations.ReadOnlyHint || *search.Annotations.DestructiveHint || search.OutputSchema == nil {
			t.Errorf("search tool: annotations %+v, output schema %v", search.Annotations, search.OutputSchema)
		}
		for _, word := range []string{"3 operations", "the Shop API", prefix + "describe_operation", "Areas: items."} {
			if !strings.Contains(search.Description, word) {
				t.Errorf("search description lacks %q: %s", word, search.Description)
			}
		}
		call := got[prefix+"call_operation"]
		if call.Annotations.ReadOnlyHint || !*call.Annotations.DestructiveHint || !strings.Contains(call.Description, "confirm") {
			t.Errorf("call tool: annotations %+v, description %s", call.Annotations, call.Description)
		}
	}
}

func TestDiscoverySearch(t *testing.T) {
	u := newDiscoveryUpstream(t)
	cs := discoveryClient(t, newDiscoveryServer(t, discoverySpec(""), u, Options{}), "", nil)
	r := callDiscovery(t, cs, "search_operations", map[string]any{"query": "remove an item"})
	if r.isError {
		t.Fatal(r.text)
	}
	ops, _ := r.data["operations"].([]any)
	if len(ops) == 0 {
		t.Fatalf("no hits: %s", r.text)
	}
	first := ops[0].(map[string]any)
	want := map[string]any{"name": "delete_item", "operationId": "deleteItem", "method": "DELETE", "path": "/items/{id}",
		"summary": "Delete an item", "readOnly": false, "destructive": true}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("first hit %s = %v, want %v (%s)", k, first[k], v, r.text)
		}
	}
	var text map[string]any
	if err := json.Unmarshal([]byte(r.text), &text); err != nil || fmt.Sprint(text) != fmt.Sprint(r.data) {
		t.Errorf("text is not the structured content as JSON: %v\n%s", err, r.text)
	}
	if r := callDiscovery(t, cs, "search_operations", map[string]any{"query": "item", "limit": 1}); len(r.data["operations"].([]any)) != 1 {
		t.Errorf("limit 1: %s", r.text)
	}
	none := callDiscovery(t, cs, "search_operations", map[string]any{"query": "zebra"})
	if none.isError || len(none.data["operations"].([]any)) != 0 || !strings.Contains(none.text, "Search again with other words") {
		t.Errorf("no match: %s", none.text)
	}
	callDiscovery(t, cs, "search_operations", map[string]any{"query": ""}).wantError(t, "empty query", KindInvalidInput, "query")
	callDiscovery(t, cs, "search_operations", map[string]any{"query": "item", "limit": 51}).wantError(t, "limit 51", KindInvalidInput, "limit")
	if hits := u.requests(); len(hits) != 0 {
		t.Errorf("searching called the upstream: %v", hits)
	}
}

func TestDiscoveryDescribe(t *testing.T) {
	u := newDiscoveryUpstream(t)
	def := discoverySpec("")
	cs := discoveryClient(t, newDiscoveryServer(t, def, u, Options{}), "", nil)
	r := callDiscovery(t, cs, "describe_operation", map[string]any{"name": "get_item"})
	if r.isError {
		t.Fatal(r.text)
	}
	schema, _ := json.Marshal(r.data["inputSchema"])
	var want, got any
	json.Unmarshal([]byte(itemIDSchema), &want)
	json.Unmarshal(schema, &got)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("inputSchema %s, want the operation's own %s", schema, itemIDSchema)
	}
	if r.data["returns"] != "an Item object with fields id, name" || r.data["readOnly"] != true || r.data["destructive"] != false || r.data["confirmation"] != nil {
		t.Errorf("describe get_item: %s", r.text)
	}
	del := callDiscovery(t, cs, "describe_operation", map[string]any{"name": "deleteItem"})
	if del.data["name"] != "delete_item" || del.data["destructive"] != true || !strings.Contains(fmt.Sprint(del.data["confirmation"]), "confirm") {
		t.Errorf("describe by operationId, destructive: %s", del.text)
	}
	callDiscovery(t, cs, "describe_operation", map[string]any{"name": "remove_item"}).wantError(t, "unknown name", KindNotFound,
		`No operation is named "remove_item"`, "search_operations", "Close matches: ", "item")
}

func TestDiscoveryCall(t *testing.T) {
	u := newDiscoveryUpstream(t)
	cs := discoveryClient(t, newDiscoveryServer(t, discoverySpec(""), u, Options{}), "", nil)
	r := callDiscovery(t, cs, "call_operation", map[string]any{"name": "get_item", "arguments": map[string]any{"id": "42"}})
	if r.isError || r.data["name"] != "widget" || r.data["id"] != "42" {
		t.Errorf("get_item: %s", r.text)
	}
	if hits := u.requests(); fmt.Sprint(hits) != "[GET /items/42]" {
		t.Errorf("upstream got %v", hits)
	}
	if r := callDiscovery(t, cs, "call_operation", map[string]any{"name": "listItems"}); r.isError || !strings.Contains(r.text, "widget") {
		t.Errorf("list by operationId without arguments: %s", r.text)
	}
	u.requests()
	for _, tc := range []struct {
		what    string
		args    map[string]any
		kind    string
		phrases []string
	}{
		{"missing argument", map[string]any{"name": "get_item", "arguments": map[string]any{}}, KindInvalidInput, []string{"id"}},
		{"wrong type", map[string]any{"name": "list_items", "arguments": map[string]any{"limit": "ten"}}, KindInvalidInput, []string{"limit"}},
		{"unknown argument", map[string]any{"name": "get_item", "arguments": map[string]any{"id": "1", "colour": "red"}}, KindInvalidInput, []string{"colour"}},
		{"arguments not an object", map[string]any{"name": "get_item", "arguments": []any{"1"}}, KindInvalidInput, []string{"must be a JSON object", "not an array"}},
		{"no name", map[string]any{"arguments": map[string]any{}}, KindInvalidInput, []string{"name is required"}},
		{"unknown key", map[string]any{"name": "get_item", "args": map[string]any{}}, KindInvalidInput, []string{"args"}},
		{"unknown operation", map[string]any{"name": "fetch_item", "arguments": map[string]any{}}, KindNotFound, []string{"search_operations", "get_item"}},
	} {
		callDiscovery(t, cs, "call_operation", tc.args).wantError(t, tc.what, tc.kind, tc.phrases...)
	}
	if hits := u.requests(); len(hits) != 0 {
		t.Errorf("refused calls reached the upstream: %v", hits)
	}
	callDiscovery(t, cs, "call_operation", map[string]any{"name": "get_item", "arguments": map[string]any{"id": "missing"}}).
		wantError(t, "upstream 404", KindNotFound, "no item with this id")
}

// TestDiscoveryDestructive: a destructive operation runs only after the
// user confirms; a client that cannot ask gets a refusal.
func TestDiscoveryDestructive(t *testing.T) {
	u := newDiscoveryUpstream(t)
	srv := newDiscoveryServer(t, discoverySpec(""), u, Options{})
	del := map[string]any{"name": "delete_item", "arguments": map[string]any{"id": "7"}}

	callDiscovery(t, discoveryClient(t, srv, "", nil), "call_operation", del).wantError(t, "no elicitation", KindNeedsUser, "delete_item", "confirmation")
	if hits := u.requests(); len(hits) != 0 {
		t.Fatalf("an unconfirmed delete reached the upstream: %v", hits)
	}
	for _, tc := range []struct{ era, action, want string }{
		{"", "decline", ""},
		{"", "accept", "DELETE /items/7"},
		{"2025-11-25", "accept", "DELETE /items/7"},
	} {
		var asked []string
		el := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: tc.action}, nil
		}
		r := callDiscovery(t, discoveryClient(t, srv, tc.era, el), "call_operation", del)
		if len(asked) != 1 || !strings.Contains(asked[0], "DELETE /items/{id}") || !strings.Contains(asked[0], "id=7") || !strings.Contains(asked[0], "destructive") {
			t.Errorf("%s %s: confirmation asked %q", tc.era, tc.action, asked)
		}
		want := []string{}
		if tc.want != "" {
			want = append(want, tc.want)
		}
		if hits := u.requests(); fmt.Sprint(hits) != fmt.Sprint(want) {
			t.Errorf("%s %s: upstream got %v, want %v", tc.era, tc.action, hits, want)
		}
		if tc.action == "decline" {
			r.wantError(t, "declined", KindDeclined, "delete_item")
		} else if r.isError {
			t.Errorf("%s accept: %s", tc.era, r.text)
		}
	}
}

// TestDiscoveryCompilesOnFirstCall: an operation's definition is only
// compiled when it is first called, so a broken one does not stop the
// server from starting; calling it fails clearly.
func TestDiscoveryCompilesOnFirstCall(t *testing.T) {
	u := newDiscoveryUpstream(t)
	def := discoverySpec("")
	def.Discovery.Operations[2].Tool.InputSchema = `{"type":"object","properties":{"limit":{"type":"string","pattern":"("}}}`
	cs := discoveryClient(t, newDiscoveryServer(t, def, u, Options{}), "", nil)
	callDiscovery(t, cs, "call_operation", map[string]any{"name": "list_items"}).wantError(t, "broken operation", KindInternal, "list_items cannot be served")
	if r := callDiscovery(t, cs, "call_operation", map[string]any{"name": "get_item", "arguments": map[string]any{"id": "1"}}); r.isError {
		t.Errorf("a broken operation broke another: %s", r.text)
	}
}

// TestDiscoveryMiddleware: middleware named for an operation wraps its
// calls through call_operation, as it would wrap a tool of that name.
func TestDiscoveryMiddleware(t *testing.T) {
	u := newDiscoveryUpstream(t)
	var seen []string
	mw := Middleware{Tools: []string{"get_item"}, Wrap: func(next CallFunc) CallFunc {
		return func(ctx context.Context, c *Call) (*mcp.CallToolResult, error) {
			seen = append(seen, c.Tool.Name+":"+fmt.Sprint(c.Args["id"]))
			return next(ctx, c)
		}
	}}
	cs := discoveryClient(t, newDiscoveryServer(t, discoverySpec(""), u, Options{Middleware: []Middleware{mw}}), "", nil)
	callDiscovery(t, cs, "call_operation", map[string]any{"name": "get_item", "arguments": map[string]any{"id": "5"}})
	callDiscovery(t, cs, "call_operation", map[string]any{"name": "list_items"})
	if fmt.Sprint(seen) != "[get_item:5]" {
		t.Errorf("middleware saw %v", seen)
	}
}

func TestDiscoveryDefinitionErrors(t *testing.T) {
	u := newDiscoveryUpstream(t)
	for _, tc := range []struct {
		what   string
		change func(*ServerDef)
		want   string
	}{
		{"unsorted", func(d *ServerDef) {
			ops := d.Discovery.Operations
			ops[0], ops[1] = ops[1], ops[0]
		}, "not sorted"},
		{"index of other operations", func(d *ServerDef) { d.Discovery.Index = testIndex(d.Discovery.Operations[:2]) }, "not for these 3 operations"},
		{"name taken", func(d *ServerDef) { d.Tools[0].Name = "search_operations" }, `"search_operations" is defined twice`},
		{"call name taken", func(d *ServerDef) { d.Tools[0].Name = "call_operation" }, `"call_operation" is defined twice`},
	} {
		def := discoverySpec("")
		tc.change(def)
		_, err := NewServer(def, Options{BaseURL: u.URL})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.what, err, tc.want)
		}
	}
}

// TestDiscoveryHTTP serves discovery over Streamable HTTP.
func TestDiscoveryHTTP(t *testing.T) {
	u := newDiscoveryUpstream(t)
	srv := newDiscoveryServer(t, discoverySpec(""), u, Options{})
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "discovery-http", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if r := callDiscovery(t, cs, "search_operations", map[string]any{"query": "list items"}); r.isError || !strings.Contains(r.text, "list_items") {
		t.Errorf("search over HTTP: %s", r.text)
	}
	if r := callDiscovery(t, cs, "call_operation", map[string]any{"name": "get_item", "arguments": map[string]any{"id": "9"}}); r.isError || r.data["id"] != "9" {
		t.Errorf("call over HTTP: %s", r.text)
	}
	callDiscovery(t, cs, "call_operation", map[string]any{"name": "delete_item", "arguments": map[string]any{"id": "9"}}).wantError(t, "delete over HTTP without elicitation", KindNeedsUser)
}

// TestDiscoveryConcurrentFirstCalls: many first calls of one operation at
// once compile it once and all succeed (run with -race).
func TestDiscoveryConcurrentFirstCalls(t *testing.T) {
	u := newDiscoveryUpstream(t)
	cs := discoveryClient(t, newDiscoveryServer(t, discoverySpec(""), u, Options{}), "", nil)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Go(func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "call_operation",
				Arguments: map[string]any{"name": "get_item", "arguments": map[string]any{"id": fmt.Sprint(i)}}})
			if err != nil || res.IsError {
				errs <- fmt.Sprint(err, res)
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_operations", Arguments: map[string]any{"query": "items"}}); err != nil {
				errs <- err.Error()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(u.requests()); n != 16 {
		t.Errorf("upstream got %d requests, want 16", n)
	}
}
