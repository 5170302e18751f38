package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// The caller check of a connect link. A link is made for one caller, but
// it is only a URL: forwarded to someone else (a phishing message, a
// shared chat), it would let that person connect *their* account to the
// caller's identity. With a sign-in client at the MCP authorization
// server ($PREFIX_SIGNIN_CLIENT_ID, the issuer of --auth-issuer), the
// browser that opens the link first signs in there (OpenID Connect,
// authorization code with PKCE and a nonce); the ID token's subject must
// be the caller the link was made for before the upstream sign-in
// starts:
//
//	GET /oauth2/start?flow=F   flow record -> state S0 (signIn) + cookie,
//	                           redirect to the MCP issuer (scope openid)
//	GET /oauth2/signed-in      S0 checked like a callback's state; the
//	                           code is exchanged, the ID token verified
//	                           (signature by the issuer's JWKS, iss, aud =
//	                           the sign-in client, exp, nonce) and its sub
//	                           compared with the flow's caller; then state
//	                           S1 and the redirect to the upstream sign-in.

// signedInPath receives the MCP issuer's redirect.
const signedInPath = "/oauth2/signed-in"

// maxDiscovery bounds the issuer's OpenID configuration document.
const maxDiscovery = 256 << 10

// signInCheck is the sign-in client at the MCP authorization server.
type signInCheck struct {
	client oauthClient // tokenURL filled from discovery when not set
	issuer string
	auth   *authenticator
	// authURL is the issuer's authorization endpoint; with tokenURL it
	// comes from $PREFIX_SIGNIN_AUTHORIZATION_URL / _TOKEN_URL, else from
	// the issuer's /.well-known/openid-configuration on first use.
	mu      sync.Mutex
	authURL string
}

// initSignIn reads $PREFIX_SIGNIN_CLIENT_ID (and _SECRET, and optional
// endpoints). The check needs verified JWTs of a known issuer: the ID
// token is checked against the keys the MCP tokens are.
func (s *Server) initSignIn(opts *Options, prefix string) (*signInCheck, []string) {
	id := opts.Getenv(prefix + "_SIGNIN_CLIENT_ID")
	if id == "" {
		return nil, nil
	}
	if s.auth == nil || s.auth.jwks == nil || s.auth.issuer == "" {
		return nil, []string{fmt.Sprintf("$%s_SIGNIN_CLIENT_ID needs JWT verification with an issuer (--auth-jwks and --auth-issuer): the sign-in's ID token is verified with them", prefix)}
	}
	c := &signInCheck{issuer: s.auth.issuer, auth: s.auth,
		client:  oauthClient{http: tokenHTTPClient(), id: id, secret: opts.Getenv(prefix + "_SIGNIN_CLIENT_SECRET"), tokenURL: opts.Getenv(prefix + "_SIGNIN_TOKEN_URL")},
		authURL: opts.Getenv(prefix + "_SIGNIN_AUTHORIZATION_URL")}
	if (c.authURL == "") != (c.client.tokenURL == "") {
		return nil, []string{fmt.Sprintf("set both $%s_SIGNIN_AUTHORIZATION_URL and $%s_SIGNIN_TOKEN_URL, or neither (then they come from %s/.well-known/openid-configuration)", prefix, prefix, strings.TrimRight(c.issuer, "/"))}
	}
	return c, nil
}

