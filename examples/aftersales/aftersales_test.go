package aftersales

// End-to-end tests of the after-sales example with the go-sdk client
// against the bundled backend: the ticket flow (query, handle, cancel with
// confirmation, create with input_required), handle lifecycle and
// ownership, requestState tampering and replay, every authentication
// rejection, rate limits, x-mcp-header, both protocol eras, and two
// replicas sharing a real redis-server.

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/oa2mcp/oa2mcp/runtime"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/examples/aftersales/backend"
)

const (
	tokenC1       = "token-ada-0123456789"
	tokenC2       = "token-ben-0123456789"
	tokenReadOnly = "token-ro-0123456789x"
	stateKey      = "test-state-key-0123456789abcdef0123456789"
)

// testClock is a controllable clock.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *testClock { return &testClock{now: time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// countingBackend is the bundled backend counting the requests it gets.
type countingBackend struct {
	URL   string
	calls atomic.Int64
	mu    sync.Mutex
	last  http.Header
}

func startBackend(t testing.TB) *countingBackend {
	b := &countingBackend{}
	h := backend.NewHandler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		b.mu.Lock()
		b.last = r.Header.Clone()
		b.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	b.URL = hs.URL + "/api"
	return b
}

func testTokens() map[string]runtime.Caller {
	return map[string]runtime.Caller{
		tokenC1:       {Subject: "C-1", Scopes: []string{"tickets:read", "tickets:write"}},
		tokenC2:       {Subject: "C-2", Scopes: []string{"tickets:read", "tickets:write"}},
		tokenReadOnly: {Subject: "C-1", Scopes: []string{"tickets:read"}},
	}
}

// startServer serves the generated server over Streamable HTTP.
func startServer(t testing.TB, baseURL string, opts Options) (*Server, string) {
	opts.BaseURL = baseURL
	if opts.StateKey == "" {
		opts.StateKey = stateKey
	}
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler())
	t.Cleanup(hs.Close)
	return srv, hs.URL
}

// bearer adds a token to every request.
type bearer struct {
	token string
	extra http.Header
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	for k, v := range b.extra {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

// elicitor answers elicitation requests and records them.
type elicitor struct {
	mu       sync.Mutex
	asked    []*mcp.ElicitParams
	action   string
	content  map[string]any
	disabled bool
}

func (e *elicitor) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, req.Params)
	content := map[string]any{}
	if props, ok := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any); ok {
		for k := range props {
			if v, ok := e.content[k]; ok {
				content[k] = v
			}
		}
	}
	if e.action != "accept" {
		content = nil
	}
	return &mcp.ElicitResult{Action: e.action, Content: content}, nil
}

func connectHTTP(t testing.TB, url, token, era string, el *elicitor, mrtr bool) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if el != nil {
		opts.ElicitationHandler = el.handle
	}
	if !mrtr {
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "aftersales-test", Version: "1"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: token, extra: http.Header{"Accept-Language": {"de-DE"}}}}}
	cs, err := client.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connect %s: %v", era, err)
	}
	t.Cleanup(func() { cs.Close() })
	// A 2026-07-28 client learns the x-mcp-header annotations from
	// tools/list; without them it cannot send Mcp-Param-* headers.
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return cs
}

// result is a decoded tool result.
type result struct {
	text    string
	isError bool
	// protocol is set for a JSON-RPC error (text is its message).
	protocol bool
	data     map[string]any
	raw      *mcp.CallToolResult
}

func callTool(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) result {
	t.Helper()
	r, err := tryCall(cs, name, args)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return r
}

// tryCall calls a tool (30 s at most), for goroutines that must not stop
// the test: a protocol error is returned.
func tryCall(cs *mcp.ClientSession, name string, args map[string]any) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return result{isError: true, text: err.Error()}, err
	}
	r := result{isError: res.IsError, raw: res}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if r.text != "" && !res.IsError {
		json.Unmarshal([]byte(r.text), &r.data)
	}
	return r, nil
}

