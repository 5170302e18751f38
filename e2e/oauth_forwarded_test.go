//go:build linux && e2e

package e2e

import (
	"net/http"
	"strings"
	"testing"
)

// forwardedLink: with the caller check (NOTES_SIGNIN_CLIENT_ID), bob's
// connect link forwarded to alice (a phishing message), opened in her
// browser and signed in as alice, connects nothing: the server sees at
// the MCP issuer that the person who opened the link is not bob, answers
// 403, and bob's identity never reads alice's notes. Bob's own browser
// then connects bob's account through the same check, and a state of the
// caller check is never accepted as an upstream callback's.
func (s perUserSetup) forwardedLink(t *testing.T) {
	addr := freeAddrs(t, 1)[0]
	w := s.world(t, 0, addr)
	endpoint := s.server.start(t, w, serverRun{addr: addr, key: tokenKey(), signIn: true})
	bob := newCaller(t, w, "bob")
	bob.autoConnect = false
	cs := bob.connect(t, endpoint, "")
	list := toolNamed(t, cs, "list_notes")
	call(t, cs, list, nil)
	if bob.askedCount() != 1 {
		t.Fatalf("bob was asked to connect %d times, want once", bob.askedCount())
	}
	bob.mu.Lock()
	link := bob.asked[0]
	bob.mu.Unlock()
	end := newBrowser("alice").visit(t, link, "")
	if end.status != http.StatusForbidden || !strings.Contains(end.body, "made for another user") {
		t.Errorf("alice opening bob's link ended at %s with %d, want 403 saying the link is another user's: %s", end.url, end.status, truncate(end.body, 400))
	}
	if r := call(t, cs, list, nil); r.owner() == "alice" || !r.isError {
		t.Fatalf("bob's MCP identity reads alice's notes after alice opened his forwarded link: %s", truncate(r.text, 300))
	}
	// The second call asked again: bob's own browser passes the check.
	bob.mu.Lock()
	mine := bob.asked[len(bob.asked)-1]
	bob.mu.Unlock()
	if mine == link {
		t.Fatalf("bob got the used link again: %s", link)
	}
	// A state of the caller check handed to the upstream callback: refused.
	stop := "http://" + addr + "/oauth2/signed-in"
	at := bob.browser.visit(t, mine, stop)
	forged := strings.Replace(at.url.String(), "/oauth2/signed-in", "/oauth2/callback", 1)
	if p := bob.browser.visit(t, forged, ""); p.status != http.StatusBadRequest {
		t.Errorf("a caller check's state at /oauth2/callback: %d, want 400: %s", p.status, truncate(p.body, 300))
	}
	// That state is spent; a fresh link, bob's own browser, the whole way.
	call(t, cs, list, nil)
	bob.mu.Lock()
	fresh := bob.asked[len(bob.asked)-1]
	bob.mu.Unlock()
	if p := bob.browser.visit(t, fresh, ""); p.status != http.StatusOK {
		t.Fatalf("bob connecting his own account through the caller check ended at %s with %d: %s", p.url, p.status, truncate(p.body, 400))
	}
	if r := call(t, cs, list, nil); r.isError || r.owner() != "bob" {
		t.Fatalf("bob after connecting his own account: isError=%v owner=%q: %s", r.isError, r.owner(), truncate(r.text, 400))
	}
	for _, r := range w.requests(t) {
		if r.Subject == "alice" && r.Status < 300 {
			t.Errorf("the notes API served alice's data (%s %s) though only bob called", r.Method, r.Path)
		}
	}
	w.requireNoMCPTokenUpstream(t, bob)
}