// endpoints are the authorization and token endpoints, discovered once.
func (c *signInCheck) endpoints(ctx context.Context) (authURL, tokenURL string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.authURL != "" {
		return c.authURL, c.client.tokenURL, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(c.issuer, "/")+"/.well-known/openid-configuration", nil)
	if err != nil {
		return "", "", err
	}
	resp, err := c.client.http.Do(req)
	if err != nil {
		return "", "", err
	}
	defer resp.Body.Close()
	var doc struct {
		Issuer   string `json:"issuer"`
		AuthURL  string `json:"authorization_endpoint"`
		TokenURL string `json:"token_endpoint"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxDiscovery))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil || doc.AuthURL == "" || doc.TokenURL == "" {
		return "", "", fmt.Errorf("the issuer's OpenID configuration answered HTTP %d without both endpoints", resp.StatusCode)
	}
	if doc.Issuer != c.issuer {
		// OpenID Connect Discovery §4.3: the document must be the issuer's.
		return "", "", errors.New("the OpenID configuration names another issuer")
	}
	c.authURL, c.client.tokenURL = doc.AuthURL, doc.TokenURL
	return c.authURL, c.client.tokenURL, nil
}

// subject verifies an ID token of the sign-in and returns its subject.
func (c *signInCheck) subject(ctx context.Context, idToken, nonce string) (string, error) {
	if strings.Count(idToken, ".") != 2 {
		return "", errors.New("the authorization server sent no ID token (is openid among the client's scopes?)")
	}
	v := *c.auth
	v.audience = c.client.id // an ID token is issued for the client
	claims, err := v.verifyJWT(ctx, idToken)
	if err != nil {
		return "", err
	}
	if n, _ := claims["nonce"].(string); n == "" || !sameSecret(n, secretDigest(nonce)) {
		return "", errors.New("the ID token's nonce is not this sign-in's")
	}
	sub, _ := claims["sub"].(string)
	return sub, nil
}

// redirectToSignIn starts the caller check for a flow record: state S0
// bound to this browser, then the MCP issuer's authorization endpoint.
func (s *Server) redirectToSignIn(w http.ResponseWriter, r *http.Request, rec flowRecord) {
	u := s.upstream
	authURL, _, err := u.signIn.endpoints(r.Context())
	if err != nil {
		s.logger.LogAttrs(r.Context(), slog.LevelWarn, "the sign-in check cannot reach the MCP authorization server", slog.String("reason", err.Error()))
		flowPage(w, http.StatusServiceUnavailable, "This server cannot check who you are right now.", "Call the tool again in a minute to get a new link.")
		return
	}
	nonce := randomToken()
	st := stateRecord{Sub: rec.Sub, Scheme: rec.Scheme, Scopes: rec.Scopes, SignIn: true, Nonce: nonce, Exp: rec.Exp}
	q := url.Values{"response_type": {"code"}, "client_id": {u.signIn.client.id}, "redirect_uri": {u.publicURL + signedInPath},
		"scope": {"openid"}, "nonce": {nonce}}
	s.redirectWithState(w, r, st, authURL, q)
}

// serveSignedIn finishes the caller check and, when the person who
// signed in is the link's caller, starts the upstream sign-in.
func (s *Server) serveSignedIn(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	q := r.URL.Query()
	st, problem := s.takeState(ctx, r, q.Get("state"))
	if problem == "" && !st.SignIn {
		problem = "This sign-in is unknown, expired or already finished."
	}
	if problem != "" {
		flowPage(w, http.StatusBadRequest, problem, "Call the tool again to get a new link.")
		return
	}
	s.clearStateCookie(w, q.Get("state"))
	code := q.Get("code")
	if e := q.Get("error"); e != "" || code == "" || len(code) > 4096 {
		flowPage(w, http.StatusBadRequest, "The sign-in was not completed, so this server cannot tell who opened the link.", "Call the tool again to start over.")
		return
	}
	u := s.upstream
	c := u.signIn
	ans, oerr := c.client.post(ctx, url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {u.publicURL + signedInPath}, "code_verifier": {st.Verifier}}, code, st.Verifier)
	if oerr != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "the sign-in check failed", slog.String("reason", oerr.Error()))
		flowPage(w, http.StatusBadGateway, "This server could not check who you are: "+oerr.Error()+".", "Call the tool again to start over.")
		return
	}
	sub, err := c.subject(ctx, ans.IDToken, st.Nonce)
	if err != nil {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "the sign-in check refused an ID token", slog.String("reason", err.Error()))
		flowPage(w, http.StatusBadGateway, "This server could not check who you are: "+err.Error()+".", "Call the tool again to start over.")
		return
	}
	if sub != st.Sub {
		s.logger.LogAttrs(ctx, slog.LevelWarn, "a connect link was opened by someone other than the caller it was made for; refused", slog.String("scheme", st.Scheme))
		flowPage(w, http.StatusForbidden, "This link was made for another user: you signed in as someone else, so no account is connected.",
			"If someone sent you this link, do not use it. To connect your own account, ask your assistant to call the tool again.")
		return
	}
	s.redirectToUpstream(w, r, flowRecord{Sub: st.Sub, Scheme: st.Scheme, Scopes: st.Scopes, Exp: st.Exp})
}
