//go:build linux && e2e

package e2e

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// The per-user credential cases: a generated notes server whose notesAuth
// scheme is per_user (or exchange) against the fixture's real
// authorization server and notes API, driven by real go-sdk clients over
// Streamable HTTP, each caller with its own MCP token and browser.

// perUserOverrides is the override file of the per_user server: the
// fixture's endpoints replace the spec's placeholders; offline_access
// makes the provider issue refresh tokens.
func perUserOverrides(issuer string) string {
	return `version: 1
server:
  handle_store: redis
  upstream_auth:
    notesAuth:
      mode: per_user
      authorization_url: ` + issuer + `/auth
      token_url: ` + issuer + `/oauth/token
      scopes: [offline_access]
`
}

// perUserSetup is one generated per_user server and the issuer address
// baked into it; every case starts its own authorization server there.
type perUserSetup struct {
	issuerAddr string
	server     notesServer
}

func newPerUserSetup(t *testing.T) perUserSetup {
	t.Helper()
	addr := freeAddrs(t, 1)[0]
	return perUserSetup{issuerAddr: addr, server: buildNotesServer(t, notesSpec(t), perUserOverrides("http://"+addr))}
}

// world starts the authorization server and notes API for replicas on
// addrs.
func (s perUserSetup) world(t *testing.T, lifetime time.Duration, addrs ...string) *oauthWorld {
	t.Helper()
	var public []string
	for _, a := range addrs {
		public = append(public, "http://"+a)
	}
	return startOAuthWorld(t, worldOptions{issuerAddr: s.issuerAddr, publicURLs: public, accessLifetime: lifetime})
}

func TestPerUserOAuth(t *testing.T) {
	s := newPerUserSetup(t)
	t.Run("two_callers_see_only_their_own_notes", s.twoCallers)
	t.Run("older_client_gets_the_url_in_an_error", s.olderClient)
	t.Run("2025-11-25_client_gets_the_url_in_an_error", s.sessionClient)
	t.Run("expired_access_token_is_refreshed", s.refresh)
	t.Run("revoked_token_asks_again", s.revoked)
	t.Run("state_replayed_swapped_or_forged_is_refused", s.stateChecks)
	t.Run("disconnect_forgets_the_account", s.disconnect)
	t.Run("redis_holds_no_readable_token_and_replicas_share", s.redisReplicas)
	t.Run("stdio_callers_connect_through_an_http_replica", s.stdioCallers)
	t.Run("forwarded_link_is_refused_by_the_caller_check", s.forwardedLink)
}

// twoCallers: alice and bob each connect their own account on first use
// (URL-mode elicitation, completed in their browser) and see only their
// own notes, including a note each creates.
func (s perUserSetup) twoCallers(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	alice, bob := newCaller(t, w, "alice"), newCaller(t, w, "bob")
	for _, c := range []*caller{alice, bob} {
		cs := c.connect(t, endpoint, "")
		list := toolNamed(t, cs, "list_notes")
		r := call(t, cs, list, nil)
		if r.isError || r.owner() != c.user {
			t.Fatalf("%s: list_notes after connecting: isError=%v owner=%q: %s", c.user, r.isError, r.owner(), truncate(r.text, 600))
		}
		if c.askedCount() != 1 {
			t.Errorf("%s was asked to connect %d times, want once", c.user, c.askedCount())
		}
		created := call(t, cs, toolNamed(t, cs, "create_note"), map[string]any{"title": "private to " + c.user, "body": "only " + c.user + " may read this"})
		if created.isError || !strings.Contains(created.text, c.user) {
			t.Fatalf("%s: create_note: %s", c.user, truncate(created.text, 600))
		}
		again := call(t, cs, list, nil)
		if again.owner() != c.user || !strings.Contains(again.text, "private to "+c.user) {
			t.Errorf("%s: list_notes does not show the note just created: %s", c.user, truncate(again.text, 600))
		}
		// create_note needs notes:write, which the first sign-in (for
		// list_notes, notes:read) did not ask: one step-up, then no more.
		if c.askedCount() != 2 {
			t.Errorf("%s was asked to connect %d times, want twice (once more for create_note's notes:write)", c.user, c.askedCount())
		}
	}
	// Each caller's notes are the caller's alone, on the wire too.
	for _, c := range []*caller{alice, bob} {
		cs := c.connect(t, endpoint, "")
		r := call(t, cs, toolNamed(t, cs, "list_notes"), nil)
		other := map[string]string{"alice": "bob", "bob": "alice"}[c.user]
		if r.owner() != c.user || strings.Contains(r.text, "private to "+other) {
			t.Errorf("%s sees %q's data: %s", c.user, r.owner(), truncate(r.text, 600))
		}
		miss := call(t, cs, toolNamed(t, cs, "get_note"), map[string]any{"noteId": "welcome-" + other})
		if !miss.isError {
			t.Errorf("%s read %s's welcome note: %s", c.user, other, truncate(miss.text, 600))
		}
	}
	subjects := map[string]bool{}
	for _, r := range w.requests(t) {
		if r.Status < 300 {
			subjects[r.Subject] = true
		}
	}
	if !subjects["alice"] || !subjects["bob"] || len(subjects) != 2 {
		t.Errorf("the notes API served subjects %v, want alice and bob", subjects)
	}
	w.requireNoMCPTokenUpstream(t, alice, bob)
}