func (r result) str(key string) string { s, _ := r.data[key].(string); return s }

var handleRE = regexp.MustCompile(`^tkt_[a-z2-7]{32}$`)

func mustOK(t testing.TB, r result, what string) {
	t.Helper()
	if r.isError {
		t.Fatalf("%s: isError: %s", what, r.text)
	}
}

// mustReject checks that a call was refused with a JSON-RPC error (a bad
// requestState is the client's fault, not the model's) naming wants.
func mustReject(t testing.TB, r result, what string, wants ...string) {
	t.Helper()
	if !r.protocol {
		t.Fatalf("%s: want a JSON-RPC error, got isError=%v %s", what, r.isError, r.text)
	}
	mustFail(t, r, what, wants...)
}

func mustFail(t testing.TB, r result, what string, wants ...string) {
	t.Helper()
	if !r.isError {
		t.Fatalf("%s: want isError, got %s", what, r.text)
	}
	for _, w := range wants {
		if !strings.Contains(r.text, w) {
			t.Errorf("%s: error lacks %q:\n%s", what, w, r.text)
		}
	}
}

// TestTicketFlow is the showcase over Streamable HTTP in the 2026-07-28
// era: estimate (read-only), query (returns a handle), create (asks the
// refund method, returns a handle), cancel through the handle (confirmed).
func TestTicketFlow(t *testing.T) {
	be := startBackend(t)
	clock := newClock()
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: clock.Now})
	el := &elicitor{action: "accept", content: map[string]any{"refund_method": "store_credit"}}
	cs := connectHTTP(t, url, tokenC1, "2026-07-28", el, true)

	// x-mcp-header reaches the client in the input schema.
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		if tool.Name == "aftersales_estimate_refund" && !strings.Contains(string(b), `"x-mcp-header":"Return-Reason"`) {
			t.Errorf("estimate_refund schema lacks x-mcp-header: %s", b)
		}
		if tool.Name == "aftersales_query_ticket" && !strings.Contains(tool.Description, "expires after 24 hours without use") {
			t.Errorf("creating tool does not state the handle lifetime: %s", tool.Description)
		}
	}

	est := callTool(t, cs, "aftersales_estimate_refund", map[string]any{"order_id": "O-100001", "reason": "changed_mind"})
	mustOK(t, est, "estimate")
	if est.data["amount"] == nil {
		t.Errorf("estimate without amount: %s", est.text)
	}
	if got := be.last.Get("Accept-Language"); got != "de-DE" {
		t.Errorf("allowlisted header not passed through: %q", got)
	}

	q := callTool(t, cs, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"})
	mustOK(t, q, "query")
	if h := q.str("ticket_handle"); !handleRE.MatchString(h) {
		t.Fatalf("query_ticket returned no handle: %s", q.text)
	}

	created := callTool(t, cs, "aftersales_create_ticket", map[string]any{"order_id": "O-100002", "reason": "defect", "description": "Crackles."})
	mustOK(t, created, "create")
	if created.str("refund_method") != "store_credit" {
		t.Errorf("refund method not taken from the user's answer: %s", created.text)
	}
	if len(el.asked) != 1 || !strings.Contains(el.asked[0].Message, "money back") {
		t.Fatalf("user not asked for the refund method: %+v", el.asked)
	}
	if be.last.Get("Idempotency-Key") == "" {
		t.Errorf("create sent no Idempotency-Key")
	}
	handle := created.str("ticket_handle")
	if !handleRE.MatchString(handle) {
		t.Fatalf("create_ticket returned no handle: %s", created.text)
	}

	cancelled := callTool(t, cs, "aftersales_cancel_ticket", map[string]any{"ticket": handle, "reason": "Changed plans."})
	mustOK(t, cancelled, "cancel")
	if cancelled.str("status") != "cancelled" || cancelled.str("ticket_id") != created.str("ticket_id") {
		t.Errorf("cancel: %s", cancelled.text)
	}
	if len(el.asked) != 2 || !strings.Contains(el.asked[1].Message, "Cancel ticket "+created.str("ticket_id")) {
		t.Errorf("confirmation not asked with the ticket number: %+v", el.asked[len(el.asked)-1])
	}
}

