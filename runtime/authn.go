package runtime

import (
	"bufio"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Inbound authentication of the HTTP transport: static bearer tokens
// and JWTs (RS256, ES256) verified against a JWKS with issuer and
// audience checks. Unauthenticated requests get 401 with a
// WWW-Authenticate challenge (RFC 6750); a verified token's subject and
// scopes reach the tools, which use them for per-tool scopes,
// identity-bound inputs, handle ownership and rate limits.

// AuthOptions configures inbound authentication. Zero: none.
type AuthOptions struct {
	// Tokens maps static bearer tokens to their callers.
	Tokens map[string]Caller
	// TokensFile holds more tokens, one per line: TOKEN SUBJECT [SCOPE...].
	TokensFile string
	// JWKS is the URL (http:// or https://) or file path of the JSON Web
	// Key Set whose keys sign accepted JWTs.
	JWKS string
	// Issuer, when set, must match the iss claim, and Audience the aud
	// claim: a server verifying JWTs needs an Audience (the MCP
	// authorization rules: a token must have been issued for this
	// server, RFC 8707), else NewServer fails, unless
	// InsecureAnyAudience is set. With an Issuer the server publishes OAuth protected-resource
	// metadata (RFC 9728) naming it as the authorization server, so that
	// MCP clients find where to get a token.
	Issuer   string
	Audience string
	// Resource is the public URL of the MCP endpoint
	// (https://mcp.example.com/mcp), the resource tokens are issued for,
	// as the metadata states it. Empty: each request's scheme and host.
	Resource string
	// InsecureAnyAudience accepts JWTs for any audience: a token the
	// same authorization server minted for another service is then
	// accepted here. Development only; logged at every start.
	InsecureAnyAudience bool
	// HTTPClient fetches a JWKS URL; default a client with a 10 s timeout.
	HTTPClient *http.Client
}

// Caller is an authenticated caller.
type Caller struct {
	Subject string
	Scopes  []string
	// Claims are further identity claims (e.g. "email", "member_no") that
	// ${identity.NAME} bindings can read, as a JWT would carry them.
	Claims map[string]string
}

// AllClaims is the caller's claim set as bindings and scope checks read
// it: the Claims plus "sub" and "scope"; ContextWithCaller takes it.
func (c Caller) AllClaims() map[string]string {
	out := make(map[string]string, len(c.Claims)+2)
	for k, v := range c.Claims {
		out[k] = v
	}
	out["sub"], out["scope"] = c.Subject, strings.Join(c.Scopes, " ")
	return out
}

// parseCaller reads "SUBJECT [SCOPE...] [CLAIM=VALUE...]", the form of a
// static token's entry and of $PREFIX_STDIO_CALLER.
func parseCaller(fields []string) Caller {
	c := Caller{Subject: fields[0]}
	for _, f := range fields[1:] {
		if k, v, ok := strings.Cut(f, "="); ok && k != "" {
			if c.Claims == nil {
				c.Claims = map[string]string{}
			}
			c.Claims[k] = v
			continue
		}
		c.Scopes = append(c.Scopes, f)
	}
	return c
}

func (a *AuthOptions) enabled() bool {
	return a != nil && (len(a.Tokens) > 0 || a.JWKS != "")
}

// authenticator verifies bearer tokens.
type authenticator struct {
	tokens   map[[32]byte]Caller
	issuer   string
	audience string
	realm    string
	now      func() time.Time
	jwks     *jwksSource
	// resource is the MCP endpoint's public URL, when configured.
	resource string
}

const clockSkew = 60 * time.Second

func newAuthenticator(o *AuthOptions, realm string, now func() time.Time) (*authenticator, error) {
	a := &authenticator{tokens: map[[32]byte]Caller{}, issuer: o.Issuer, audience: o.Audience, realm: realm, now: now, resource: o.Resource}
	if u, err := url.Parse(o.Resource); o.Resource != "" && (err != nil || !u.IsAbs() || u.Host == "") {
		return nil, fmt.Errorf("the resource %q is not an absolute URL such as https://mcp.example.com/mcp", o.Resource)
	}
	for tok, c := range o.Tokens {
		if len(tok) < 16 {
			return nil, fmt.Errorf("static bearer token for %q is shorter than 16 characters", c.Subject)
		}
		if c.Subject == "" {
			return nil, errors.New("a static bearer token has no subject")
		}
		a.tokens[sha256.Sum256([]byte(tok))] = c
	}
	if o.JWKS != "" {
		client := o.HTTPClient
		if client == nil {
			client = &http.Client{Timeout: 10 * time.Second}
		}
		a.jwks = &jwksSource{loc: o.JWKS, client: client, now: now}
		if err := a.jwks.refresh(context.Background()); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// verify checks a bearer token; errors wrap auth.ErrInvalidToken and say
// why in words safe to show the client.
func (a *authenticator) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	ti, err := a.verifyToken(ctx, token)
	if ti != nil {
		// Kept for RFC 8693 exchange (the subject token); never sent
		// upstream as it is, never logged.
		ti.Extra[bearerExtraKey] = token
	}
	return ti, err
}

// bearerExtraKey holds the verified bearer token in TokenInfo.Extra.
const bearerExtraKey = "oa2mcp.bearer"

func (a *authenticator) verifyToken(ctx context.Context, token string) (*auth.TokenInfo, error) {
	sum := sha256.Sum256([]byte(token))
	if c, ok := a.tokens[sum]; ok {
		return tokenInfo(c.Subject, c.Scopes, time.Time{}, c.AllClaims()), nil
	}
	if a.jwks == nil || strings.Count(token, ".") != 2 {
		return nil, fmt.Errorf("%w: the token is not known to this server", auth.ErrInvalidToken)
	}
	claims, err := a.verifyJWT(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	sub, _ := claims["sub"].(string)
	flat := map[string]string{}
	for k, v := range claims {
		switch x := v.(type) {
		case string:
			flat[k] = x
		case json.Number:
			flat[k] = x.String()
		}
	}
	scopes := scopesOf(claims)
	flat["scope"] = strings.Join(scopes, " ")
	// exp was checked against the server's clock; the SDK's own check
	// (wall clock) is off (AllowMissingExpiration).
	return tokenInfo(sub, scopes, time.Time{}, flat), nil
}

func tokenInfo(sub string, scopes []string, exp time.Time, claims map[string]string) *auth.TokenInfo {
	return &auth.TokenInfo{UserID: sub, Scopes: scopes, Expiration: exp, Extra: map[string]any{claimsExtraKey: claims}}
}

// claimsExtraKey holds the caller's string claims in TokenInfo.Extra.
const claimsExtraKey = "oa2mcp.claims"

func scopesOf(claims map[string]any) []string {
	var out []string
	switch s := claims["scope"].(type) {
	case string:
		out = strings.Fields(s)
	}
	switch s := claims["scp"].(type) {
	case string:
		out = append(out, strings.Fields(s)...)
	case []any:
		for _, x := range s {
			if str, ok := x.(string); ok {
				out = append(out, str)
			}
		}
	}
	sort.Strings(out)
	return out
}

// numClaim reads a NumericDate claim (RFC 7519 section 2): present
// reports whether the claim is there; a present claim that is not a JSON
// number is an error, never a claim to ignore.
func numClaim(claims map[string]any, name string) (v int64, present bool, err error) {
	raw, present := claims[name]
	if !present {
		return 0, false, nil
	}
	n, ok := raw.(json.Number)
	if !ok {
		return 0, true, fmt.Errorf("the JWT's %s claim is not a number (a NumericDate: seconds since 1970)", name)
	}
	if i, err := n.Int64(); err == nil {
		return i, true, nil
	}
	f, err := n.Float64()
	if err != nil {
		return 0, true, fmt.Errorf("the JWT's %s claim is not a number (a NumericDate: seconds since 1970)", name)
	}
	return int64(f), true, nil
}

type jwtHeader struct {
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	Typ string `json:"typ"`
	// Crit lists extensions the verifier must understand (RFC 7515
	// section 4.1.11); this server understands none, so any is refused.
	Crit json.RawMessage `json:"crit"`
}

func (a *authenticator) verifyJWT(ctx context.Context, token string) (map[string]any, error) {
	parts := strings.Split(token, ".")
	hb, err := base64.RawURLEncoding.DecodeString(parts[0])
	if err != nil {
		return nil, errors.New("malformed JWT header")
	}
	var h jwtHeader
	if json.Unmarshal(hb, &h) != nil {
		return nil, errors.New("malformed JWT header")
	}
	if h.Alg != "RS256" && h.Alg != "ES256" {
		return nil, fmt.Errorf("JWT algorithm %q is not accepted (use RS256 or ES256)", h.Alg)
	}
	if h.Crit != nil {
		return nil, errors.New("the JWT header has a crit parameter, and this server understands no critical extension")
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return nil, errors.New("malformed JWT signature")
	}
	key, err := a.jwks.key(ctx, h.Kid, h.Alg)
	if err != nil {
		return nil, err
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch k := key.(type) {
	case *rsa.PublicKey:
		if h.Alg != "RS256" || rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig) != nil {
			return nil, errors.New("bad JWT signature")
		}
	case *ecdsa.PublicKey:
		if h.Alg != "ES256" || len(sig) != 64 {
			return nil, errors.New("bad JWT signature")
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		if !ecdsa.Verify(k, digest[:], r, s) {
			return nil, errors.New("bad JWT signature")
		}
	default:
		return nil, errors.New("unsupported key type")
	}
	pb, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, errors.New("malformed JWT claims")
	}
	dec := json.NewDecoder(strings.NewReader(string(pb)))
	dec.UseNumber()
	var claims map[string]any
	if dec.Decode(&claims) != nil || claims == nil {
		return nil, errors.New("malformed JWT claims")
	}
	if err := a.checkTimes(claims); err != nil {
		return nil, err
	}
	if a.issuer != "" {
		if iss, _ := claims["iss"].(string); iss != a.issuer {
			return nil, errors.New("the JWT is from another issuer")
		}
	}
	if a.audience != "" && !hasAudience(claims["aud"], a.audience) {
		return nil, errors.New("the JWT is for another audience")
	}
	if sub, _ := claims["sub"].(string); sub == "" {
		return nil, errors.New("the JWT has no sub claim")
	}
	return claims, nil
}

// checkTimes checks the exp, nbf and iat claims against the server's
// clock, with clockSkew of tolerance.
func (a *authenticator) checkTimes(claims map[string]any) error {
	now := a.now()
	exp, ok, err := numClaim(claims, "exp")
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("the JWT has no exp claim")
	}
	if now.After(time.Unix(exp, 0).Add(clockSkew)) {
		return errors.New("the JWT has expired")
	}
	nbf, ok, err := numClaim(claims, "nbf")
	if err != nil {
		return err
	}
	if ok && now.Add(clockSkew).Before(time.Unix(nbf, 0)) {
		return errors.New("the JWT is not valid yet")
	}
	if _, _, err := numClaim(claims, "iat"); err != nil {
		return err
	}
	return nil
}

func hasAudience(aud any, want string) bool {
	switch a := aud.(type) {
	case string:
		return a == want
	case []any:
		for _, x := range a {
			if s, ok := x.(string); ok && s == want {
				return true
			}
		}
	}
	return false
}

// jwksSource loads a JWKS from a URL or file; an unknown kid triggers a
// reload at most once a minute.
type jwksSource struct {
	loc    string
	client *http.Client
	now    func() time.Time

	mu      sync.Mutex
	keys    map[string]crypto.PublicKey
	fetched time.Time
}

func (j *jwksSource) key(ctx context.Context, kid, alg string) (crypto.PublicKey, error) {
	j.mu.Lock()
	k, ok := j.pick(kid, alg)
	stale := j.now().Sub(j.fetched) > time.Minute
	j.mu.Unlock()
	if ok {
		return k, nil
	}
	if stale {
		if err := j.refresh(ctx); err == nil {
			j.mu.Lock()
			k, ok = j.pick(kid, alg)
			j.mu.Unlock()
			if ok {
				return k, nil
			}
		}
	}
	return nil, fmt.Errorf("no key %q in the JWKS", kid)
}

// pick finds the key by kid, or the only key of the right type when the
// token names none.
func (j *jwksSource) pick(kid, alg string) (crypto.PublicKey, bool) {
	if kid != "" {
		k, ok := j.keys[kid]
		return k, ok
	}
	var found crypto.PublicKey
	n := 0
	for _, k := range j.keys {
		if _, rsaKey := k.(*rsa.PublicKey); rsaKey == (alg == "RS256") {
			found, n = k, n+1
		}
	}
	return found, n == 1
}

type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func (j *jwksSource) refresh(ctx context.Context) error {
	var data []byte
	var err error
	if strings.HasPrefix(j.loc, "http://") || strings.HasPrefix(j.loc, "https://") {
		req, rerr := http.NewRequestWithContext(ctx, http.MethodGet, j.loc, nil)
		if rerr != nil {
			return rerr
		}
		resp, derr := j.client.Do(req)
		if derr != nil {
			return fmt.Errorf("fetching the JWKS: %w", derr)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("fetching the JWKS: HTTP %d", resp.StatusCode)
		}
		data, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	} else {
		data, err = os.ReadFile(j.loc)
	}
	if err != nil {
		return fmt.Errorf("reading the JWKS: %w", err)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.keys, j.fetched = keys, j.now()
	j.mu.Unlock()
	return nil
}

func parseJWKS(data []byte) (map[string]crypto.PublicKey, error) {
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &set); err != nil {
		return nil, fmt.Errorf("the JWKS is not valid JSON: %w", err)
	}
	keys := map[string]crypto.PublicKey{}
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		id := k.Kid
		if id == "" {
			id = fmt.Sprintf("#%d", i)
		}
		switch k.Kty {
		case "RSA":
			n, err1 := base64.RawURLEncoding.DecodeString(k.N)
			e, err2 := base64.RawURLEncoding.DecodeString(k.E)
			if err1 != nil || err2 != nil || len(e) > 4 {
				return nil, fmt.Errorf("JWKS key %q: bad RSA parameters", id)
			}
			keys[id] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		case "EC":
			if k.Crv != "P-256" {
				continue
			}
			x, err1 := base64.RawURLEncoding.DecodeString(k.X)
			y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("JWKS key %q: bad EC parameters", id)
			}
			pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
			if !pub.Curve.IsOnCurve(pub.X, pub.Y) {
				return nil, fmt.Errorf("JWKS key %q: point not on P-256", id)
			}
			keys[id] = pub
		}
	}
	if len(keys) == 0 {
		return nil, errors.New("the JWKS has no RS256 or ES256 signing key")
	}
	return keys, nil
}

