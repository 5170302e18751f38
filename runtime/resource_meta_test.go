package runtime

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// resourceMetaServer serves a one-tool server needing the scope
// loans:read and a hand-written one needing loans:renew, with auth, over
// the mux Main serves.
func resourceMetaServer(t *testing.T, a *AuthOptions) *httptest.Server {
	t.Helper()
	def := &ServerDef{Name: "lib", Title: "Library", EnvPrefix: "LIB", Tools: []*Tool{{Name: "my_loans", InputSchema: `{"type":"object"}`,
		Scopes: []string{"loans:read"}, Op: &Operation{Method: "GET", Path: "/loans"}}}}
	// A hand-written tool's scope is the server's too.
	renew, err := NewTool(Tool{Name: "renew_loan", Description: "Renew a loan.", Scopes: []string{"loans:renew"}},
		func(context.Context, *Call, struct{}) (struct{}, error) { return struct{}{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(def, Options{BaseURL: "http://127.0.0.1:9", Auth: a, Tools: []*Tool{renew}, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(httpMux(srv))
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs
}

// ecJWKS writes a JWKS file with one fresh P-256 key.
func ecJWKS(t *testing.T) string {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return jwksFile(t, k)
}

// challenge posts to /mcp without a token and returns the
// resource_metadata parameter of the 401's Bearer challenge.
func challenge(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Post(url+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, want 401", resp.StatusCode)
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil || len(cs) != 1 || cs[0].Scheme != "bearer" {
		t.Fatalf("challenge %q: %v", resp.Header.Values("WWW-Authenticate"), err)
	}
	return cs[0].Params["resource_metadata"]
}

// TestProtectedResourceMetadata: with an authorization server configured,
// a 401 points at RFC 9728 metadata that the go-sdk's OAuth discovery
// accepts for this endpoint, naming the issuer and the tools' scopes;
// a configured public URL wins over the request's host; with static
// tokens alone there is no metadata to point at.
func TestProtectedResourceMetadata(t *testing.T) {
	jwks := ecJWKS(t)
	hs := resourceMetaServer(t, &AuthOptions{JWKS: jwks, Issuer: "https://id.example.com", Audience: "https://mcp.example.com/mcp"})
	metaURL := challenge(t, hs.URL)
	if want := hs.URL + "/.well-known/oauth-protected-resource/mcp"; metaURL != want {
		t.Fatalf("resource_metadata = %q, want %q", metaURL, want)
	}
	prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), metaURL, hs.URL+"/mcp", hs.Client())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(prm.AuthorizationServers, []string{"https://id.example.com"}) || !slices.Equal(prm.ScopesSupported, []string{"loans:read", "loans:renew"}) ||
		!slices.Equal(prm.BearerMethodsSupported, []string{"header"}) || prm.ResourceName != "Library" {
		t.Errorf("metadata %+v", prm)
	}
	if _, err := oauthex.GetProtectedResourceMetadata(context.Background(), hs.URL+"/.well-known/oauth-protected-resource", hs.URL+"/mcp", hs.Client()); err != nil {
		t.Errorf("the root well-known form: %v", err)
	}

	public := resourceMetaServer(t, &AuthOptions{JWKS: jwks, Issuer: "https://id.example.com", Audience: "https://mcp.example.com/mcp", Resource: "https://mcp.example.com/mcp"})
	if got := challenge(t, public.URL); got != "https://mcp.example.com/.well-known/oauth-protected-resource/mcp" {
		t.Errorf("with a public URL, resource_metadata = %q", got)
	}
	if _, err := oauthex.GetProtectedResourceMetadata(context.Background(), public.URL+"/.well-known/oauth-protected-resource/mcp", "https://mcp.example.com/mcp", public.Client()); err != nil {
		t.Errorf("with a public URL: %v", err)
	}

	static := resourceMetaServer(t, &AuthOptions{Tokens: map[string]Caller{"static-token-0123456789": {Subject: "alice"}}})
	if got := challenge(t, static.URL); got != "" {
		t.Errorf("static tokens only: resource_metadata = %q, want none", got)
	}
	resp, err := http.Get(static.URL + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("static tokens only: metadata answers %d, want 404", resp.StatusCode)
	}
}

// TestResourceMustBeAbsolute: a public URL that is not absolute is refused
// at start, not published.
func TestResourceMustBeAbsolute(t *testing.T) {
	_, err := NewServer(&ServerDef{Name: "lib", EnvPrefix: "LIB"}, Options{BaseURL: "http://127.0.0.1:9",
		Auth: &AuthOptions{JWKS: ecJWKS(t), Issuer: "https://id.example.com", Audience: "https://mcp.example.com/mcp", Resource: "mcp.example.com/mcp"}, Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "not an absolute URL") {
		t.Errorf("err = %v", err)
	}
}
