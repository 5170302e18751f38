package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A real authorization server (token endpoint, authorization endpoint
// with a cookie "login"), a real upstream that checks the bearer token it
// receives and scopes data to its subject, and a generated-style server
// between them, all on 127.0.0.1.

// testAS is a small OAuth 2.0 authorization server: authorization code
// with PKCE S256, refresh tokens, RFC 8693 token exchange.
type testAS struct {
	*httptest.Server
	mu        sync.Mutex
	clientID  string
	secret    string
	redirect  string
	expiresIn int
	seq       int
	codes     map[string]asCode
	access    map[string]string // access token → user
	refresh   map[string]string // refresh token → user
	subjects  map[string]string // MCP token → user, for exchange
	grants    []string          // grant_type of every token request
}

type asCode struct{ user, challenge, redirect, scope string }

func newTestAS(t *testing.T) *testAS {
	as := &testAS{clientID: "cal-client", secret: "cal-secret-0123456789", expiresIn: 3600,
		codes: map[string]asCode{}, access: map[string]string{}, refresh: map[string]string{},
		subjects: map[string]string{"mcp-alice-0123456789": "alice", "mcp-bob-0123456789": "bob"}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", as.authorize)
	mux.HandleFunc("POST /token", as.token)
	as.Server = httptest.NewServer(mux)
	t.Cleanup(as.Close)
	return as
}

func (as *testAS) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	login, err := r.Cookie("as_user")
	if err != nil || q.Get("client_id") != as.clientID || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("redirect_uri") != as.redirect {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	as.mu.Lock()
	as.seq++
	code := fmt.Sprintf("code-%d", as.seq)
	as.codes[code] = asCode{user: login.Value, challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri"), scope: q.Get("scope")}
	as.mu.Unlock()
	http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
}

func (as *testAS) fail(w http.ResponseWriter, code, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

func (as *testAS) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	r.ParseForm()
	as.mu.Lock()
	defer as.mu.Unlock()
	as.grants = append(as.grants, r.Form.Get("grant_type"))
	if !ok || id != as.clientID || secret != as.secret {
		as.fail(w, "invalid_client", "client authentication failed")
		return
	}
	var user, scope string
	withRefresh := true
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		c, known := as.codes[r.Form.Get("code")]
		delete(as.codes, r.Form.Get("code"))
		sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
		if !known || c.redirect != r.Form.Get("redirect_uri") || base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
			as.fail(w, "invalid_grant", "code unknown or PKCE mismatch")
			return
		}
		user, scope = c.user, c.scope
	case "refresh_token":
		u, known := as.refresh[r.Form.Get("refresh_token")]
		if !known {
			as.fail(w, "invalid_grant", "refresh token revoked")
			return
		}
		delete(as.refresh, r.Form.Get("refresh_token"))
		user = u
	case tokenExchangeGrant:
		u, known := as.subjects[r.Form.Get("subject_token")]
		if !known || r.Form.Get("subject_token_type") != accessTokenType {
			// Echoes the subject token, as careless servers do.
			as.fail(w, "invalid_grant", "subject token "+r.Form.Get("subject_token")+" is not active")
			return
		}
		if r.Form.Get("audience") != "https://corp.example" {
			as.fail(w, "invalid_target", "audience not allowed")
			return
		}
		user, withRefresh = u, false
	default:
		as.fail(w, "unsupported_grant_type", "")
		return
	}
	as.seq++
	ans := map[string]any{"access_token": fmt.Sprintf("at-%s-%d-%s", user, as.seq, randomToken()[:12]), "token_type": "Bearer", "expires_in": as.expiresIn}
	as.access[ans["access_token"].(string)] = user
	if withRefresh {
		rt := fmt.Sprintf("rt-%s-%d-%s", user, as.seq, randomToken()[:12])
		as.refresh[rt] = user
		ans["refresh_token"] = rt
	}
	if scope != "" {
		ans["scope"] = scope
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ans)
}

// revoke forgets every token of user.
func (as *testAS) revoke(user string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	for _, m := range []map[string]string{as.access, as.refresh} {
		for k, v := range m {
			if v == user {
				delete(m, k)
			}
		}
	}
}

func (as *testAS) count(grant string) int {
	as.mu.Lock()
	defer as.mu.Unlock()
	n := 0
	for _, g := range as.grants {
		if g == grant {
			n++
		}
	}
	return n
}

// accountUpstream serves each token's owner their own data and records every
// Authorization header it receives.
type accountUpstream struct {
	*httptest.Server
	as   *testAS
	mu   sync.Mutex
	seen []string
}

func newAccountUpstream(t *testing.T, as *testAS) *accountUpstream {
	up := &accountUpstream{as: as}
	up.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Get("Authorization")
		up.mu.Lock()
		up.seen = append(up.seen, h)
		up.mu.Unlock()
		as.mu.Lock()
		user := as.access[strings.TrimPrefix(h, "Bearer ")]
		as.mu.Unlock()
		if user == "" || !strings.HasPrefix(h, "Bearer ") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io := `{"error":"invalid_token"}`
			w.Write([]byte(io))
			return
		}
		title := user + "'s event"
		if r.URL.Query().Get("echo") == "true" {
			title += " seen with " + h
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"user": user, "events": []any{map[string]any{"id": "1", "title": title}}})
	}))
	t.Cleanup(up.Close)
	return up
}

