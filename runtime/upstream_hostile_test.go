package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestHostileCallbacks drives the connect endpoints with random requests
// nobody wrote: links and callbacks of three callers, opened and finished
// in random browsers, replayed, altered, made up, late. Invariant after
// every step: each caller's stored token is the account signed in through
// the last flow that was valid for them (their link, started and finished
// in one browser, in time, once), or none; a callback answers 200 only
// for such a flow.
func TestHostileCallbacks(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	rig := newAuthRig(t)
	users := []string{"alice", "bob", "carol"}
	browsers := map[string]*browser{}
	for _, u := range users {
		browsers[u] = rig.browser(u)
	}
	type link struct {
		owner, url string
		made       time.Time
		used       bool
	}
	var links []*link
	// addLink records a link; a pending link given again is the same.
	addLink := func(links []*link, owner, u string, now time.Time) []*link {
		for _, l := range links {
			if l.url == u {
				return links
			}
		}
		return append(links, &link{owner: owner, url: u, made: now})
	}
	var callbacks []*flowCallback
	want := map[string]string{} // caller → account (AS user) of their token
	var trace []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d, after steps:\n  %s\n%s", seed, strings.Join(trace, "\n  "), fmt.Sprintf(format, args...))
	}
	pick := func(n int) int { return r.IntN(n) }
	accepted := 0
	for step := 0; step < 150; step++ {
		switch op := pick(9); {
		case op == 0 || len(links) == 0:
			u := users[pick(3)]
			links = addLink(links, u, rig.directLink(u), rig.clock.Now())
			trace = append(trace, "link for "+u)
		case op == 1:
			l, b := links[pick(len(links))], users[pick(3)]
			cb, err := browsers[b].start(l.url)
			valid := !l.used && rig.clock.Now().Sub(l.made) <= flowTTL
			trace = append(trace, fmt.Sprintf("start %s's link in %s's browser (valid %v)", l.owner, b, valid))
			l.used = true
			if (err == nil) != valid {
				fail("start: err %v, want valid=%v", err, valid)
			}
			if err == nil {
				callbacks = append(callbacks, &flowCallback{owner: l.owner, browser: b, url: cb, made: l.made})
			}
		case op <= 4 && len(callbacks) > 0:
			c, b := callbacks[pick(len(callbacks))], users[pick(3)]
			if op <= 3 {
				b = c.browser
			}
			valid := !c.spent && b == c.browser && rig.clock.Now().Sub(c.made) <= flowTTL
			status := browsers[b].finish(c.url)
			trace = append(trace, fmt.Sprintf("finish %s's callback in %s's browser: %d (valid %v)", c.owner, b, status, valid))
			c.spent = true
			if (status == http.StatusOK) != valid {
				fail("callback answered %d, want valid=%v", status, valid)
			}
			if valid {
				want[c.owner] = c.browser
				accepted++
			}
		case op == 5:
			target := hostileCallback(r, rig.public, callbacks)
			status := browsers[users[pick(3)]].finish(target)
			trace = append(trace, fmt.Sprintf("made-up callback %q: %d", target, status))
			if status == http.StatusOK {
				fail("a made-up callback was accepted")
			}
			if q, err := url.Parse(target); err == nil {
				for _, c := range callbacks {
					if cq, _ := url.Parse(c.url); cq.Query().Get("state") == q.Query().Get("state") {
						c.spent = true // a known state is spent by any use
					}
				}
			}
		case op == 6 && pick(3) == 0:
			d := time.Duration(pick(8*60)) * time.Second
			rig.clock.Advance(d)
			trace = append(trace, fmt.Sprintf("wait %s", d))
		case op == 7:
			u := users[pick(3)]
			_, isErr := rig.call(rig.client("mcp-"+u+"-0123456789", nil), "disconnect_account", nil)
			trace = append(trace, "disconnect "+u)
			if isErr {
				fail("disconnect failed")
			}
			delete(want, u)
		default:
			u := users[pick(3)]
			links = addLink(links, u, rig.directLink(u), rig.clock.Now())
			trace = append(trace, "link for "+u)
		}
		for _, u := range users {
			tok := rig.storedAccess(rig.srv, u)
			rig.as.mu.Lock()
			account := rig.as.access[tok]
			rig.as.mu.Unlock()
			if account != want[u] {
				fail("%s's stored token is of account %q, want %q", u, account, want[u])
			}
		}
	}
	if accepted == 0 {
		t.Fatalf("seed %d: no flow was completed, so the invariant was not tested on a stored token", seed)
	}
	t.Logf("%d flows completed", accepted)
}

// flowCallback is a callback URL an authorization server redirected a
// browser to.
type flowCallback struct {
	owner, browser, url string
	made                time.Time
	spent               bool
}

// directLink makes a connect link for sub whether or not they are
// connected (a call gives one only when they are not).
func (rig *authRig) directLink(sub string) string {
	rig.t.Helper()
	bt := rig.srv.tools["list_events"]
	out := rig.srv.connectAnswer(context.Background(), bt, &Call{Caller: map[string]string{"sub": sub}, Args: map[string]any{}}, []string{"cal_oauth"})
	if out.err == nil || linkRE.FindString(out.err.msg) == "" {
		rig.t.Fatalf("no link for %s", sub)
	}
	return linkRE.FindString(out.err.msg)
}

// hostileCallback makes a callback request no valid flow sent: a random
// or altered state, a known state with an error or another code, odd
// parameters.
func hostileCallback(r *rand.Rand, public string, known []*flowCallback) string {
	base := public + callbackPath
	state := randomToken()
	if len(known) > 0 && r.IntN(2) == 0 {
		q, _ := url.Parse(known[r.IntN(len(known))].url)
		state = q.Query().Get("state")
	}
	switch r.IntN(7) {
	case 0:
		return base + "?code=" + randomToken() + "&state=" + url.QueryEscape(state)
	case 1:
		return base + "?error=access_denied&error_description=no&state=" + url.QueryEscape(state)
	case 2:
		return base + "?state=" + url.QueryEscape(state)
	case 3:
		b := []byte(state)
		b[r.IntN(len(b))] ^= 1
		return base + "?code=x&state=" + url.QueryEscape(string(b))
	case 4:
		return base + "?code=x&state=" + strings.Repeat("A", 50+r.IntN(5000))
	case 5:
		return base + "?code=x&code=y&state=" + url.QueryEscape(state) + "&state=" + randomToken()
	}
	return base
}
