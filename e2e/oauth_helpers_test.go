//go:build linux && e2e

package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// What the per-user credential tests share: the real authorization
// server and notes API of e2e/oauthfixture (built into .cache/bin by
// scripts/install-deps.sh), a generated notes server built from the
// notes API's spec and an override file, a browser (an HTTP client with
// cookies that posts the login form) and MCP callers, each with its own
// MCP access token from the authorization server.

const fixtureHint = "run scripts/install-deps.sh (it builds the OAuth fixture, e2e/oauthfixture, into .cache/bin)"

// The fixture's registrations: the public client MCP callers sign in
// with (their MCP tokens have aud mcp-client), the generated server's
// confidential client (upstream tokens have aud notes-mcp) and the notes
// API's own client for introspection. Exchanged tokens are asked for
// audience notes-api.
const (
	mcpClientID      = "mcp-client"
	mcpRedirect      = "http://127.0.0.1:1/callback" // never fetched: the browser stops there
	serverClientID   = "notes-mcp"
	serverSecret     = "notes-mcp-secret"
	signInClientID   = "notes-signin" // the servers' caller check (redirect PUBLIC_URL/oauth2/signed-in)
	signInSecret     = "notes-signin-secret"
	apiClientID      = "notes-api"
	apiSecret        = "notes-api-secret"
	exchangeAudience = "notes-api"
)

// passwords of the fixture's users (authserver --users).
var passwords = map[string]string{"alice": "alice-pw", "bob": "bob-pw", "carol": "carol-pw"}

// oauthWorld is one authorization server and one notes API, for servers
// on the given public URLs.
type oauthWorld struct {
	issuer   string // http://127.0.0.1:PORT
	notesURL string // http://127.0.0.1:PORT/v1
	notesLog string // the notes API's request log
}

// worldOptions tunes the authorization server.
type worldOptions struct {
	issuerAddr     string        // 127.0.0.1:PORT the authorization server listens on (its URL is baked into generated servers)
	publicURLs     []string      // the generated servers' public URLs (redirect URIs are PUBLIC_URL/oauth2/callback)
	accessLifetime time.Duration // default 5m
	denyExchange   []string      // users whose tokens token exchange refuses
}

func fixtureBin(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(testenv.RepoRoot(t), ".cache", "bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the OAuth fixture's %s is missing (%v); %s", name, err, fixtureHint)
	}
	return p
}

// startOAuthWorld starts the authorization server and the notes API.
func startOAuthWorld(t *testing.T, o worldOptions) *oauthWorld {
	t.Helper()
	if o.issuerAddr == "" {
		o.issuerAddr = "127.0.0.1:0"
	}
	if o.accessLifetime == 0 {
		o.accessLifetime = 5 * time.Minute
	}
	var redirects, signedIn []string
	for _, u := range o.publicURLs {
		redirects = append(redirects, u+"/oauth2/callback")
		signedIn = append(signedIn, u+"/oauth2/signed-in")
	}
	var users []string
	for u, p := range passwords {
		users = append(users, u+":"+p)
	}
	args := []string{"--addr", o.issuerAddr, "--users", strings.Join(users, ","),
		"--access-token-lifetime", o.accessLifetime.String(),
		"--client", mcpClientID + "::" + mcpRedirect,
		"--client", serverClientID + ":" + serverSecret + ":" + strings.Join(redirects, ","),
		"--client", signInClientID + ":" + signInSecret + ":" + strings.Join(signedIn, ","),
		"--client", apiClientID + ":" + apiSecret + ":http://127.0.0.1:1/unused"}
	if len(o.denyExchange) > 0 {
		args = append(args, "--deny-exchange", strings.Join(o.denyExchange, ","))
	}
	w := &oauthWorld{notesLog: filepath.Join(t.TempDir(), "notes.log")}
	w.issuer = startDaemon(t, "authserver", regexp.MustCompile(`^(http://127\.0\.0\.1:\d+)$`), fixtureBin(t, "authserver"), args...)
	w.notesURL = startDaemon(t, "notesapi", regexp.MustCompile(`notes api listening on (http://127\.0\.0\.1:\d+/v1)`), fixtureBin(t, "notesapi"),
		"--addr", "127.0.0.1:0", "--issuer", w.issuer, "--audience", serverClientID+","+exchangeAudience,
		"--introspect", apiClientID+":"+apiSecret, "--log", w.notesLog)
	return w
}