// olderClient: a client without URL-mode elicitation (protocol
// 2025-06-18, no elicitation capability) gets an isError that gives the
// URL and says what to do; after the person opens it, the same call
// succeeds.
func (s perUserSetup) olderClient(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	carol := newCaller(t, w, "carol")
	cs := carol.connectPlain(t, endpoint, "2025-06-18")
	list := toolNamed(t, cs, "list_notes")
	first := call(t, cs, list, nil)
	link := urlInText.FindString(first.text)
	if !first.isError || link == "" || !strings.HasPrefix(link, "http://"+addr) {
		t.Fatalf("carol (no URL elicitation): want an isError with a link to this server, got isError=%v: %s", first.isError, truncate(first.text, 600))
	}
	if end := carol.browser.visit(t, link, ""); end.status != http.StatusOK {
		t.Fatalf("carol's browser ended at %s with %d: %s", end.url, end.status, truncate(end.body, 400))
	}
	if r := call(t, cs, list, nil); r.isError || r.owner() != "carol" {
		t.Fatalf("carol after connecting: %s", truncate(r.text, 600))
	}
	w.requireNoMCPTokenUpstream(t, carol)
}

// sessionClient: a client of protocol 2025-11-25 (initialize, a
// session), even one that declares URL-mode elicitation, gets the
// isError with the link (input_required is a 2026-07-28 result); after
// the person opens it, the call succeeds in the same session.
func (s perUserSetup) sessionClient(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	bob := newCaller(t, w, "bob")
	cs := bob.connect(t, endpoint, "2025-11-25")
	list := toolNamed(t, cs, "list_notes")
	first := call(t, cs, list, nil)
	link := urlInText.FindString(first.text)
	if !first.isError || !strings.HasPrefix(link, "http://"+addr) {
		t.Fatalf("bob (2025-11-25): want an isError with the link, got isError=%v: %s", first.isError, truncate(first.text, 600))
	}
	bob.browser.visit(t, link, "")
	if r := call(t, cs, list, nil); r.isError || r.owner() != "bob" {
		t.Fatalf("bob (2025-11-25) after connecting: %s", truncate(r.text, 600))
	}
}

