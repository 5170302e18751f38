package runtime

import (
	"context"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// The browser side of "connect your account", served on the HTTP
// listener outside /mcp authentication (the browser carries no MCP
// token; the flow record and the state authenticate it):
//
//	GET /oauth2/start?flow=F   the link a call gave: F names a flow record
//	                           bound to the caller; used once, it becomes
//	                           a state S and a PKCE verifier (stored under
//	                           a digest of S), a cookie binding S to this
//	                           browser, and a redirect to the
//	                           authorization endpoint.
//	GET /oauth2/callback       the authorization server's redirect: the
//	                           state must be known, unused, unexpired and
//	                           carry this browser's cookie; the code is
//	                           exchanged with the verifier and the tokens
//	                           stored for the caller of the flow.

// Paths of the endpoints, under $PREFIX_PUBLIC_URL.
const (
	startPath    = "/oauth2/start"
	callbackPath = "/oauth2/callback"
)

// stateRecord is what a state names (sealed in the vault).
type stateRecord struct {
	Sub      string   `json:"u"`
	Scheme   string   `json:"s"`
	Scopes   []string `json:"c"`
	Verifier string   `json:"v"`
	Browser  string   `json:"b"` // digest of the cookie's value
	Exp      int64    `json:"e"`
	// SignIn marks the state of a caller check at the MCP issuer
	// (upstream_signin.go), with the nonce its ID token must carry.
	SignIn bool   `json:"i,omitempty"`
	Nonce  string `json:"n,omitempty"`
}

// UpstreamAuthHandler serves /oauth2/start and /oauth2/callback, the
// endpoints through which callers connect their accounts of per_user
// schemes; nil when the server has none. Main mounts it on the HTTP
// listener; an embedder mounts it at $PREFIX_PUBLIC_URL.
func (s *Server) UpstreamAuthHandler() http.Handler {
	u := s.upstream
	if u == nil || u.vault == nil || u.publicURL == "" {
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+startPath, s.serveStart)
	mux.HandleFunc("GET "+callbackPath, s.serveCallback)
	if u.signIn != nil {
		mux.HandleFunc("GET "+signedInPath, s.serveSignedIn)
	}
	return mux
}

// cookiePath is where the browser sends the state cookie: the
// endpoints' folder under the public URL's own path (a server behind a
// proxy at https://host/prefix).
func (u *upstreamAuth) cookiePath() string {
	p, err := url.Parse(u.publicURL)
	if err != nil {
		return "/oauth2/"
	}
	return strings.TrimRight(p.Path, "/") + "/oauth2/"
}

// stateCookie names the cookie binding state to the browser.
func stateCookie(state string) string { return "oa2mcp_oauth_" + secretDigest(state)[:16] }

func (s *Server) serveStart(w http.ResponseWriter, r *http.Request) {
	u := s.upstream
	ctx := r.Context()
	flow := r.URL.Query().Get("flow")
	var rec flowRecord
	if len(flow) > 100 || flow == "" {
		flowPage(w, http.StatusBadRequest, "This sign-in link is not valid.", "Call the tool again to get a new link.")
		return
	}
	key := u.vault.key("uf", flow)
	fresh, err := u.vault.store.Once(ctx, key+":used", flowTTL+time.Minute)
	if err != nil {
		flowPage(w, http.StatusServiceUnavailable, "This server cannot start the sign-in right now.", "Try the link again in a few seconds.")
		return
	}
	ok, err := u.vault.get(ctx, key, &rec)
	if !fresh || err != nil || !ok || u.now().Unix() > rec.Exp || u.schemes[rec.Scheme] == nil {
		flowPage(w, http.StatusBadRequest, "This sign-in link is unknown, expired or already used.", "Call the tool again to get a new link.")
		return
	}
	_ = u.vault.delete(ctx, key)
	if u.signIn != nil {
		s.redirectToSignIn(w, r, rec)
		return
	}
	s.redirectToUpstream(w, r, rec)
}

// redirectToUpstream starts the upstream sign-in of a flow: state S1 and
// the scheme's authorization endpoint.
func (s *Server) redirectToUpstream(w http.ResponseWriter, r *http.Request, rec flowRecord) {
	u := s.upstream
	us := u.schemes[rec.Scheme]
	st := stateRecord{Sub: rec.Sub, Scheme: rec.Scheme, Scopes: rec.Scopes, Exp: rec.Exp}
	q := url.Values{"response_type": {"code"}, "client_id": {us.client.id}, "redirect_uri": {u.redirectURI()}}
	if len(rec.Scopes) > 0 {
		q.Set("scope", joinScopes(rec.Scopes))
	}
	s.redirectWithState(w, r, st, us.def.UpstreamAuth.AuthorizationURL, q)
}

// redirectWithState stores st under a new state with a new PKCE
// verifier, binds it to this browser with a cookie, and sends the
// browser to target with q, the state and the code challenge.
func (s *Server) redirectWithState(w http.ResponseWriter, r *http.Request, st stateRecord, target string, q url.Values) {
	u := s.upstream
	state, verifier, browser := randomToken(), randomToken(), randomToken()
	st.Verifier, st.Browser = verifier, secretDigest(browser)
	if err := u.vault.put(r.Context(), u.vault.key("us", state), st, time.Unix(st.Exp, 0).Sub(u.now())+time.Minute); err != nil {
		flowPage(w, http.StatusServiceUnavailable, "This server cannot start the sign-in right now.", "Call the tool again in a few seconds.")
		return
	}
	http.SetCookie(w, &http.Cookie{Name: stateCookie(state), Value: browser, Path: u.cookiePath(), MaxAge: int(flowTTL.Seconds()),
		HttpOnly: true, Secure: u.secure, SameSite: http.SameSiteLaxMode})
	q.Set("state", state)
	q.Set("code_challenge", pkceChallenge(verifier))
	q.Set("code_challenge_method", "S256")
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	http.Redirect(w, r, target+sep+q.Encode(), http.StatusFound)
}

// clearStateCookie removes a finished state's browser binding.
func (s *Server) clearStateCookie(w http.ResponseWriter, state string) {
	u := s.upstream
	http.SetCookie(w, &http.Cookie{Name: stateCookie(state), Value: "", Path: u.cookiePath(), MaxAge: -1, HttpOnly: true, Secure: u.secure, SameSite: http.SameSiteLaxMode})
}

func (s *Server) serveCallback(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	st, problem := s.takeState(ctx, r, q.Get("state"))
	if problem == "" && st.SignIn {
		// A caller check's state is no upstream sign-in's.
		problem = "This sign-in is unknown, expired or already finished."
	}
	if problem != "" {
		flowPage(w, http.StatusBadRequest, problem, "Call the tool again to get a new link.")
		return
	}
	if e := q.Get("error"); e != "" {
		flowPage(w, http.StatusBadRequest, "The sign-in was not completed: the authorization server answered "+textkit.ClipRunes(e, 60)+".", "Call the tool again to start over.")
		return
	}
	code := q.Get("code")
	if code == "" || len(code) > 4096 {
		flowPage(w, http.StatusBadRequest, "The authorization server sent no authorization code.", "Call the tool again to start over.")
		return
	}
	u := s.upstream
	us := u.schemes[st.Scheme]
	ans, oerr := us.client.post(ctx, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {u.redirectURI()}, "code_verifier": {st.Verifier}}, code, st.Verifier)
	if oerr != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "connecting an upstream account failed", slog.String("scheme", st.Scheme), slog.String("reason", oerr.Error()))
		flowPage(w, http.StatusBadGateway, "The account could not be connected: "+oerr.Error()+".", "Call the tool again to start over.")
		return
	}
	tok := ans.stored(u.now(), st.Scopes, "")
	if err := u.vault.put(ctx, u.vault.tokenKey(st.Sub, st.Scheme), tok, u.keepFor(tok)); err != nil {
		flowPage(w, http.StatusServiceUnavailable, "The account was authorized but could not be stored.", "Call the tool again in a few seconds to start over.")
		return
	}
	s.clearStateCookie(w, q.Get("state"))
	flowPage(w, http.StatusOK, "Your "+st.Scheme+" account is connected.", "You can close this window and go back: call the tool again.")
}