// headers are the Authorization headers the upstream received.
func (up *accountUpstream) headers() []string {
	up.mu.Lock()
	defer up.mu.Unlock()
	return append([]string(nil), up.seen...)
}

// recordingStore keeps every record written, to check what is at rest.
type recordingStore struct {
	HandleStore
	mu     sync.Mutex
	writes []HandleRecord
}

func (r *recordingStore) Put(ctx context.Context, key string, rec HandleRecord, ttl time.Duration) error {
	r.mu.Lock()
	r.writes = append(r.writes, rec)
	r.mu.Unlock()
	return r.HandleStore.Put(ctx, key, rec, ttl)
}

// authRig is a per_user and exchange server with its peers.
type authRig struct {
	t      *testing.T
	as     *testAS
	up     *accountUpstream
	srv    *Server
	mcp    *httptest.Server
	store  *recordingStore
	clock  *movingClock
	public string
	logs   *syncBuffer // every server's log, at debug level
}

const testTokenKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" // 32 bytes

func calDef(as *testAS, upURL string) *ServerDef {
	return &ServerDef{Name: "cal", EnvPrefix: "CAL", DefaultBaseURL: upURL,
		Security: []SecurityScheme{
			{Name: "cal_oauth", Kind: Bearer, UpstreamAuth: &UpstreamAuth{Mode: ModePerUser, AuthorizationURL: as.URL + "/authorize", TokenURL: as.URL + "/token",
				Scopes: []string{"offline_access"}, ClientIDEnv: "CAL_CAL_OAUTH_CLIENT_ID", ClientSecretEnv: "CAL_CAL_OAUTH_CLIENT_SECRET"}},
			{Name: "corp_oauth", Kind: Bearer, UpstreamAuth: &UpstreamAuth{Mode: ModeExchange, TokenURL: as.URL + "/token", Audience: "https://corp.example",
				ClientIDEnv: "CAL_CORP_OAUTH_CLIENT_ID", ClientSecretEnv: "CAL_CORP_OAUTH_CLIENT_SECRET"}},
		},
		Tools: []*Tool{
			{Name: "list_events", Description: "List your events.", ReadOnly: true,
				InputSchema: `{"type":"object","properties":{"echo":{"type":"boolean"}},"additionalProperties":false}`,
				Op: &Operation{Method: "GET", Path: "/events", Security: [][]string{{"cal_oauth"}},
					Params:         []Param{{Name: "echo", Arg: "echo", In: InQuery, Style: "form", Explode: true}},
					SecurityScopes: []SchemeScopes{{Scheme: "cal_oauth", Scopes: []string{"events.read"}}}}},
			{Name: "whoami", Description: "Who you are at corp.", ReadOnly: true,
				InputSchema: `{"type":"object","additionalProperties":false}`,
				Op:          &Operation{Method: "GET", Path: "/me", Security: [][]string{{"corp_oauth"}}}},
			{Name: "disconnect_account", Description: "Disconnect your account.", DisconnectsAccount: true, Destructive: true, Idempotent: true,
				InputSchema: `{"type":"object","properties":{"scheme":{"type":"string","enum":["cal_oauth"]}},"additionalProperties":false}`},
		}}
}