// refresh: with 3 s access tokens, a call after they expired succeeds
// without asking again, with a new upstream token for the same subject.
func (s perUserSetup) refresh(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 3*time.Second, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	alice := newCaller(t, w, "alice")
	cs := alice.connect(t, endpoint, "")
	list := toolNamed(t, cs, "list_notes")
	if r := call(t, cs, list, nil); r.owner() != "alice" {
		t.Fatalf("first call: %s", truncate(r.text, 600))
	}
	time.Sleep(4 * time.Second)
	if r := call(t, cs, list, nil); r.isError || r.owner() != "alice" {
		t.Fatalf("call after the access token expired: %s", truncate(r.text, 600))
	}
	if alice.askedCount() != 1 {
		t.Errorf("alice was asked to connect %d times; an expired access token with a refresh token must be refreshed", alice.askedCount())
	}
	hashes := map[string]bool{}
	for _, r := range w.requests(t) {
		if r.Subject == "alice" && r.Status == 200 {
			hashes[r.AuthorizationSHA256] = true
		}
	}
	if len(hashes) < 2 {
		t.Errorf("the notes API saw %d distinct tokens of alice, want a refreshed second one", len(hashes))
	}
	w.requireNoMCPTokenUpstream(t, alice)
}

// revoked: once the user revokes the application's tokens at the
// provider, the next call gets the upstream's 401, drops the token and
// asks to connect again; connecting again works.
func (s perUserSetup) revoked(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	bob := newCaller(t, w, "bob")
	cs := bob.connect(t, endpoint, "")
	list := toolNamed(t, cs, "list_notes")
	if r := call(t, cs, list, nil); r.owner() != "bob" {
		t.Fatalf("first call: %s", truncate(r.text, 600))
	}
	w.revokeUser(t, "bob")
	r := call(t, cs, list, nil)
	if r.isError || r.owner() != "bob" {
		t.Fatalf("call after revocation (bob connects again when asked): %s", truncate(r.text, 600))
	}
	if bob.askedCount() != 2 {
		t.Errorf("bob was asked to connect %d times, want twice (once more after the revocation)", bob.askedCount())
	}
	saw401 := false
	for _, q := range w.requests(t) {
		saw401 = saw401 || q.Status == http.StatusUnauthorized
	}
	if !saw401 {
		t.Errorf("the notes API never refused the revoked token: the case did not test what it claims")
	}
	w.requireNoMCPTokenUpstream(t, bob)
}

