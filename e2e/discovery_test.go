//go:build linux && e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/write"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// Discovery mode end to end: servers generated with --discover from two
// corpus specs, built, started as processes and driven by the go-sdk
// client over stdio and over Streamable HTTP, against an upstream on
// 127.0.0.1 that answers as Stripe and Kubernetes would.

// discoveryCase is what one spec's run checks.
type discoveryCase struct {
	name string // corpus entry
	// query must find wantID among the first five operations.
	query, wantID string
	// read is an operation that succeeds with readArgs, fails upstream
	// (404) with missingArgs and is refused with invalidArgs.
	read                              string
	readArgs, missingArgs, badArgs    map[string]any
	readWant, readUpstream, missingIs string
	// remove is a destructive operation called with removeArgs.
	remove         string
	removeArgs     map[string]any
	removeUpstream string
	// maxStart bounds process start to tools/list answered.
	maxStart time.Duration
}

var discoveryCases = []discoveryCase{
	{
		name: "stripe", query: "refund a charge", wantID: "ChargeRefund",
		read:     "RetrieveCustomer",
		readArgs: map[string]any{"customer": "cus_123"}, missingArgs: map[string]any{"customer": "cus_missing"}, badArgs: map[string]any{"expand": "email"},
		readWant: "jane@example.com", readUpstream: "GET /v1/customers/cus_123", missingIs: "No such customer",
		remove: "DeleteCustomer", removeArgs: map[string]any{"customer": "cus_123"}, removeUpstream: "DELETE /v1/customers/cus_123",
		maxStart: 500 * time.Millisecond,
	},
	{
		name: "kubernetes", query: "delete a pod", wantID: "deleteCoreV1NamespacedPod",
		read:     "readCoreV1NamespacedPod",
		readArgs: map[string]any{"namespace": "prod", "name": "web-1"}, missingArgs: map[string]any{"namespace": "prod", "name": "missing"}, badArgs: map[string]any{"name": "web-1"},
		readWant: "nginx:1.27", readUpstream: "GET /api/v1/namespaces/prod/pods/web-1", missingIs: `pods "missing" not found`,
		remove: "deleteCoreV1NamespacedPod", removeArgs: map[string]any{"namespace": "prod", "name": "web-1"}, removeUpstream: "DELETE /api/v1/namespaces/prod/pods/web-1",
		maxStart: 500 * time.Millisecond,
	},
}