func newAuthRig(t *testing.T) *authRig {
	as := newTestAS(t)
	up := newAccountUpstream(t, as)
	rig := &authRig{t: t, as: as, up: up, clock: &movingClock{t: time.Now()}, logs: &syncBuffer{}}
	rig.store = &recordingStore{HandleStore: NewMemoryHandleStore(10000, rig.clock.Now)}
	rig.mcp = httptest.NewUnstartedServer(nil)
	rig.public = "http://" + rig.mcp.Listener.Addr().String()
	as.redirect = rig.public + "/oauth2/callback"
	rig.srv = rig.server(testTokenKey, rig.store)
	rig.mcp.Config.Handler = httpMux(rig.srv)
	rig.mcp.Start()
	t.Cleanup(rig.mcp.Close)
	return rig
}

// server makes a server of the rig's definition with the given token key
// and store (a replica, or one with another key).
func (rig *authRig) server(key string, store HandleStore) *Server {
	env := map[string]string{"CAL_TOKEN_KEY": key, "CAL_PUBLIC_URL": rig.public,
		"CAL_CAL_OAUTH_CLIENT_ID": rig.as.clientID, "CAL_CAL_OAUTH_CLIENT_SECRET": rig.as.secret,
		"CAL_CORP_OAUTH_CLIENT_ID": rig.as.clientID, "CAL_CORP_OAUTH_CLIENT_SECRET": rig.as.secret}
	logger := slog.New(slog.NewJSONHandler(rig.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := NewServer(calDef(rig.as, rig.up.URL), Options{Getenv: func(k string) string { return env[k] }, HandleStore: store, Now: rig.clock.Now, Logger: logger,
		Auth: &AuthOptions{Tokens: map[string]Caller{"mcp-alice-0123456789": {Subject: "alice"}, "mcp-bob-0123456789": {Subject: "bob"}, "mcp-carol-0123456789": {Subject: "carol"}}}})
	if err != nil {
		rig.t.Fatal(err)
	}
	rig.t.Cleanup(srv.Close)
	return srv
}

// client connects as the MCP token's owner; urlMode declares URL-mode
// elicitation (protocol 2026-07-28) and answers it with onURL.
func (rig *authRig) client(token string, onURL func(link string) error) *mcp.ClientSession {
	opts := &mcp.ClientOptions{}
	version := "2025-11-25"
	if onURL != nil {
		version = "2026-07-28"
		opts.Capabilities = &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}}
		opts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if req.Params.Mode != "url" {
				return nil, fmt.Errorf("want a url elicitation, got %q", req.Params.Mode)
			}
			if err := onURL(req.Params.URL); err != nil {
				return nil, err
			}
			return &mcp.ElicitResult{Action: "accept"}, nil
		}
	}
	hc := &http.Client{Transport: tokenTransport{token}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: rig.mcp.URL + "/mcp", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		rig.t.Fatal(err)
	}
	rig.t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text.
func (rig *authRig) call(cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	rig.t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		rig.t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

// browser is one user's browser: logged in at the authorization server.
type browser struct {
	c   *http.Client
	jar *cookiejar.Jar
}

func (rig *authRig) browser(user string) *browser {
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(rig.as.URL)
	jar.SetCookies(u, []*http.Cookie{{Name: "as_user", Value: user}})
	b := &browser{jar: jar}
	b.c = &http.Client{Jar: jar, Timeout: 10 * time.Second, CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == callbackPath {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	return b
}

// start opens a connect link and signs in; it returns the callback URL
// the authorization server redirected to (not yet visited).
func (b *browser) start(link string) (string, error) {
	resp, err := b.c.Get(link)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	loc := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.Contains(loc, callbackPath) {
		return "", fmt.Errorf("start: HTTP %d, Location %q", resp.StatusCode, loc)
	}
	return loc, nil
}

// finish visits the callback URL and returns the status.
func (b *browser) finish(callback string) int {
	resp, err := b.c.Get(callback)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// connect does the whole browser step for one link.
func (b *browser) connect(link string) error {
	cb, err := b.start(link)
	if err != nil {
		return err
	}
	if st := b.finish(cb); st != http.StatusOK {
		return fmt.Errorf("callback: HTTP %d", st)
	}
	return nil
}

var linkRE = regexp.MustCompile(`https?://[^\s;]+/oauth2/start\?flow=[A-Za-z0-9_%-]+`)

// storedAccess is the access token the vault holds for sub, "" if none.
func (rig *authRig) storedAccess(srv *Server, sub string) string {
	var st storedToken
	ok, err := srv.upstream.vault.get(context.Background(), srv.upstream.vault.tokenKey(sub, "cal_oauth"), &st)
	if err != nil || !ok {
		return ""
	}
	return st.Access
}