// TestHandleLifecycle covers expiry (sliding), foreign, forged and
// malformed handles; none of the bad ones reaches the upstream.
func TestHandleLifecycle(t *testing.T) {
	be := startBackend(t)
	clock := newClock()
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: clock.Now})
	el := &elicitor{action: "accept"}
	ada := connectHTTP(t, url, tokenC1, "2026-07-28", el, true)
	ben := connectHTTP(t, url, tokenC2, "2026-07-28", el, true)

	h1 := callTool(t, ada, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"}).str("ticket_handle")
	h2 := callTool(t, ada, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1003"}).str("ticket_handle")
	if h1 == "" || h1 == h2 {
		t.Fatalf("handles %q %q", h1, h2)
	}
	before := be.calls.Load()
	bad := map[string][]string{
		"T-2026-1001":                    {"is not a ticket handle", "aftersales_create_ticket or aftersales_query_ticket"},
		"tkt_abc":                        {"is not a ticket handle"},
		"tkt_" + strings.Repeat("a", 32): {"unknown or has expired", "aftersales_create_ticket or aftersales_query_ticket"},
		"xyz_" + strings.Repeat("a", 32): {"is not a ticket handle"},
		strings.Repeat("\x00", 40):       {"is not a ticket handle"},
	}
	for v, wants := range bad {
		r := callTool(t, ada, "aftersales_cancel_ticket", map[string]any{"ticket": v, "reason": "plans changed"})
		mustFail(t, r, fmt.Sprintf("handle %q", v), wants...)
	}
	// Another caller's handle: refused, nothing about the owner.
	r := callTool(t, ben, "aftersales_cancel_ticket", map[string]any{"ticket": h1, "reason": "plans changed"})
	mustFail(t, r, "foreign handle", "was not issued to you")
	for _, leak := range []string{"C-1", "Ada", "T-2026-1001"} {
		if strings.Contains(r.text, leak) {
			t.Errorf("foreign-handle error reveals %q: %s", leak, r.text)
		}
	}
	if n := be.calls.Load() - before; n != 0 {
		t.Errorf("bad handles reached the upstream %d times", n)
	}
	if len(el.asked) != 0 {
		t.Errorf("user asked to confirm a call with a bad handle")
	}
	// Sliding expiry: a use at 23h renews h1; h2 (unused) expires at 24h.
	clock.Advance(23 * time.Hour)
	el.action = "decline"
	r = callTool(t, ada, "aftersales_cancel_ticket", map[string]any{"ticket": h1, "reason": "plans changed"})
	mustFail(t, r, "declined", "The user declined")
	clock.Advance(2 * time.Hour)
	r = callTool(t, ada, "aftersales_cancel_ticket", map[string]any{"ticket": h2, "reason": "plans changed"})
	mustFail(t, r, "expired h2", "unknown or has expired", "after 24 hours without use")
	el.action = "cancel"
	r = callTool(t, ada, "aftersales_cancel_ticket", map[string]any{"ticket": h1, "reason": "plans changed"})
	mustFail(t, r, "dismissed (h1 renewed)", "dismissed the form")
	clock.Advance(25 * time.Hour)
	r = callTool(t, ada, "aftersales_cancel_ticket", map[string]any{"ticket": h1, "reason": "plans changed"})
	mustFail(t, r, "expired h1", "unknown or has expired")
}

// TestRequestState drives input_required by hand: the state is bound to
// tool, arguments, caller and time, and is single use.
func TestRequestState(t *testing.T) {
	be := startBackend(t)
	clock := newClock()
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: clock.Now})
	el := &elicitor{}
	ada := connectHTTP(t, url, tokenC1, "2026-07-28", el, false)
	ben := connectHTTP(t, url, tokenC2, "2026-07-28", el, false)
	args := map[string]any{"order_id": "O-100002", "reason": "defect"}
	ctx := context.Background()
	first := func() *mcp.CallToolResult {
		res, err := ada.CallTool(ctx, &mcp.CallToolParams{Name: "aftersales_create_ticket", Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() || res.RequestState == "" || res.InputRequests["oa2mcp_input"] == nil {
			t.Fatalf("want input_required, got %+v", res)
		}
		return res
	}
	answer := mcp.InputResponseMap{"oa2mcp_input": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"refund_method": "original_payment"}}}
	retry := func(cs *mcp.ClientSession, name string, a map[string]any, state string, resp mcp.InputResponseMap) result {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a, RequestState: state, InputResponses: resp})
		if err != nil {
			return result{isError: true, protocol: true, text: err.Error()}
		}
		r := result{isError: res.IsError, raw: res}
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				r.text += tc.Text
			}
		}
		return r
	}
	before := be.calls.Load()
	st := first().RequestState
	tampered := []string{
		st[:len(st)-2] + "xx",
		strings.Replace(st, "v1.", "v1.e", 1),
		"v1.eyJ0IjoiYWZ0ZXJzYWxlc19jcmVhdGVfdGlja2V0In0.AAAA",
		"garbage", strings.Repeat("A", 5000),
	}
	for _, bad := range tampered {
		mustReject(t, retry(ada, "aftersales_create_ticket", args, bad, answer), "tampered state", "not one this server issued")
	}
	// Bound to the caller, the tool and the arguments.
	mustReject(t, retry(ben, "aftersales_create_ticket", args, st, answer), "other caller", "belongs to a different call")
	mustReject(t, retry(ada, "aftersales_create_ticket", map[string]any{"order_id": "O-100001", "reason": "defect"}, st, answer), "other args", "belongs to a different call")
	// Missing answers: asked again, not an error.
	res, err := ada.CallTool(ctx, &mcp.CallToolParams{Name: "aftersales_create_ticket", Arguments: args, RequestState: st})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("missing answers: want input_required again, got %+v %v", res, err)
	}
	// An invalid answer is asked again, naming the problem, and leaves
	// the state usable: the user corrects it rather than starting over.
	keptArgs := map[string]any{"order_id": "O-100001", "reason": "defect"}
	res, err = ada.CallTool(ctx, &mcp.CallToolParams{Name: "aftersales_create_ticket", Arguments: keptArgs})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("want input_required, got %+v %v", res, err)
	}
	kept := res.RequestState
	bad := retry(ada, "aftersales_create_ticket", keptArgs, kept,
		mcp.InputResponseMap{"oa2mcp_input": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"refund_method": "cash"}}})
	ep, _ := bad.raw.InputRequests["oa2mcp_input"].(*mcp.ElicitParams)
	if bad.isError || !bad.raw.NeedsInput() || ep == nil || !strings.Contains(ep.Message, "not valid") || bad.raw.RequestState == "" {
		t.Fatalf("invalid answer: want input_required naming the problem, got %+v", bad.raw)
	}
	if n := be.calls.Load() - before; n != 0 {
		t.Errorf("bad states reached the upstream %d times", n)
	}
	// The state whose answer was invalid still takes a corrected one, once.
	// (The order has an open ticket: reaching the upstream, which says
	// so, shows the state was accepted.)
	calls := be.calls.Load()
	if r := retry(ada, "aftersales_create_ticket", keptArgs, kept, answer); strings.Contains(r.text, "requestState") || be.calls.Load() == calls {
		t.Fatalf("corrected answer: the kept state was refused: %s", r.text)
	}
	mustReject(t, retry(ada, "aftersales_create_ticket", keptArgs, kept, answer), "replay of the corrected answer", "already used")
	// Expired.
	old := first().RequestState
	clock.Advance(6 * time.Minute)
	mustReject(t, retry(ada, "aftersales_create_ticket", args, old, answer), "expired state", "after the request expired")
	// Accepted once; a replay is refused.
	st = first().RequestState
	ok := retry(ada, "aftersales_create_ticket", args, st, answer)
	mustOK(t, ok, "valid retry")
	mustReject(t, retry(ada, "aftersales_create_ticket", args, st, answer), "replay", "already used")
}