func TestDiscovery(t *testing.T) {
	corpus := testenv.CorpusDir(t)
	mod := testenv.TempModule(t, "discovery")
	for _, c := range discoveryCases {
		generateDiscovery(t, corpus, mod, c.name)
	}
	buildAll(t, mod)
	up := newFakeAPI(t)
	for _, c := range discoveryCases {
		bin := filepath.Join(mod, "bin", c.name)
		t.Run(c.name+"/stdio", func(t *testing.T) {
			start := time.Now()
			runDiscovery(t, c, up, start, func(el elicit) *mcp.ClientSession {
				cmd := exec.Command(bin, "--base-url", up.URL)
				cmd.Env = append(os.Environ(), "GOTRACEBACK=all")
				return connectClient(t, &mcp.CommandTransport{Command: cmd}, el)
			})
		})
		t.Run(c.name+"/http", func(t *testing.T) {
			start := time.Now()
			url := startDaemon(t, c.name, regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`), bin,
				"--transport", "http", "--addr", "127.0.0.1:0", "--base-url", up.URL)
			runDiscovery(t, c, up, start, func(el elicit) *mcp.ClientSession {
				return connectClient(t, &mcp.StreamableClientTransport{Endpoint: url}, el)
			})
		})
	}
}

// generateDiscovery writes the spec's discovery server into mod/name.
func generateDiscovery(t *testing.T, corpus, mod, name string) {
	t.Helper()
	var path string
	for _, e := range testenv.Corpus() {
		if e.Name == name {
			path = e.Path
		}
	}
	doc, problems := load.Load(context.Background(), filepath.Join(corpus, path), load.Options{})
	if problems.HasErrors() {
		t.Fatalf("%s: %v", path, problems.Errors())
	}
	res, more := generator.Generate(doc, generator.Config{Name: name, ImportPath: "discovery/" + name, Source: path, Discover: true, NoCallTests: true})
	if more.HasErrors() {
		t.Fatalf("%s: %v", path, more.Errors())
	}
	dir := filepath.Join(mod, name)
	changes, err := write.Plan(dir, res.Files)
	must(t, err)
	must(t, write.Apply(dir, changes))
}

// elicit answers the user's side of a confirmation; nil: the client
// cannot ask its user.
type elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)

func connectClient(t *testing.T, tr mcp.Transport, el elicit) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "discovery-e2e", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: el})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// runDiscovery drives one server: tools/list, search, describe, and calls
// that succeed, are refused, fail upstream and need confirmation.
func runDiscovery(t *testing.T, c discoveryCase, up *fakeAPI, start time.Time, connect func(elicit) *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := connect(nil)
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Since(start)
	raw, _ := json.Marshal(list.Tools)
	t.Logf("%s: tools/list %d bytes, answered %s after process start", c.name, len(raw), started)
	if len(list.Tools) != 3 || len(raw) > 10*1024 {
		t.Errorf("tools/list: %d tools in %d bytes; want the 3 discovery tools in at most 10 KB", len(list.Tools), len(raw))
	}
	if started > c.maxStart {
		t.Errorf("tools/list answered %s after process start; want under %s", started, c.maxStart)
	}

	search := discoveryCall(t, cs, "search_operations", map[string]any{"query": c.query})
	if !hasOperation(search, c.wantID) {
		t.Errorf("search %q: %s not among %s", c.query, c.wantID, search.text)
	}

	desc := discoveryCall(t, cs, "describe_operation", map[string]any{"name": c.read})
	name, _ := desc.data["name"].(string)
	if desc.isError || name == "" || desc.data["readOnly"] != true || desc.data["inputSchema"] == nil {
		t.Fatalf("describe %s: %s", c.read, desc.text)
	}
	up.requests()
	ok := discoveryCall(t, cs, "call_operation", map[string]any{"name": name, "arguments": c.readArgs})
	if ok.isError || !strings.Contains(ok.text, c.readWant) {
		t.Errorf("call %s: %s", name, ok.text)
	}
	wantRequests(t, up, "success", c.readUpstream)

	bad := discoveryCall(t, cs, "call_operation", map[string]any{"name": name, "arguments": c.badArgs})
	wantKind(t, bad, "invalid arguments", "invalid_input")
	wantRequests(t, up, "invalid arguments")

	missing := discoveryCall(t, cs, "call_operation", map[string]any{"name": name, "arguments": c.missingArgs})
	wantKind(t, missing, "upstream 404", "not_found")
	if !strings.Contains(missing.text, c.missingIs) {
		t.Errorf("upstream 404: the API's message %q is lost: %s", c.missingIs, missing.text)
	}
	up.requests()

	removeDesc := discoveryCall(t, cs, "describe_operation", map[string]any{"name": c.remove})
	remove, _ := removeDesc.data["name"].(string)
	if removeDesc.data["destructive"] != true || removeDesc.data["confirmation"] == nil {
		t.Errorf("describe %s: not reported destructive: %s", c.remove, removeDesc.text)
	}
	refused := discoveryCall(t, cs, "call_operation", map[string]any{"name": remove, "arguments": c.removeArgs})
	wantKind(t, refused, "destructive without elicitation", "needs_user")
	wantRequests(t, up, "destructive without elicitation")

	var asked []string
	confirming := connect(func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	done := discoveryCall(t, confirming, "call_operation", map[string]any{"name": remove, "arguments": c.removeArgs})
	if done.isError || len(asked) != 1 || !strings.Contains(asked[0], "destructive") {
		t.Errorf("confirmed %s: asked %q, result %s", remove, asked, done.text)
	}
	wantRequests(t, up, "confirmed destructive", c.removeUpstream)
}

// discoveryResult is a tool result.
type discoveryResult struct {
	text    string
	isError bool
	data    map[string]any
}

func discoveryCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) discoveryResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	r := discoveryResult{isError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	r.data, _ = res.StructuredContent.(map[string]any)
	return r
}

func hasOperation(r discoveryResult, id string) bool {
	ops, _ := r.data["operations"].([]any)
	for _, o := range ops {
		if m, _ := o.(map[string]any); m["operationId"] == id {
			return true
		}
	}
	return false
}

func wantKind(t *testing.T, r discoveryResult, what, kind string) {
	t.Helper()
	if !r.isError || !strings.Contains(r.text, "[error kind: "+kind) {
		t.Errorf("%s: want an error of kind %s, got %s", what, kind, r.text)
	}
}

func wantRequests(t *testing.T, up *fakeAPI, what string, want ...string) {
	t.Helper()
	if got := up.requests(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: the upstream got %v, want %v", what, got, want)
	}
}

// fakeAPI answers the few Stripe and Kubernetes requests the test makes,
// on 127.0.0.1, and records them.
type fakeAPI struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newFakeAPI(t *testing.T) *fakeAPI {
	f := &fakeAPI{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "cus_missing" {
			writeJSON(w, 404, `{"error":{"type":"invalid_request_error","code":"resource_missing","message":"No such customer: 'cus_missing'"}}`)
			return
		}
		writeJSON(w, 200, fmt.Sprintf(`{"id":%q,"object":"customer","email":"jane@example.com"}`, r.PathValue("id")))
	})
	mux.HandleFunc("DELETE /v1/customers/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, fmt.Sprintf(`{"id":%q,"object":"customer","deleted":true}`, r.PathValue("id")))
	})
	mux.HandleFunc("GET /api/v1/namespaces/{ns}/pods/{name}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("name") == "missing" {
			writeJSON(w, 404, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"missing\" not found","reason":"NotFound","code":404}`)
			return
		}
		writeJSON(w, 200, fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":%q,"namespace":%q},"spec":{"containers":[{"name":"web","image":"nginx:1.27"}]}}`, r.PathValue("name"), r.PathValue("ns")))
	})
	mux.HandleFunc("DELETE /api/v1/namespaces/{ns}/pods/{name}", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, `{"kind":"Status","apiVersion":"v1","status":"Success"}`)
	})
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.seen = append(f.seen, r.Method+" "+r.URL.Path)
		f.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Close)
	return f
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// requests returns the requests so far and forgets them.
func (f *fakeAPI) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.seen
	f.seen = nil
	return out
}
