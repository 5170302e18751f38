package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestPerUserConnectByURLElicitation: a 2026-07-28 client without an
// account gets a URL-mode elicitation; its user signs in (the browser
// step driven by an HTTP client) and the retried call succeeds. Two
// callers get their own tokens and see only their own data; the MCP
// tokens never reach the upstream.
func TestPerUserConnectByURLElicitation(t *testing.T) {
	rig := newAuthRig(t)
	for _, user := range []string{"alice", "bob"} {
		b := rig.browser(user)
		var links []string
		cs := rig.client("mcp-"+user+"-0123456789", func(link string) error {
			links = append(links, link)
			return b.connect(link)
		})
		text, isErr := rig.call(cs, "list_events", nil)
		if isErr || !strings.Contains(text, user+"'s event") {
			t.Fatalf("%s: got isError=%v %s", user, isErr, text)
		}
		if len(links) != 1 || !strings.HasPrefix(links[0], rig.public+startPath+"?flow=") {
			t.Fatalf("%s: elicitation links %q", user, links)
		}
		// Connected: the next call asks nothing.
		if text, isErr := rig.call(cs, "list_events", nil); isErr || len(links) != 1 || !strings.Contains(text, user+"'s event") {
			t.Fatalf("%s: second call isError=%v links=%d %s", user, isErr, len(links), text)
		}
	}
	a, b := rig.storedAccess(rig.srv, "alice"), rig.storedAccess(rig.srv, "bob")
	if a == "" || b == "" || a == b || rig.as.access[a] != "alice" || rig.as.access[b] != "bob" {
		t.Fatalf("stored tokens alice=%q bob=%q", a, b)
	}
	checkNoMCPTokenUpstream(t, rig)
}

// checkNoMCPTokenUpstream: the upstream saw only tokens the authorization
// server issued for it, never a client's MCP token.
func checkNoMCPTokenUpstream(t *testing.T, rig *authRig) {
	t.Helper()
	for _, h := range rig.up.headers() {
		if strings.Contains(h, "mcp-") {
			t.Fatalf("the upstream received an MCP token: %q", h)
		}
	}
}

// TestPerUserConnectOlderClient: a client that cannot be sent a URL gets
// an error that gives the link and says what to do.
func TestPerUserConnectOlderClient(t *testing.T) {
	rig := newAuthRig(t)
	cs := rig.client("mcp-alice-0123456789", nil)
	text, isErr := rig.call(cs, "list_events", nil)
	link := linkRE.FindString(text)
	if !isErr || link == "" || !strings.Contains(text, "open this URL, sign in, then call the tool again") || !strings.Contains(text, "needs_user") {
		t.Fatalf("want a connect error with a link, got isError=%v %s", isErr, text)
	}
	if err := rig.browser("alice").connect(link); err != nil {
		t.Fatal(err)
	}
	if text, isErr := rig.call(cs, "list_events", nil); isErr || !strings.Contains(text, "alice's event") {
		t.Fatalf("after connecting: isError=%v %s", isErr, text)
	}
	checkNoMCPTokenUpstream(t, rig)
}

// linkFor gets a fresh connect link for the caller.
func (rig *authRig) linkFor(token string) string {
	rig.t.Helper()
	text, _ := rig.call(rig.client(token, nil), "list_events", nil)
	link := linkRE.FindString(text)
	if link == "" {
		rig.t.Fatalf("no link in %s", text)
	}
	return link
}