// TestAuthRejections checks every rejection path of the HTTP transport
// and of the tools.
func TestAuthRejections(t *testing.T) {
	be := startBackend(t)
	clock := newClock()
	dir := t.TempDir()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	otherKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	jwks := fmt.Sprintf(`{"keys":[{"kty":"RSA","kid":"r1","use":"sig","n":%q,"e":%q},{"kty":"EC","kid":"e1","crv":"P-256","x":%q,"y":%q}]}`,
		b64(rsaKey.N.Bytes()), b64(big.NewInt(int64(rsaKey.E)).Bytes()), b64(pad32(ecKey.X)), b64(pad32(ecKey.Y)))
	jwksFile := filepath.Join(dir, "jwks.json")
	os.WriteFile(jwksFile, []byte(jwks), 0o600)
	tokFile := filepath.Join(dir, "tokens")
	os.WriteFile(tokFile, []byte("# static tokens\nfile-token-0123456789 C-2 tickets:read\n"), 0o600)
	_, url := startServer(t, be.URL, Options{Now: clock.Now, Auth: &runtime.AuthOptions{Tokens: testTokens(), TokensFile: tokFile,
		JWKS: jwksFile, Issuer: "https://id.example.com", Audience: "aftersales-mcp"}})

	now := clock.Now().Unix()
	good := map[string]any{"iss": "https://id.example.com", "aud": "aftersales-mcp", "sub": "C-1", "exp": now + 600, "scope": "tickets:read tickets:write"}
	with := func(k string, v any) map[string]any {
		c := map[string]any{}
		for a, b := range good {
			c[a] = b
		}
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
		return c
	}
	post := func(auth string) *http.Response {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	for _, c := range []struct {
		name, auth, wantChallenge string
		status                    int
	}{
		{"no token", "", `Bearer realm="aftersales"`, 401},
		{"not bearer", "Basic dXNlcjpwdw==", `Bearer realm="aftersales"`, 401},
		{"unknown static", "Bearer not-a-known-token-123", `error="invalid_token"`, 401},
		{"static ok", "Bearer " + tokenC1, "", 200},
		{"file token ok", "Bearer file-token-0123456789", "", 200},
		{"rs256 ok", "Bearer " + signRS(rsaKey, "r1", good), "", 200},
		{"es256 ok", "Bearer " + signES(ecKey, "e1", good), "", 200},
		{"expired", "Bearer " + signRS(rsaKey, "r1", with("exp", now-3600)), `error_description="the JWT has expired"`, 401},
		{"no exp", "Bearer " + signRS(rsaKey, "r1", with("exp", nil)), "no exp claim", 401},
		{"not yet", "Bearer " + signRS(rsaKey, "r1", with("nbf", now+3600)), "not valid yet", 401},
		{"wrong issuer", "Bearer " + signRS(rsaKey, "r1", with("iss", "https://evil.example.com")), "another issuer", 401},
		{"wrong audience", "Bearer " + signRS(rsaKey, "r1", with("aud", []any{"other"})), "another audience", 401},
		{"no sub", "Bearer " + signRS(rsaKey, "r1", with("sub", nil)), "no sub claim", 401},
		{"foreign key", "Bearer " + signRS(otherKey, "r1", good), "bad JWT signature", 401},
		{"unknown kid", "Bearer " + signRS(rsaKey, "zz", good), `no key`, 401},
		{"alg none", "Bearer " + unsigned(good), "not accepted", 401},
		{"malformed", "Bearer a.b.c", `error="invalid_token"`, 401},
	} {
		resp := post(c.auth)
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
		}
		if ch := resp.Header.Get("WWW-Authenticate"); c.wantChallenge != "" && !strings.Contains(ch, c.wantChallenge) {
			t.Errorf("%s: WWW-Authenticate %q lacks %q", c.name, ch, c.wantChallenge)
		}
	}
	// Tool level: a read-only token cannot cancel or create. A
	// 2026-07-28 client (Mcp-Name header) is challenged to step up (403
	// insufficient_scope: this server names its issuer); an older one
	// gets the tool error.
	ro := connectHTTP(t, url, tokenReadOnly, "2026-07-28", &elicitor{action: "accept"}, true)
	h := callTool(t, ro, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"}).str("ticket_handle")
	if _, err := tryCall(ro, "aftersales_cancel_ticket", map[string]any{"ticket": h, "reason": "plans changed"}); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a modern client without the scope: %v, want a 403 step-up challenge", err)
	}
	old := connectHTTP(t, url, tokenReadOnly, "2025-11-25", nil, true)
	h = callTool(t, old, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"}).str("ticket_handle")
	mustFail(t, callTool(t, old, "aftersales_cancel_ticket", map[string]any{"ticket": h, "reason": "plans changed"}), "scope", "needs the scope tickets:write")
	// Data level: customer_id comes from the token, never from the model.
	c2 := connectHTTP(t, url, "file-token-0123456789", "2026-07-28", nil, true)
	list := callTool(t, c2, "aftersales_list_tickets", map[string]any{})
	mustOK(t, list, "list as C-2")
	if strings.Contains(list.text, `"C-1"`) || !strings.Contains(list.text, `"C-2"`) {
		t.Errorf("list_tickets not bound to the caller: %s", list.text)
	}
	mustFail(t, callTool(t, c2, "aftersales_list_tickets", map[string]any{"customer_id": "C-1"}), "identity input from the model", "customer_id")
}

// TestRateLimit: a caller over the budget gets a retry-after isError;
// another caller is unaffected; the bucket refills with time.
func TestRateLimit(t *testing.T) {
	be := startBackend(t)
	clock := newClock()
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: clock.Now})
	ada := connectHTTP(t, url, tokenC1, "2026-07-28", nil, true)
	ben := connectHTTP(t, url, tokenC2, "2026-07-28", nil, true)
	args := map[string]any{"order_id": "O-100001", "reason": "defect"}
	for i := 0; i < 20; i++ {
		mustOK(t, callTool(t, ada, "aftersales_estimate_refund", args), "within burst")
	}
	r := callTool(t, ada, "aftersales_estimate_refund", args)
	mustFail(t, r, "over the limit", "120 calls per minute per caller", "Wait 1 seconds", "rate_limited", "retryable after 1 s")
	mustOK(t, callTool(t, ben, "aftersales_estimate_refund", map[string]any{"order_id": "O-100003", "reason": "defect"}), "other caller")
	clock.Advance(time.Second)
	mustOK(t, callTool(t, ada, "aftersales_estimate_refund", args), "after refill")
}