// revokeUser revokes every token the authorization server issued to user,
// as the user removing the application's access would.
func (w *oauthWorld) revokeUser(t *testing.T, user string) {
	t.Helper()
	resp, err := http.Post(w.issuer+"/admin/revoke?sub="+url.QueryEscape(user), "", nil)
	must(t, err)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("revoking %s's tokens: %s", user, resp.Status)
	}
}

// notesRequest is one line of the notes API's request log.
type notesRequest struct {
	Method, Path, Subject string
	AuthorizationSHA256   string `json:"authorization_sha256"`
	Status                int
}

func (w *oauthWorld) requests(t *testing.T) []notesRequest {
	t.Helper()
	f, err := os.Open(w.notesLog)
	if os.IsNotExist(err) {
		return nil
	}
	must(t, err)
	defer f.Close()
	var out []notesRequest
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r notesRequest
		must(t, json.Unmarshal(sc.Bytes(), &r))
		out = append(out, r)
	}
	return out
}

// requireNoMCPTokenUpstream fails if any MCP token reached the notes API.
func (w *oauthWorld) requireNoMCPTokenUpstream(t *testing.T, callers ...*caller) {
	t.Helper()
	reqs := w.requests(t)
	for _, c := range callers {
		h := bearerHash(c.token)
		for _, r := range reqs {
			if r.AuthorizationSHA256 == h {
				t.Errorf("%s's MCP access token reached the notes API: %s %s (status %d)", c.user, r.Method, r.Path, r.Status)
				break
			}
		}
	}
	if len(reqs) == 0 {
		t.Errorf("the notes API logged no request at all: the check that MCP tokens never reach it proves nothing")
	}
}

func bearerHash(token string) string {
	sum := sha256.Sum256([]byte("Bearer " + token))
	return hex.EncodeToString(sum[:])
}

// browser is one person's web browser: cookies, redirects followed one by
// one, the login form posted.
type browser struct {
	user   string
	client *http.Client
}