// parseTokenLines reads static tokens, one per line: TOKEN SUBJECT
// [SCOPE...] [CLAIM=VALUE...]; blank lines and # comments are skipped. Inline lists (an
// environment variable) may separate entries with ";".
func parseTokenLines(r io.Reader, into map[string]Caller) error {
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		for _, line := range strings.Split(sc.Text(), ";") {
			n++
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			f := strings.Fields(line)
			if len(f) < 2 {
				return fmt.Errorf("token entry %d: write TOKEN SUBJECT [SCOPE...] [CLAIM=VALUE...]", n)
			}
			into[f[0]] = parseCaller(f[1:])
		}
	}
	return sc.Err()
}

// authCtxKey carries the reason of a failed verification to the
// challenge writer.
type authCtxKey struct{}

// requireAuth wraps the MCP handler: requests without a valid bearer
// token get 401 and a WWW-Authenticate challenge.
func (a *authenticator) requireAuth(next http.Handler) http.Handler {
	inner := auth.RequireBearerToken(func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		ti, err := a.verify(ctx, token)
		if err != nil {
			if p, ok := ctx.Value(authCtxKey{}).(*string); ok {
				*p = strings.TrimPrefix(err.Error(), auth.ErrInvalidToken.Error()+": ")
			}
		}
		return ti, err
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true, ClockSkew: clockSkew})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reason string
		r = r.WithContext(context.WithValue(r.Context(), authCtxKey{}, &reason))
		cw := &challengeWriter{ResponseWriter: w, auth: a, req: r, reason: &reason, hasToken: r.Header.Get("Authorization") != ""}
		inner(next).ServeHTTP(cw, r)
		if cw.refused {
			// Refused before its body was read: the body is not read on.
			stopReading(w)
		}
	})
}

