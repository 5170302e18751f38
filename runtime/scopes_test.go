package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestScopedToolsNeedAuthOnHTTP: a tool that declares scopes refuses an
// unauthenticated call over Streamable HTTP, unless InsecureNoAuth says
// otherwise; stdio (one local user) and tools without scopes are served.
func TestScopedToolsNeedAuthOnHTTP(t *testing.T) {
	up := newSlowUpstream(t)
	def := &ServerDef{Name: "s", Tools: []*Tool{
		{Name: "scoped", Scopes: []string{"items:read"}, InputSchema: `{"type":"object"}`, Op: &Operation{Method: "GET", Path: "/fast"}},
		{Name: "open", InputSchema: `{"type":"object"}`, Op: &Operation{Method: "GET", Path: "/fast"}},
	}}
	call := func(t *testing.T, insecure bool, transport string, tool string) *mcp.CallToolResult {
		srv, err := NewServer(def, Options{BaseURL: up.URL, InsecureNoAuth: insecure})
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		var cs *mcp.ClientSession
		for _, tr := range transports {
			if tr.name == transport {
				var closeFn func()
				cs, closeFn = tr.connect(t, srv)
				defer closeFn()
			}
		}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(t, false, "http", "scoped"); !res.IsError || !strings.Contains(resultText(res), "items:read") || !strings.Contains(resultText(res), "[error kind: "+KindUnauthorized) {
		t.Errorf("scoped tool over HTTP without auth: %s", resultText(res))
	}
	for _, c := range []struct {
		insecure        bool
		transport, tool string
	}{{true, "http", "scoped"}, {false, "http", "open"}, {false, "stdio", "scoped"}} {
		if res := call(t, c.insecure, c.transport, c.tool); res.IsError {
			t.Errorf("%+v: %s", c, resultText(res))
		}
	}
}

// TestIdentityToolWithoutCaller: a tool bound to the caller's identity
// tells a stdio user how to name themselves, and an HTTP caller to bring
// a token; neither reaches the upstream.
func TestIdentityToolWithoutCaller(t *testing.T) {
	up := newSlowUpstream(t)
	def := &ServerDef{Name: "lib", EnvPrefix: "LIB", Tools: []*Tool{{Name: "my_loans", InputSchema: `{"type":"object"}`,
		Steps: []Step{{ID: "loans", Op: Operation{Method: "GET", Path: "/fast", Params: []Param{{Name: "X-Member", Arg: "m", In: InHeader, Style: "simple", Required: true}}},
			Args: []Binding{{Arg: "m", Expr: "${identity.sub}"}}}}}}}
	for transport, want := range map[string]string{"stdio": `LIB_STDIO_CALLER="THEIR_USER_ID [SCOPE...]"`, "http": "access token (bearer token)"} {
		srv, err := NewServer(def, Options{BaseURL: up.URL, InsecureNoAuth: true, Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range transports {
			if tr.name != transport {
				continue
			}
			cs, closeFn := tr.connect(t, srv)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "my_loans", Arguments: map[string]any{}})
			if err != nil || !res.IsError || !strings.Contains(resultText(res), want) {
				t.Errorf("%s: %v %s", transport, err, resultText(res))
			}
			closeFn()
		}
		srv.Close()
	}
}

// TestIdentityClaimMissing: a tool that binds a claim besides sub refuses
// a caller whose identity lacks it, before any upstream request, and
// serves one that has it.
func TestIdentityClaimMissing(t *testing.T) {
	up := newSlowUpstream(t)
	def := &ServerDef{Name: "lib", EnvPrefix: "LIB", Tools: []*Tool{{Name: "my_loans", InputSchema: `{"type":"object"}`,
		Steps: []Step{{ID: "loans", Op: Operation{Method: "GET", Path: "/fast", Params: []Param{{Name: "X-Member", Arg: "m", In: InHeader, Style: "simple", Required: true}}},
			Args: []Binding{{Arg: "m", Expr: "${identity.member_no}"}}}}}}}
	if got := def.Tools[0].IdentityClaims(); len(got) != 1 || got[0] != "member_no" {
		t.Fatalf("IdentityClaims = %v", got)
	}
	srv, err := NewServer(def, Options{BaseURL: up.URL, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := srv.CallTool(ContextWithCaller(context.Background(), map[string]string{"sub": "alice"}), "my_loans", map[string]any{})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), `needs the claim "member_no"`) {
		t.Errorf("caller without member_no: %v %s", err, resultText(res))
	}
	res, err = srv.CallTool(ContextWithCaller(context.Background(), map[string]string{"sub": "alice", "member_no": "M-7"}), "my_loans", map[string]any{})
	if err != nil || res.IsError {
		t.Errorf("caller with member_no: %v %s", err, resultText(res))
	}
}

// TestStdioCallerHints: over stdio, a tool that binds a claim besides sub
// tells the user the whole setting to make, with that claim, both when
// no caller is set and when the set caller lacks the claim.
func TestStdioCallerHints(t *testing.T) {
	up := newSlowUpstream(t)
	def := &ServerDef{Name: "lib", EnvPrefix: "LIB", Tools: []*Tool{{Name: "my_loans", InputSchema: `{"type":"object"}`,
		Steps: []Step{{ID: "loans", Op: Operation{Method: "GET", Path: "/fast", Params: []Param{{Name: "X-Member", Arg: "m", In: InHeader, Style: "simple", Required: true}}},
			Args: []Binding{{Arg: "m", Expr: "${identity.member_no}"}}}}}}}
	const example = `LIB_STDIO_CALLER="THEIR_USER_ID [SCOPE...] member_no=THEIR_MEMBER_NO"`
	for caller, want := range map[string][]string{
		"":      {"started without one", example},
		"alice": {`needs the claim "member_no"`, "LIB_STDIO_CALLER gives none", example},
	} {
		env := map[string]string{"LIB_STDIO_CALLER": caller}
		srv, err := NewServer(def, Options{BaseURL: up.URL, Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		cs, closeFn := transports[1].connect(t, srv) // stdio
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "my_loans", Arguments: map[string]any{}})
		if err != nil || !res.IsError {
			t.Fatalf("caller %q: %v %s", caller, err, resultText(res))
		}
		for _, w := range want {
			if !strings.Contains(resultText(res), w) {
				t.Errorf("caller %q: %s\nlacks %s", caller, resultText(res), w)
			}
		}
		closeFn()
		srv.Close()
	}
}