// stateChecks: the callback refuses a forged state, a replayed callback
// and a code delivered with another flow's state; a callback opened in
// another person's browser connects the account of whoever started the
// flow, never the other person's MCP identity.
func (s perUserSetup) stateChecks(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	callback := "http://" + addr + "/oauth2/callback"
	alice, bob := newCaller(t, w, "alice"), newCaller(t, w, "bob")
	alice.autoConnect, bob.autoConnect = false, false
	csA, csB := alice.connect(t, endpoint, ""), bob.connect(t, endpoint, "")
	list := toolNamed(t, csA, "list_notes")
	startFlow := func(c *caller, cs *mcp.ClientSession) *url.URL {
		t.Helper()
		n := c.askedCount()
		call(t, cs, list, nil)
		if c.askedCount() <= n {
			t.Fatalf("%s was not asked to connect", c.user)
		}
		c.mu.Lock()
		link := c.asked[len(c.asked)-1]
		c.mu.Unlock()
		return c.browser.visit(t, link, callback).url
	}
	open := func(b *browser, u string) int {
		t.Helper()
		resp, err := b.client.Get(u)
		must(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	requireNotConnected := func(c *caller, cs *mcp.ClientSession, why string) {
		t.Helper()
		n := c.askedCount()
		if r := call(t, cs, list, nil); !(r.isError || r.owner() == "") || c.askedCount() <= n {
			t.Errorf("%s: %s, yet the call was served (owner %q): %s", c.user, why, r.owner(), truncate(r.text, 400))
		}
	}

	// A forged state.
	if code := open(alice.browser, callback+"?code=x&state=forged"); code < 400 {
		t.Errorf("callback with a forged state answered %d, want 4xx", code)
	}
	// A code of bob's flow with the state of alice's flow (PKCE and the
	// binding of the state must both refuse it).
	cbA, cbB := startFlow(alice, csA), startFlow(bob, csB)
	swapped := *cbA
	q := swapped.Query()
	q.Set("code", cbB.Query().Get("code"))
	swapped.RawQuery = q.Encode()
	if code := open(alice.browser, swapped.String()); code < 400 {
		t.Errorf("callback with alice's state and bob's code answered %d, want 4xx", code)
	}
	requireNotConnected(alice, csA, "a swapped code must not connect an account")
	requireNotConnected(bob, csB, "bob never finished his flow")

	// A fresh flow of alice, finished in alice's browser, then replayed.
	cb := startFlow(alice, csA)
	if code := open(alice.browser, cb.String()); code != http.StatusOK {
		t.Fatalf("alice's own callback answered %d, want 200", code)
	}
	if code := open(alice.browser, cb.String()); code < 400 {
		t.Errorf("replayed callback answered %d, want 4xx", code)
	}
	if r := call(t, csA, list, nil); r.owner() != "alice" {
		t.Errorf("alice after her own flow: %s", truncate(r.text, 400))
	}

	// Bob's callback delivered in another browser (alice's, which did not
	// open his link): refused, and bob stays unconnected; alice's account
	// stays hers.
	cbBob := startFlow(bob, csB)
	if code := open(alice.browser, cbBob.String()); code < 400 {
		t.Errorf("bob's callback opened in alice's browser answered %d, want 4xx (the flow is bound to the browser that opened the link)", code)
	}
	requireNotConnected(bob, csB, "his callback was finished in another browser")
	if r := call(t, csA, list, nil); r.owner() != "alice" {
		t.Errorf("alice after opening bob's callback: %s", truncate(r.text, 400))
	}
	w.requireNoMCPTokenUpstream(t, alice, bob)
}

// disconnect: the disconnect tool removes the caller's tokens (the next
// call asks again) and leaves other callers connected.
func (s perUserSetup) disconnect(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey()})
	alice, bob := newCaller(t, w, "alice"), newCaller(t, w, "bob")
	csA, csB := alice.connect(t, endpoint, ""), bob.connect(t, endpoint, "")
	list := toolNamed(t, csA, "list_notes")
	call(t, csA, list, nil)
	call(t, csB, list, nil)
	if r := call(t, csA, toolNamed(t, csA, "disconnect_account"), nil); r.isError {
		t.Fatalf("disconnect_account: %s", truncate(r.text, 400))
	}
	alice.autoConnect = false
	if r := call(t, csA, list, nil); r.owner() == "alice" || alice.askedCount() < 2 {
		t.Errorf("alice after disconnecting: asked %d times, served %q", alice.askedCount(), r.owner())
	}
	if r := call(t, csB, list, nil); r.owner() != "bob" || bob.askedCount() != 1 {
		t.Errorf("bob after alice disconnected: asked %d times, served %q", bob.askedCount(), r.owner())
	}
}