// challengeWriter adds WWW-Authenticate to 401 answers.
type challengeWriter struct {
	http.ResponseWriter
	auth     *authenticator
	req      *http.Request // for the metadata URL, which only a 401 needs
	reason   *string
	hasToken bool
	wrote    bool
	refused  bool // answered 401 or 403: the connection closes
}

func (c *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && !c.wrote && c.Header().Get("WWW-Authenticate") == "" {
		v := fmt.Sprintf("Bearer realm=%q", c.auth.realm)
		if u := c.auth.metadataURL(c.req); u != "" {
			v += fmt.Sprintf(", resource_metadata=%q", u)
		}
		if c.hasToken {
			desc := *c.reason
			if desc == "" {
				desc = "the token is not valid"
			}
			v += fmt.Sprintf(", error=\"invalid_token\", error_description=%q", strings.ReplaceAll(desc, `"`, "'"))
		}
		c.Header().Set("WWW-Authenticate", v)
	}
	if !c.wrote && (code == http.StatusUnauthorized || code == http.StatusForbidden) {
		c.refused = true
		c.Header().Set("Connection", "close")
	}
	c.wrote = true
	c.ResponseWriter.WriteHeader(code)
}

func (c *challengeWriter) Write(b []byte) (int, error) {
	if !c.wrote {
		c.WriteHeader(http.StatusOK)
	}
	return c.ResponseWriter.Write(b)
}

func (c *challengeWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// callerOf returns the verified caller of a call: the HTTP bearer token,
// else an identity set with ContextWithCaller, else the stdio caller.
func (s *Server) callerOf(ctx context.Context, ti *auth.TokenInfo) (claims map[string]string, scopes []string) {
	if ti != nil {
		claims, _ = ti.Extra[claimsExtraKey].(map[string]string)
		if claims == nil {
			claims = map[string]string{"sub": ti.UserID}
		}
		return claims, ti.Scopes
	}
	if c := callerClaims(ctx); c != nil {
		return c, strings.Fields(c["scope"])
	}
	if s.stdioClaims != nil && s.stdio.Load() {
		return s.stdioClaims, strings.Fields(s.stdioClaims["scope"])
	}
	return nil, nil
}

// hasScopes reports the required scopes the caller lacks.
func missingScopes(required, have []string) []string {
	var out []string
	for _, r := range required {
		found := false
		for _, h := range have {
			if subtle.ConstantTimeCompare([]byte(r), []byte(h)) == 1 {
				found = true
				break
			}
		}
		if !found {
			out = append(out, r)
		}
	}
	return out
}

// Unwrap lets http.ResponseController reach the connection (read
// deadlines of the body guard).
func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