// TestMCPHeader: the go-sdk client mirrors the annotated input into
// Mcp-Param-Return-Reason; a mismatching header is refused with 400.
func TestMCPHeader(t *testing.T) {
	be := startBackend(t)
	_, url := startServer(t, be.URL, Options{})
	send := func(header string) int {
		body := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"aftersales_estimate_refund","arguments":{"order_id":"O-100001","reason":"defect"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "aftersales_estimate_refund")
		if header != "" {
			req.Header.Set("Mcp-Param-Return-Reason", header)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := send("defect"); got != 200 {
		t.Errorf("matching header: %d", got)
	}
	if got := send("changed_mind"); got != 400 {
		t.Errorf("mismatching header: %d, want 400", got)
	}
	if got := send(""); got != 400 {
		t.Errorf("missing header: %d, want 400", got)
	}
}

// TestOlderClientStatelessHTTP documents what a 2025-11-25 client gets
// on stateless HTTP: the server cannot send it an elicitation request, so
// a missing asked input is an isError naming it (the model asks the user
// in the conversation), and a confirmation-gated tool refuses.
func TestOlderClientStatelessHTTP(t *testing.T) {
	be := startBackend(t)
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}})
	el := &elicitor{action: "accept", content: map[string]any{"refund_method": "store_credit"}}
	cs := connectHTTP(t, url, tokenC1, "2025-11-25", el, true)
	r := callTool(t, cs, "aftersales_create_ticket", map[string]any{"order_id": "O-100002", "reason": "defect"})
	mustFail(t, r, "older client, missing input", "refund_method", "Ask the user")
	h := callTool(t, cs, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"}).str("ticket_handle")
	mustFail(t, callTool(t, cs, "aftersales_cancel_ticket", map[string]any{"ticket": h, "reason": "plans changed"}), "older client, confirm", "cannot be shown a confirmation form", "before 2026-07-28 over stateless HTTP")
	mustOK(t, callTool(t, cs, "aftersales_create_ticket", map[string]any{"order_id": "O-100002", "reason": "defect", "refund_method": "store_credit"}), "given by the model")
	if len(el.asked) != 0 {
		t.Errorf("older client on stateless HTTP was sent elicitations")
	}
}

