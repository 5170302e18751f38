package runtime

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStepUpChallenge: a tools/call naming (Mcp-Name) a tool whose scopes
// the token lacks gets 403 insufficient_scope with the scopes to ask; a
// token with them, or a tool without scopes, goes through; a server
// that names no authorization server answers with the tool error.
func TestStepUpChallenge(t *testing.T) {
	def := &ServerDef{Name: "steps", DefaultBaseURL: "http://127.0.0.1:1", Tools: []*Tool{
		{Name: "write_it", Description: "Writes.", InputSchema: `{"type":"object"}`, Scopes: []string{"events.write"}, Op: &Operation{Method: "POST", Path: "/w"}},
		{Name: "read_it", Description: "Reads.", InputSchema: `{"type":"object"}`, Op: &Operation{Method: "GET", Path: "/r"}},
	}}
	tokens := map[string]Caller{
		"reader-token-0123456789": {Subject: "r", Scopes: []string{"events.read"}},
		"writer-token-0123456789": {Subject: "w", Scopes: []string{"events.write"}},
	}
	srv, err := NewServer(def, Options{Auth: &AuthOptions{Tokens: tokens, Issuer: "https://issuer.example"}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	plain, err := NewServer(def, Options{Auth: &AuthOptions{Tokens: tokens}})
	if err != nil {
		t.Fatal(err)
	}
	plainHS := httptest.NewServer(plain.HTTPHandler())
	defer plainHS.Close()
	post := func(token, tool string) *http.Response { return postTo(t, hs.URL, token, tool) }
	resp := post("reader-token-0123456789", "write_it")
	ch := resp.Header.Get("WWW-Authenticate")
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(ch, `error="insufficient_scope"`) || !strings.Contains(ch, `scope="events.read events.write"`) || !strings.Contains(ch, "resource_metadata=") {
		t.Fatalf("reader calling write_it: %d %q", resp.StatusCode, ch)
	}
	for _, tc := range []struct{ token, tool string }{{"writer-token-0123456789", "write_it"}, {"reader-token-0123456789", "read_it"}} {
		if resp := post(tc.token, tc.tool); resp.StatusCode == http.StatusForbidden {
			t.Fatalf("%s calling %s: 403 %q", tc.token, tc.tool, resp.Header.Get("WWW-Authenticate"))
		}
	}
	if resp := postTo(t, plainHS.URL, "reader-token-0123456789", "write_it"); resp.StatusCode != http.StatusOK {
		t.Fatalf("without an issuer: %d, want 200 with the forbidden tool error", resp.StatusCode)
	}
}

// postTo sends a 2026-07-28 tools/call with its Mcp-* headers.
func postTo(t *testing.T, endpoint, token, tool string) *http.Response {
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
