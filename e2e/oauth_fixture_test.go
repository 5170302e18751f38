//go:build linux && e2e

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestOAuthFixture checks the fixture the per-user cases stand on, by
// itself: the provider's code flow with PKCE, refresh, RFC 8693 exchange
// (and its refusal), revocation; the notes API's checks of signature,
// audience, scope, liveness and subject. A fixture that accepted any
// token would make every per-user case pass for the wrong reason.
func TestOAuthFixture(t *testing.T) {
	const public = "http://127.0.0.1:1"
	w := startOAuthWorld(t, worldOptions{publicURLs: []string{public}, accessLifetime: 2 * time.Second, denyExchange: []string{"bob"}})
	callback := public + "/oauth2/callback"

	// The server's code flow (confidential client, PKCE, offline_access).
	codeFlow := func(user string) tokenAnswer {
		t.Helper()
		verifier, challenge := pkce()
		q := url.Values{"client_id": {serverClientID}, "redirect_uri": {callback}, "response_type": {"code"},
			"scope": {"notes:read offline_access"}, "state": {"st"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
		end := newBrowser(user).visit(t, w.issuer+"/auth?"+q.Encode(), callback)
		if end.url.Query().Get("state") != "st" {
			t.Fatalf("the provider did not return the state: %s", end.url)
		}
		return w.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {end.url.Query().Get("code")},
			"redirect_uri": {callback}, "code_verifier": {verifier}})
	}
	alice := codeFlow("alice")
	if alice.AccessToken == "" || alice.RefreshToken == "" || strings.Count(alice.AccessToken, ".") != 2 {
		t.Fatalf("code flow: want a JWT access token and a refresh token, got %+v", alice)
	}
	if st, body := w.notes(t, "GET", "/notes", alice.AccessToken); st != 200 || !strings.Contains(body, `"owner":"alice"`) {
		t.Fatalf("alice's token at the notes API: %d %s", st, body)
	}
	if st, _ := w.notes(t, "POST", "/notes", alice.AccessToken); st != http.StatusForbidden {
		t.Errorf("a token without notes:write creating a note: %d, want 403", st)
	}
	if st, _ := w.notes(t, "GET", "/notes", w.mcpToken(t, "alice")); st != http.StatusUnauthorized {
		t.Errorf("an MCP token (aud mcp-client) at the notes API: %d, want 401", st)
	}
	forged := alice.AccessToken[:strings.LastIndex(alice.AccessToken, ".")+1] + "AAAA"
	if st, _ := w.notes(t, "GET", "/notes", forged); st != http.StatusUnauthorized {
		t.Errorf("a token with a bad signature: %d, want 401", st)
	}

	// A code is single use; a wrong verifier is refused.
	verifier, challenge := pkce()
	q := url.Values{"client_id": {serverClientID}, "redirect_uri": {callback}, "response_type": {"code"},
		"scope": {"notes:read"}, "state": {"x"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	code := newBrowser("bob").visit(t, w.issuer+"/auth?"+q.Encode(), callback).url.Query().Get("code")
	if a := w.token(t, url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {callback}, "code_verifier": {verifier + "x"}}); a.AccessToken != "" {
		t.Errorf("a wrong PKCE verifier got a token")
	}

	// Expiry and refresh.
	time.Sleep(3 * time.Second)
	if st, _ := w.notes(t, "GET", "/notes", alice.AccessToken); st != http.StatusUnauthorized {
		t.Errorf("an expired token: %d, want 401", st)
	}
	fresh := w.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {alice.RefreshToken}})
	if st, _ := w.notes(t, "GET", "/notes", fresh.AccessToken); st != 200 {
		t.Fatalf("the refreshed token: %d", st)
	}

	// Exchange: alice's MCP token for a notes-api token of alice; bob's
	// is refused with the provider's reason.
	ex := w.token(t, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token": {w.mcpToken(t, "alice")}, "subject_token_type": {"urn:ietf:params:oauth:token-type:access_token"},
		"audience": {exchangeAudience}, "scope": {"notes:read"}})
	if st, body := w.notes(t, "GET", "/notes", ex.AccessToken); st != 200 || !strings.Contains(body, `"owner":"alice"`) {
		t.Errorf("alice's exchanged token: %d %s (%+v)", st, body, ex)
	}
	denied := w.token(t, url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"},
		"subject_token": {w.mcpToken(t, "bob")}, "subject_token_type": {"urn:ietf:params:oauth:token-type:access_token"},
		"audience": {exchangeAudience}})
	if denied.AccessToken != "" || denied.Error != "access_denied" {
		t.Errorf("bob's exchange: want access_denied, got %+v", denied)
	}

	// Revocation: the user's tokens stop working at the API at once and
	// the refresh token is dead.
	w.revokeUser(t, "alice")
	if st, _ := w.notes(t, "GET", "/notes", fresh.AccessToken); st != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", st)
	}
	if a := w.token(t, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {fresh.RefreshToken}}); a.AccessToken != "" {
		t.Errorf("a revoked refresh token was refreshed")
	}
}

// tokenAnswer is a token endpoint's answer.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int    `json:"expires_in"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// token posts form to the token endpoint as the server's confidential
// client.
func (w *oauthWorld) token(t *testing.T, form url.Values) tokenAnswer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.issuer+"/oauth/token", strings.NewReader(form.Encode()))
	must(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(serverClientID, serverSecret)
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	var a tokenAnswer
	_ = json.NewDecoder(resp.Body).Decode(&a)
	return a
}

// notes calls the notes API with a bearer token; POST sends a new note.
func (w *oauthWorld) notes(t *testing.T, method, path, token string) (int, string) {
	t.Helper()
	body := strings.NewReader("")
	if method == http.MethodPost {
		body = strings.NewReader(`{"title":"t"}`)
	}
	req, err := http.NewRequest(method, w.notesURL+path, body)
	must(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, string(b)
}