// TestStdioOlderEra runs the built server over stdio in the 2025-11-25
// era: the SDK's bridge turns input_required into classic elicitation.
func TestStdioOlderEra(t *testing.T) {
	be := startBackend(t)
	bin := filepath.Join(t.TempDir(), "aftersales")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/aftersales").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "AFTERSALES_BASE_URL="+be.URL, "AFTERSALES_STDIO_CALLER=C-1 tickets:read tickets:write")
	el := &elicitor{action: "accept", content: map[string]any{"refund_method": "original_payment"}}
	client := mcp.NewClient(&mcp.Implementation{Name: "aftersales-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: el.handle})
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	created := callTool(t, cs, "aftersales_create_ticket", map[string]any{"order_id": "O-100002", "reason": "defect"})
	mustOK(t, created, "create over stdio")
	if created.str("refund_method") != "original_payment" || len(el.asked) != 1 {
		t.Fatalf("bridge did not ask: %s %+v", created.text, el.asked)
	}
	r := callTool(t, cs, "aftersales_cancel_ticket", map[string]any{"ticket": created.str("ticket_handle"), "reason": "Changed plans."})
	mustOK(t, r, "cancel over stdio")
	if r.str("status") != "cancelled" {
		t.Errorf("cancel: %s", r.text)
	}
}

// callRaw retries a call with a requestState and raw inputResponses.
func callRaw(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any, state string, responses []byte) result {
	t.Helper()
	var resp mcp.InputResponseMap
	if err := json.Unmarshal(responses, &resp); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, RequestState: state, InputResponses: resp})
	if err != nil {
		return result{isError: true, protocol: true, text: err.Error()}
	}
	r := result{isError: res.IsError, raw: res}
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if !res.IsError {
		json.Unmarshal([]byte(r.text), &r.data)
	}
	return r
}