// errFlowState: the state is unknown, used, expired or not this browser's.
var errFlowState = errors.New("invalid state")

// takeState checks and consumes a callback's state: known, unused
// (once across replicas), unexpired, and bound to this browser by its
// cookie. A refused state is consumed too when it was known, so a
// guessed cookie cannot be retried.
func (s *Server) takeState(ctx context.Context, r *http.Request, state string) (stateRecord, string) {
	u := s.upstream
	var st stateRecord
	if state == "" || len(state) > 100 {
		return st, "This sign-in has no valid state."
	}
	key := u.vault.key("us", state)
	fresh, err := u.vault.store.Once(ctx, key+":used", flowTTL+2*time.Minute)
	if err != nil {
		return st, "This server cannot finish the sign-in right now."
	}
	ok, err := u.vault.get(ctx, key, &st)
	if ok {
		_ = u.vault.delete(ctx, key)
	}
	if !fresh || err != nil || !ok || u.now().Unix() > st.Exp || u.schemes[st.Scheme] == nil {
		return stateRecord{}, "This sign-in is unknown, expired or already finished."
	}
	c, err := r.Cookie(stateCookie(state))
	if err != nil || !sameSecret(c.Value, st.Browser) {
		return stateRecord{}, "This sign-in was started in another browser or by another user, so it cannot be finished here."
	}
	return st, ""
}

// flowPage answers the browser with a short page.
func flowPage(w http.ResponseWriter, status int, what, next string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Content-Security-Policy", "default-src 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>Connect account</title><p>%s</p><p>%s</p>\n", html.EscapeString(what), html.EscapeString(next))
}