// TestCallbackRefusesBadStates: a replayed callback, a state swapped into
// another user's browser, an unknown state, an expired one and a reused
// link are refused, and no token is stored through them.
func TestCallbackRefusesBadStates(t *testing.T) {
	rig := newAuthRig(t)
	alice, bob := rig.browser("alice"), rig.browser("bob")

	// Replay: the second visit of a good callback is refused.
	cb, err := alice.start(rig.linkFor("mcp-alice-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if st := alice.finish(cb); st != http.StatusOK {
		t.Fatalf("first callback: %d", st)
	}
	first := rig.storedAccess(rig.srv, "alice")
	if st := alice.finish(cb); st != http.StatusBadRequest {
		t.Fatalf("replayed callback: %d, want 400", st)
	}
	if rig.storedAccess(rig.srv, "alice") != first {
		t.Fatal("a replayed callback replaced the token")
	}

	// Swap: bob's flow finished in alice's browser is refused; bob's
	// state is spent, so bob has no token.
	cb, err = bob.start(rig.linkFor("mcp-bob-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	if st := alice.finish(cb); st != http.StatusBadRequest {
		t.Fatalf("swapped callback: %d, want 400", st)
	}
	if st := bob.finish(cb); st != http.StatusBadRequest {
		t.Fatalf("callback after a refused swap: %d, want 400", st)
	}
	if rig.storedAccess(rig.srv, "bob") != "" {
		t.Fatal("bob has a token through a refused flow")
	}

	// Unknown state, and a known link used twice.
	if st := bob.finish(rig.public + callbackPath + "?code=x&state=" + randomToken()); st != http.StatusBadRequest {
		t.Fatalf("unknown state: %d", st)
	}
	link := rig.linkFor("mcp-bob-0123456789")
	if _, err := bob.start(link); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.start(link); err == nil {
		t.Fatal("a connect link worked twice")
	}

	// Expiry: a link and a state older than 10 minutes are refused.
	link = rig.linkFor("mcp-bob-0123456789")
	cb, err = bob.start(rig.linkFor("mcp-bob-0123456789"))
	if err != nil {
		t.Fatal(err)
	}
	rig.clock.Advance(flowTTL + time.Second)
	if _, err := bob.start(link); err == nil {
		t.Fatal("an expired link worked")
	}
	if st := bob.finish(cb); st != http.StatusBadRequest {
		t.Fatalf("expired state: %d", st)
	}
	if rig.storedAccess(rig.srv, "bob") != "" {
		t.Fatal("bob has a token through an expired flow")
	}
}

// TestTokensSealedAtRest: nothing the store holds shows a token or a
// subject; a server with another token key cannot use the records (it
// asks to connect again); a record moved under another caller's key does
// not open.
func TestTokensSealedAtRest(t *testing.T) {
	rig := newAuthRig(t)
	for _, user := range []string{"alice", "bob"} {
		if err := rig.browser(user).connect(rig.linkFor("mcp-" + user + "-0123456789")); err != nil {
			t.Fatal(err)
		}
	}
	a := rig.storedAccess(rig.srv, "alice")
	rig.store.mu.Lock()
	for _, w := range rig.store.writes {
		raw, _ := json.Marshal(w)
		for _, secret := range append(rig.secretsOf("alice"), rig.secretsOf("bob")...) {
			if strings.Contains(string(raw), secret) {
				t.Fatalf("the store holds %q in clear: %s", secret, raw)
			}
		}
	}
	rig.store.mu.Unlock()

	// A replica with the same key and store uses alice's account.
	replica := rig.server(testTokenKey, rig.store)
	res, err := replica.CallTool(ContextWithCaller(context.Background(), map[string]string{"sub": "alice"}), "list_events", map[string]any{})
	if err != nil || res.IsError || !strings.Contains(resultText(res), "alice's event") {
		t.Fatalf("replica: %v %s", err, resultText(res))
	}

	// Another key, the same store: the records do not open.
	other := rig.server("ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=", rig.store)
	res, err = other.CallTool(ContextWithCaller(context.Background(), map[string]string{"sub": "alice"}), "list_events", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(resultText(res), "/oauth2/start") {
		t.Fatalf("wrong key: want a connect answer, got %s", resultText(res))
	}

	// Bob's sealed record copied under alice's key does not open as hers.
	ctx := context.Background()
	v := rig.srv.upstream.vault
	bobRec, _, _ := rig.store.Get(ctx, v.tokenKey("bob", "cal_oauth"))
	rig.store.Put(ctx, v.tokenKey("alice", "cal_oauth"), bobRec, time.Hour)
	if got := rig.storedAccess(rig.srv, "alice"); got != "" {
		t.Fatalf("bob's record opened as alice's: %q (alice's was %q)", got, a)
	}
}

// secretsOf lists the tokens the authorization server issued to user and
// the user's name.
func (rig *authRig) secretsOf(user string) []string {
	rig.as.mu.Lock()
	defer rig.as.mu.Unlock()
	out := []string{`"` + user + `"`}
	for _, m := range []map[string]string{rig.as.access, rig.as.refresh} {
		for tok, u := range m {
			if u == user {
				out = append(out, tok)
			}
		}
	}
	return out
}

// TestRefreshBeforeExpiry: an access token that expires within a minute
// is refreshed before the call, and the new one is used.
func TestRefreshBeforeExpiry(t *testing.T) {
	rig := newAuthRig(t)
	rig.as.expiresIn = 30
	cs := rig.client("mcp-alice-0123456789", nil)
	if err := rig.browser("alice").connect(rig.linkFor("mcp-alice-0123456789")); err != nil {
		t.Fatal(err)
	}
	before := rig.storedAccess(rig.srv, "alice")
	if text, isErr := rig.call(cs, "list_events", nil); isErr || !strings.Contains(text, "alice's event") {
		t.Fatalf("isError=%v %s", isErr, text)
	}
	after := rig.storedAccess(rig.srv, "alice")
	if rig.as.count("refresh_token") != 1 || after == before || after == "" {
		t.Fatalf("refreshes %d, token before %q after %q", rig.as.count("refresh_token"), before, after)
	}
	if h := rig.up.headers(); h[len(h)-1] != "Bearer "+after {
		t.Fatalf("the upstream got %q, want the refreshed token", h[len(h)-1])
	}
}

// TestUpstream401AsksAgain: a token the upstream refuses (revoked) is
// dropped and the caller is asked to connect again.
func TestUpstream401AsksAgain(t *testing.T) {
	rig := newAuthRig(t)
	cs := rig.client("mcp-alice-0123456789", nil)
	if err := rig.browser("alice").connect(rig.linkFor("mcp-alice-0123456789")); err != nil {
		t.Fatal(err)
	}
	rig.as.revoke("alice")
	text, isErr := rig.call(cs, "list_events", nil)
	if !isErr || linkRE.FindString(text) == "" {
		t.Fatalf("after revocation: want a connect answer, got %s", text)
	}
	if rig.storedAccess(rig.srv, "alice") != "" {
		t.Fatal("the refused token is still stored")
	}
	if err := rig.browser("alice").connect(linkRE.FindString(text)); err != nil {
		t.Fatal(err)
	}
	if text, isErr := rig.call(cs, "list_events", nil); isErr || !strings.Contains(text, "alice's event") {
		t.Fatalf("after reconnecting: %s", text)
	}
}

// TestUpstreamTokenNeverShown: an upstream that echoes the Authorization
// header does not get the caller's token into the result.
func TestUpstreamTokenNeverShown(t *testing.T) {
	rig := newAuthRig(t)
	cs := rig.client("mcp-alice-0123456789", nil)
	if err := rig.browser("alice").connect(rig.linkFor("mcp-alice-0123456789")); err != nil {
		t.Fatal(err)
	}
	tok := rig.storedAccess(rig.srv, "alice")
	text, isErr := rig.call(cs, "list_events", map[string]any{"echo": true})
	if isErr || !strings.Contains(text, "seen with Bearer [REDACTED]") || strings.Contains(text, tok) {
		t.Fatalf("isError=%v %s", isErr, text)
	}
	// Nor in the log (debug level), with a refused token (401) too.
	secrets := rig.secretsOf("alice")
	rig.as.revoke("alice")
	rig.call(cs, "list_events", map[string]any{"echo": true})
	logs := rig.logs.String()
	if !strings.Contains(logs, "list_events") {
		t.Fatalf("the server logged no call: %s", logs)
	}
	for _, secret := range append(secrets, tok, "mcp-alice-0123456789", rig.as.secret) {
		if secret != `"alice"` && strings.Contains(logs, secret) {
			t.Fatalf("the log shows %q:\n%s", secret, logs)
		}
	}
}

// TestDisconnectAccount: the tool deletes the caller's tokens (only
// theirs); the next call asks to connect again.
func TestDisconnectAccount(t *testing.T) {
	rig := newAuthRig(t)
	for _, user := range []string{"alice", "bob"} {
		if err := rig.browser(user).connect(rig.linkFor("mcp-" + user + "-0123456789")); err != nil {
			t.Fatal(err)
		}
	}
	cs := rig.client("mcp-alice-0123456789", nil)
	text, isErr := rig.call(cs, "disconnect_account", nil)
	if isErr || !strings.Contains(text, `"disconnected":["cal_oauth"]`) {
		t.Fatalf("disconnect: %s", text)
	}
	if rig.storedAccess(rig.srv, "alice") != "" || rig.storedAccess(rig.srv, "bob") == "" {
		t.Fatal("disconnect removed the wrong tokens")
	}
	if text, isErr := rig.call(cs, "list_events", nil); !isErr || linkRE.FindString(text) == "" {
		t.Fatalf("after disconnecting: %s", text)
	}
}

// TestTokenExchange: the caller's MCP token is exchanged once and the
// result cached per caller; a refusal names what the authorization server
// said, without the subject token.
func TestTokenExchange(t *testing.T) {
	rig := newAuthRig(t)
	for _, user := range []string{"alice", "bob"} {
		cs := rig.client("mcp-"+user+"-0123456789", nil)
		for i := 0; i < 3; i++ {
			if text, isErr := rig.call(cs, "whoami", nil); isErr || !strings.Contains(text, `"user":"`+user+`"`) {
				t.Fatalf("%s: isError=%v %s", user, isErr, text)
			}
		}
	}
	if n := rig.as.count(tokenExchangeGrant); n != 2 {
		t.Fatalf("%d exchanges for two callers, want 2 (cached)", n)
	}
	text, isErr := rig.call(rig.client("mcp-carol-0123456789", nil), "whoami", nil)
	if !isErr || !strings.Contains(text, "invalid_grant") || !strings.Contains(text, "is not active") || strings.Contains(text, "mcp-carol-0123456789") {
		t.Fatalf("refused exchange: %s", text)
	}
	checkNoMCPTokenUpstream(t, rig)
}

// TestUpstreamAuthStartup: the server refuses to start without the token
// key, with a bad one, or without a public URL, and says what to set.
func TestUpstreamAuthStartup(t *testing.T) {
	as := newTestAS(t)
	for _, tc := range []struct{ key, public, signIn, want string }{
		{"", "http://127.0.0.1:1", "", "set $CAL_TOKEN_KEY"},
		{"c2hvcnQ=", "http://127.0.0.1:1", "", "decodes to 5 bytes"},
		{testTokenKey, "", "", "set $CAL_PUBLIC_URL"},
		{testTokenKey, "http://127.0.0.1:1", "cal-signin", "$CAL_SIGNIN_CLIENT_ID needs JWT verification with an issuer"},
	} {
		env := map[string]string{"CAL_TOKEN_KEY": tc.key, "CAL_PUBLIC_URL": tc.public, "CAL_CAL_OAUTH_CLIENT_ID": "x", "CAL_CORP_OAUTH_CLIENT_ID": "x", "CAL_SIGNIN_CLIENT_ID": tc.signIn}
		_, err := NewServer(calDef(as, "http://127.0.0.1:1"), Options{Getenv: func(k string) string { return env[k] }})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("key %q public %q: got %v, want %q", tc.key, tc.public, err, tc.want)
		}
	}
}

// TestConnectLinkReused: calls without an account get the caller's one
// pending link, so they cannot fill the store; once it is used, the next
// call gets a new one.
func TestConnectLinkReused(t *testing.T) {
	rig := newAuthRig(t)
	cs := rig.client("mcp-alice-0123456789", nil)
	first := rig.linkFor("mcp-alice-0123456789")
	rig.store.mu.Lock()
	writes := len(rig.store.writes)
	rig.store.mu.Unlock()
	for i := 0; i < 50; i++ {
		if text, _ := rig.call(cs, "list_events", nil); linkRE.FindString(text) != first {
			t.Fatalf("call %d got another link: %s", i, text)
		}
	}
	rig.store.mu.Lock()
	grown := len(rig.store.writes) - writes
	rig.store.mu.Unlock()
	if grown != 0 {
		t.Fatalf("50 calls without an account wrote %d records", grown)
	}
	if _, err := rig.browser("alice").start(first); err != nil {
		t.Fatal(err)
	}
	if link := rig.linkFor("mcp-alice-0123456789"); link == first {
		t.Fatal("a used link was given again")
	}
}