// --- JWT helpers ---

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func pad32(n *big.Int) []byte {
	b := n.Bytes()
	return append(make([]byte, 32-len(b)), b...)
}

func jwtParts(alg, kid string, claims map[string]any) string {
	h, _ := json.Marshal(map[string]any{"alg": alg, "kid": kid, "typ": "JWT"})
	c, _ := json.Marshal(claims)
	return b64(h) + "." + b64(c)
}

func signRS(k *rsa.PrivateKey, kid string, claims map[string]any) string {
	in := jwtParts("RS256", kid, claims)
	sum := sha256.Sum256([]byte(in))
	sig, _ := rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	return in + "." + b64(sig)
}

func signES(k *ecdsa.PrivateKey, kid string, claims map[string]any) string {
	in := jwtParts("ES256", kid, claims)
	sum := sha256.Sum256([]byte(in))
	r, s, _ := ecdsa.Sign(rand.Reader, k, sum[:])
	return in + "." + b64(append(pad32(r), pad32(s)...))
}

func unsigned(claims map[string]any) string { return jwtParts("none", "", claims) + "." }

var _ = bytes.NewReader

// TestReturnBasket: a state handle over server-side state that grows over
// calls. add_return_item creates the basket and appends items, no upstream
// call; another caller cannot read it; close_return_basket consumes it.
func TestReturnBasket(t *testing.T) {
	be := startBackend(t)
	clock := newClock()
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: clock.Now})
	el := &elicitor{action: "accept"}
	ada := connectHTTP(t, url, tokenC1, "2026-07-28", el, true)
	ben := connectHTTP(t, url, tokenC2, "2026-07-28", el, true)
	before := be.calls.Load()
	tools, err := ada.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "aftersales_add_return_item" {
			continue
		}
		a := tl.Annotations
		if a.ReadOnlyHint || a.IdempotentHint || *a.DestructiveHint || *a.OpenWorldHint || !strings.Contains(tl.Description, "expires after 2 hours without use") {
			t.Errorf("add_return_item annotations %+v, description %q", a, tl.Description)
		}
	}

	r := callTool(t, ada, "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": "SKU-1", "quantity": 1})
	mustOK(t, r, "create basket")
	basket := r.str("basket_id")
	if !regexp.MustCompile(`^rb_[a-z2-7]{32}$`).MatchString(basket) {
		t.Fatalf("basket handle %q in %s", basket, r.text)
	}
	r = callTool(t, ada, "aftersales_add_return_item", map[string]any{"basket_id": basket, "order_id": "O-100002", "sku": "SKU-7", "quantity": 2})
	mustOK(t, r, "add second item")
	if r.str("basket_id") != basket {
		t.Errorf("update returned another handle: %s", r.text)
	}
	r = callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": basket})
	mustOK(t, r, "read basket")
	state, _ := r.data["state"].(map[string]any)
	items, _ := state["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("items: %s", r.text)
	}
	if it, _ := items[1].(map[string]any); it["order_id"] != "O-100002" || it["sku"] != "SKU-7" || it["quantity"] != float64(2) {
		t.Errorf("second item %v", items[1])
	}
	// Another caller: neither read nor update nor close.
	for _, tool := range []string{"aftersales_get_return_basket", "aftersales_close_return_basket"} {
		mustFail(t, callTool(t, ben, tool, map[string]any{"basket_id": basket}), "foreign "+tool, "was not issued to you")
	}
	mustFail(t, callTool(t, ben, "aftersales_add_return_item", map[string]any{"basket_id": basket, "order_id": "O-100003", "sku": "X", "quantity": 1}),
		"foreign add", "was not issued to you")
	// A ticket handle is no basket.
	mustFail(t, callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": "tkt_" + strings.Repeat("a", 32)}), "wrong type", "is not a return_basket handle")
	// Closing consumes it.
	r = callTool(t, ada, "aftersales_close_return_basket", map[string]any{"basket_id": basket})
	mustOK(t, r, "close basket")
	if state, _ := r.data["state"].(map[string]any); len(state["items"].([]any)) != 2 {
		t.Errorf("close result %s", r.text)
	}
	mustFail(t, callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": basket}), "consumed", "unknown or has expired", "aftersales_add_return_item")
	// Sliding lifetime of 2 hours.
	b2 := callTool(t, ada, "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": "SKU-1", "quantity": 1}).str("basket_id")
	clock.Advance(119 * time.Minute)
	mustOK(t, callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": b2}), "renewed")
	clock.Advance(119 * time.Minute)
	mustOK(t, callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": b2}), "renewed again")
	clock.Advance(121 * time.Minute)
	mustFail(t, callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": b2}), "expired", "after 2 hours without use")
	if n := be.calls.Load() - before; n != 0 {
		t.Errorf("basket tools called the upstream %d times", n)
	}
}