// redisReplicas: two replicas on one Redis with one key share the tokens
// (connect on one, call on the other); the values in Redis hold no token
// in the clear; a replica with another key cannot use them (it asks to
// connect instead of serving anyone's data).
func (s perUserSetup) redisReplicas(t *testing.T) {
	addrs := freeAddrs(t, 3)
	w := s.world(t, 0, addrs...)
	redis := oa2mcptest.StartRedisServer(t)
	key := tokenKey()
	a := s.server.start(t, w, serverRun{addr: addrs[0], key: key, redisURL: redis.URL})
	b := s.server.start(t, w, serverRun{addr: addrs[1], key: key, redisURL: redis.URL})
	other := s.server.start(t, w, serverRun{addr: addrs[2], key: tokenKey(), redisURL: redis.URL})
	alice := newCaller(t, w, "alice")
	csA := alice.connect(t, a, "")
	list := toolNamed(t, csA, "list_notes")
	if r := call(t, csA, list, nil); r.owner() != "alice" {
		t.Fatalf("alice on replica A: %s", truncate(r.text, 400))
	}
	if r := call(t, alice.connect(t, b, ""), list, nil); r.isError || r.owner() != "alice" || alice.askedCount() != 1 {
		t.Errorf("alice on replica B (same Redis and key): asked %d times, %s", alice.askedCount(), truncate(r.text, 400))
	}

	dump := redisDump(t, redis.Addr)
	if len(dump) == 0 {
		t.Fatal("Redis holds nothing: the tokens were not stored there")
	}
	jwt := regexp.MustCompile(`eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)
	uuid := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	if m := jwt.FindString(dump); m != "" {
		t.Errorf("Redis holds a JWT in the clear: %s", truncate(m, 80))
	}
	if m := uuid.FindString(dump); m != "" {
		t.Errorf("Redis holds what looks like the provider's refresh token in the clear: %s", m)
	}

	alice.autoConnect = false
	r := call(t, alice.connect(t, other, ""), list, nil)
	if r.owner() != "" {
		t.Errorf("a replica with another token key served alice's notes from the stored tokens: %s", truncate(r.text, 400))
	}
	w.requireNoMCPTokenUpstream(t, alice)
}

// redisDump reads every key and value of the Redis at addr raw, with
// redis-cli (installed with redis-server).
func redisDump(t *testing.T, addr string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	cli := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "redis-cli", append([]string{"-h", host, "-p", port, "--raw"}, args...)...).Output()
		if err != nil {
			t.Fatalf("redis-cli %v: %v", args, err)
		}
		return string(out)
	}
	var b strings.Builder
	for _, k := range strings.Fields(cli("--scan")) {
		b.WriteString(k + "\n")
		switch strings.TrimSpace(cli("TYPE", k)) {
		case "string":
			b.WriteString(cli("GET", k))
		case "hash":
			b.WriteString(cli("HGETALL", k))
		case "list":
			b.WriteString(cli("LRANGE", k, "0", "-1"))
		case "set":
			b.WriteString(cli("SMEMBERS", k))
		case "zset":
			b.WriteString(cli("ZRANGE", k, "0", "-1"))
		}
	}
	return b.String()
}

// TestExchangeOAuth: in exchange mode the caller's verified MCP token is
// exchanged (RFC 8693) at the provider for a notes-api token of the same
// user, cached per caller until it expires; the provider's refusal is an
// isError that names what the provider said.
func TestExchangeOAuth(t *testing.T) {
	issuerAddr := freeAddrs(t, 1)[0]
	issuer := "http://" + issuerAddr
	srv := buildNotesServer(t, notesSpec(t), `version: 1
server:
  upstream_auth:
    notesAuth:
      mode: exchange
      token_url: `+issuer+`/oauth/token
      audience: `+exchangeAudience+`
`)
	addr := freeAddrs(t, 1)[0]
	w := startOAuthWorld(t, worldOptions{issuerAddr: issuerAddr, publicURLs: []string{"http://" + addr}, denyExchange: []string{"bob"}})
	endpoint := srv.start(t, w, serverRun{addr: addr, key: tokenKey()})
	alice, carol, bob := newCaller(t, w, "alice"), newCaller(t, w, "carol"), newCaller(t, w, "bob")
	for _, c := range []*caller{alice, carol} {
		cs := c.connect(t, endpoint, "")
		list := toolNamed(t, cs, "list_notes")
		for i := 0; i < 2; i++ {
			if r := call(t, cs, list, nil); r.isError || r.owner() != c.user {
				t.Fatalf("%s (exchange) call %d: %s", c.user, i+1, truncate(r.text, 600))
			}
		}
		if c.askedCount() != 0 {
			t.Errorf("%s was asked to connect in exchange mode", c.user)
		}
	}
	perSubject := map[string]map[string]bool{}
	for _, r := range w.requests(t) {
		if perSubject[r.Subject] == nil {
			perSubject[r.Subject] = map[string]bool{}
		}
		perSubject[r.Subject][r.AuthorizationSHA256] = true
	}
	for _, u := range []string{"alice", "carol"} {
		if n := len(perSubject[u]); n != 1 {
			t.Errorf("the notes API saw %d distinct tokens of %s over two calls, want 1 (the exchanged token is cached)", n, u)
		}
	}
	csB := bob.connect(t, endpoint, "")
	r := call(t, csB, toolNamed(t, csB, "list_notes"), nil)
	if !r.isError || !strings.Contains(r.text, "access_denied") || !strings.Contains(r.text, "has not allowed access") {
		t.Errorf("bob's refused exchange: want an isError naming the provider's access_denied and its reason, got isError=%v: %s", r.isError, truncate(r.text, 600))
	}
	w.requireNoMCPTokenUpstream(t, alice, carol, bob)
}

// TestPerUserInspector: the MCP Inspector CLI over Streamable HTTP calls
// every tool of the per_user server as alice and as bob (MCP identities
// from a tokens file): the first call of each is an error with the link
// to connect, the person opens it and signs in, and every tool then
// answers with that person's own notes.
func TestPerUserInspector(t *testing.T) {
	x := requireExternalTools(t)
	s := newPerUserSetup(t)
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	tokens := filepath.Join(t.TempDir(), "callers")
	must(t, os.WriteFile(tokens, []byte("alice-inspector-token alice\nbob-inspector-token bob\n"), 0o600))
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey(), extra: []string{"--auth-tokens-file", tokens}})
	// The server verifies JWTs too (start adds --auth-jwks); the tokens
	// file adds the two static identities.
	for _, user := range []string{"alice", "bob"} {
		token := user + "-inspector-token"
		inspect := func(wantExit int, tool string, args ...string) toolResult {
			t.Helper()
			all := []string{"--cli", endpoint, "--transport", "http", "--header", "Authorization: Bearer " + token,
				"--method", "tools/call", "--tool-name", tool}
			for _, a := range args {
				all = append(all, "--tool-arg", a)
			}
			res := x.runNode(t, time.Minute, x.inspector, append(all, "--format", "json")...)
			var out toolResult
			decodeInspector(t, res, wantExit, &out)
			return out
		}
		first := inspect(inspectorExitToolError, "list_notes")
		link := urlInText.FindString(first.text())
		if !first.Result.IsError || !strings.HasPrefix(link, "http://"+addr) {
			t.Fatalf("%s's first call through the Inspector: want an error with the link to connect, got: %s", user, truncate(first.text(), 600))
		}
		if end := newBrowser(user).visit(t, link, ""); end.status != http.StatusOK {
			t.Fatalf("%s's browser ended at %s with %d", user, end.url, end.status)
		}
		if r := inspect(0, "list_notes"); !strings.Contains(r.text(), `"owner":"`+user+`"`) {
			t.Errorf("%s list_notes: %s", user, truncate(r.text(), 600))
		}
		// create_note needs notes:write, which the first sign-in did not
		// ask: a second link (step-up), then the note is created.
		stepUp := urlInText.FindString(inspect(inspectorExitToolError, "create_note", "title=from the inspector").text())
		if !strings.HasPrefix(stepUp, "http://"+addr) {
			t.Fatalf("%s create_note without notes:write: want a link to connect again", user)
		}
		newBrowser(user).visit(t, stepUp, "")
		if r := inspect(0, "create_note", "title=from the inspector"); !strings.Contains(r.text(), `"owner":"`+user+`"`) {
			t.Errorf("%s create_note: %s", user, truncate(r.text(), 600))
		}
		if r := inspect(0, "get_note", "noteId=welcome-"+user); !strings.Contains(r.text(), "belongs to "+user) {
			t.Errorf("%s get_note: %s", user, truncate(r.text(), 600))
		}
		other := map[string]string{"alice": "bob", "bob": "alice"}[user]
		if r := inspect(inspectorExitToolError, "get_note", "noteId=welcome-"+other); strings.Contains(r.text(), "belongs to "+other) {
			t.Errorf("%s read %s's note: %s", user, other, truncate(r.text(), 600))
		}
		if r := inspect(0, "disconnect_account"); r.Result.IsError {
			t.Errorf("%s disconnect_account: %s", user, truncate(r.text(), 600))
		}
		if r := inspect(inspectorExitToolError, "list_notes"); !strings.Contains(r.text(), "http://"+addr) {
			t.Errorf("%s after disconnecting: want the link again, got: %s", user, truncate(r.text(), 600))
		}
	}
	if len(w.requests(t)) == 0 {
		t.Error("the notes API saw no request")
	}
}