func newBrowser(user string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{user: user, client: &http.Client{Jar: jar, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// page is where a browser visit ended.
type page struct {
	url    *url.URL
	status int
	body   string
}

// visit opens start and follows redirects, signing in at the provider's
// login form; it stops before fetching a URL that begins with stopAt
// (and returns that URL), else at the first non-redirect answer.
func (b *browser) visit(t *testing.T, start, stopAt string) page {
	t.Helper()
	next, err := url.Parse(start)
	must(t, err)
	for hop := 0; hop < 24; hop++ {
		if stopAt != "" && strings.HasPrefix(next.String(), stopAt) {
			return page{url: next}
		}
		resp, err := b.client.Get(next.String())
		if err != nil {
			t.Fatalf("%s's browser: GET %s: %v", b.user, next, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if resp.StatusCode/100 == 3 {
			loc, err := resp.Location()
			must(t, err)
			next = loc
			continue
		}
		if resp.StatusCode == http.StatusOK && next.Path == "/login/username" {
			next = b.signIn(t, next)
			continue
		}
		return page{url: next, status: resp.StatusCode, body: string(body)}
	}
	t.Fatalf("%s's browser: more than 24 redirects from %s", b.user, start)
	return page{}
}

// signIn posts the login form of the provider's page at form and returns
// where the provider sends the browser next.
func (b *browser) signIn(t *testing.T, form *url.URL) *url.URL {
	t.Helper()
	id := form.Query().Get("authRequestID")
	action := form.ResolveReference(&url.URL{Path: "/login/username"})
	resp, err := b.client.PostForm(action.String(), url.Values{"id": {id}, "username": {b.user}, "password": {passwords[b.user]}})
	if err != nil {
		t.Fatalf("%s's browser: posting the login form: %v", b.user, err)
	}
	resp.Body.Close()
	loc, err := resp.Location()
	if err != nil {
		t.Fatalf("%s's browser: the login form answered %s, not a redirect", b.user, resp.Status)
	}
	return loc
}

// pkce is a code verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// mcpToken signs user in with the public MCP client (code + PKCE) and
// returns their MCP access token (a JWT with aud mcp-client).
func (w *oauthWorld) mcpToken(t *testing.T, user string) string {
	t.Helper()
	verifier, challenge := pkce()
	q := url.Values{"client_id": {mcpClientID}, "redirect_uri": {mcpRedirect}, "response_type": {"code"},
		"scope": {"openid notes:read notes:write"}, "state": {"s"}, "code_challenge": {challenge}, "code_challenge_method": {"S256"}}
	end := newBrowser(user).visit(t, w.issuer+"/auth?"+q.Encode(), mcpRedirect)
	code := end.url.Query().Get("code")
	if code == "" {
		t.Fatalf("%s: no code in %s", user, end.url)
	}
	resp, err := http.PostForm(w.issuer+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {mcpRedirect}, "client_id": {mcpClientID}, "code_verifier": {verifier}})
	must(t, err)
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("%s: token endpoint answered %s without an access token (%v)", user, resp.Status, err)
	}
	return tok.AccessToken
}

// notesServer is a generated notes server binary and how to run it.
type notesServer struct {
	bin string
}

// notesSpec is the notes API's spec, shipped with the fixture.
func notesSpec(t *testing.T) string {
	return filepath.Join(testenv.RepoRoot(t), "e2e", "oauthfixture", "cmd", "notesapi", "openapi.yaml")
}

// buildNotesServer generates a server named notes from spec and the
// override file text and builds it.
func buildNotesServer(t *testing.T, spec, overrides string) notesServer {
	t.Helper()
	root := testenv.RepoRoot(t)
	mod := testenv.TempModule(t, "notesmcp")
	ov := filepath.Join(t.TempDir(), "overrides.yaml")
	must(t, os.WriteFile(ov, []byte(overrides), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gen := exec.CommandContext(ctx, "go", "run", "./cmd/oa2mcp", "generate", "--spec", spec, "--overrides", ov,
		"--out", filepath.Join(mod, "notes"), "--name", "notes", "--no-call-tests")
	gen.Dir = root
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("oa2mcp generate: %v\n%s", err, truncate(string(out), 8000))
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(mod, "bin")+string(filepath.Separator), "./...")
	build.Dir = mod
	build.Env = testenv.GoEnv()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the generated notes server: %v\n%s", err, truncate(string(out), 8000))
	}
	return notesServer{bin: filepath.Join(mod, "bin", "notes")}
}

// freeAddrs reserves n loopback ports and releases them, so a server's
// public URL (and the redirect URI registered for it) is known before it
// starts.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var lns []net.Listener
	var out []string
	for i := 0; i < n; i++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		must(t, err)
		lns = append(lns, ln)
		out = append(out, ln.Addr().String())
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// tokenKey is a fresh NOTES_TOKEN_KEY: base64 of 32 random bytes.
func tokenKey() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// serverRun is how one replica of the notes server runs.
type serverRun struct {
	addr     string   // 127.0.0.1:PORT, reserved by freeAddrs
	key      string   // NOTES_TOKEN_KEY
	redisURL string   // handle store; empty: memory
	signIn   bool     // check that whoever opens a connect link is its caller
	extra    []string // more flags
}

// start runs a replica against w and returns its MCP endpoint.
func (s notesServer) start(t *testing.T, w *oauthWorld, r serverRun) string {
	t.Helper()
	env := []string{
		"NOTES_NOTES_AUTH_CLIENT_ID=" + serverClientID,
		"NOTES_NOTES_AUTH_CLIENT_SECRET=" + serverSecret,
		"NOTES_PUBLIC_URL=http://" + r.addr,
		"NOTES_TOKEN_KEY=" + r.key,
	}
	if r.redisURL != "" {
		env = append(env, "NOTES_HANDLE_STORE="+r.redisURL)
	}
	if r.signIn {
		env = append(env, "NOTES_SIGNIN_CLIENT_ID="+signInClientID, "NOTES_SIGNIN_CLIENT_SECRET="+signInSecret)
	}
	args := append([]string{"--transport", "http", "--addr", r.addr, "--base-url", w.notesURL,
		"--auth-jwks", w.issuer + "/keys", "--auth-issuer", w.issuer, "--auth-audience", mcpClientID}, r.extra...)
	return startDaemonEnv(t, "notes MCP server "+r.addr, regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`), env, s.bin, args...)
}

// startDaemonEnv is startDaemon with extra environment variables.
func startDaemonEnv(t *testing.T, name string, ready *regexp.Regexp, env []string, bin string, args ...string) string {
	t.Helper()
	addr, _ := startProcessEnv(t, name, ready, env, bin, args...)
	return addr
}

// caller is one MCP client of one user, with that user's MCP token and
// browser. Elicitations it receives are recorded; with autoConnect the
// caller follows a URL-mode elicitation in its browser at once.
type caller struct {
	user        string
	token       string
	browser     *browser
	autoConnect bool

	mu     sync.Mutex
	asked  []string // URLs of URL-mode elicitations received
	visits []page   // where the browser ended after each followed URL
}

// newCaller signs user in for an MCP token. When the test ends, passed
// or failed, the notes API's log is checked for that token: it must
// never have reached the API.
func newCaller(t *testing.T, w *oauthWorld, user string) *caller {
	c := &caller{user: user, token: w.mcpToken(t, user), browser: newBrowser(user), autoConnect: true}
	t.Cleanup(func() {
		h := bearerHash(c.token)
		for _, r := range w.requests(t) {
			if r.AuthorizationSHA256 == h {
				t.Errorf("%s's MCP access token reached the notes API: %s %s (status %d)", c.user, r.Method, r.Path, r.Status)
				return
			}
		}
	})
	return c
}

// elicit answers elicitation requests: a URL-mode one is followed in
// the browser (the person connects their account) and accepted.
func (c *caller) elicit(t *testing.T) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if req.Params.Mode != "url" {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		c.mu.Lock()
		c.asked = append(c.asked, req.Params.URL)
		auto := c.autoConnect
		c.mu.Unlock()
		if !auto {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		p := c.browser.visit(t, req.Params.URL, "")
		c.mu.Lock()
		c.visits = append(c.visits, p)
		c.mu.Unlock()
		return &mcp.ElicitResult{Action: "accept"}, nil
	}
}

func (c *caller) askedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.asked)
}

// bearer adds the caller's MCP token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens an MCP session over Streamable HTTP at protocol version
// (empty: the latest), declaring URL-mode elicitation.
func (c *caller) connect(t *testing.T, endpoint, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "notes-e2e-" + c.user, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: c.elicit(t),
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{
			Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Timeout: 60 * time.Second, Transport: bearer{token: c.token, next: http.DefaultTransport}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s: connect to %s: %v", c.user, endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectPlain opens a session of a client that cannot elicit at all, at
// an older protocol version.
func (c *caller) connectPlain(t *testing.T, endpoint, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "notes-e2e-plain-" + c.user, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Timeout: 60 * time.Second, Transport: bearer{token: c.token, next: http.DefaultTransport}}}
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("%s: connect to %s: %v", c.user, endpoint, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callResult is a finished tool call: its text, structured content and
// whether it is an error.
type callResult struct {
	text    string
	data    map[string]any
	isError bool
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) callResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: %v", tool, err)
	}
	var r callResult
	r.isError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			r.text += tc.Text
		}
	}
	if m, ok := res.StructuredContent.(map[string]any); ok {
		r.data = m
	} else if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &r.data)
	}
	return r
}

// owner is the owner the notes API named in a list_notes result.
func (r callResult) owner() string {
	if o, ok := r.data["owner"].(string); ok {
		return o
	}
	return ""
}

// toolNamed finds the tool whose name ends in suffix.
func toolNamed(t *testing.T, cs *mcp.ClientSession, suffix string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	must(t, err)
	var names []string
	for _, tool := range res.Tools {
		if strings.HasSuffix(tool.Name, suffix) {
			return tool.Name
		}
		names = append(names, tool.Name)
	}
	t.Fatalf("no tool ending in %q among %v", suffix, names)
	return ""
}

// urlIn finds the first http URL in text (what an older client shows its
// user).
var urlInText = regexp.MustCompile(`https?://[^\s"'<>)\]]*[^\s"'<>)\].,;:]`)
