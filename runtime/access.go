package runtime

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/oa2mcp/oa2mcp/runtime/internal/callerenv"
	"github.com/oa2mcp/oa2mcp/runtime/internal/expr"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
)

// Wiring of the state and access features into a Server: configuration
// from Options and the environment, per-tool compilation, and the checks
// every call passes before it reaches the upstream.

// envPrefix is the prefix of the server's environment variables:
// ServerDef.EnvPrefix, or for a hand-written definition without one, the
// name upper-cased with every other character as "_".
func envPrefix(spec *ServerDef) string {
	if spec.EnvPrefix != "" {
		return spec.EnvPrefix
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(spec.Name) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// baseURLEnv names the environment variable holding the upstream base URL.
func baseURLEnv(spec *ServerDef) string { return envPrefix(spec) + "_BASE_URL" }

// initAccess sets up handles, request-state signing, authentication,
// rate limits and pass-through headers.
func (s *Server) initAccess(spec *ServerDef, opts *Options) error {
	prefix := envPrefix(spec)
	if s.now == nil {
		s.now = time.Now
	}
	store := opts.HandleStore
	if store == nil {
		url := opts.HandleStoreURL
		if url == "" {
			url = opts.Getenv(prefix + "_HANDLE_STORE")
		}
		var err error
		if store, err = openHandleStore(url, s.now, opts.OpenHandleStore); err != nil {
			return err
		}
	}
	s.handles = newHandleManager(spec, store, s.now)
	keyText := opts.StateKey
	if keyText == "" {
		keyText = opts.Getenv(prefix + "_STATE_KEY")
	}
	key, random, err := newStateKey(keyText)
	if err != nil {
		return fmt.Errorf("$%s_STATE_KEY: %w", prefix, err)
	}
	if random && needsState(spec) && !sharedStore(store) {
		s.logger.Debug("request-state key is random for this process; set $" + prefix + "_STATE_KEY to share it across replicas and restarts")
	}
	s.checkStateKey(key, random, prefix)
	s.signer = &stateSigner{key: key, now: s.now}
	a, err := authOptionsFrom(opts, prefix)
	if err != nil {
		return err
	}
	if a.JWKS != "" && a.Audience == "" && !a.InsecureAnyAudience {
		return fmt.Errorf("authentication: JWTs are verified (--auth-jwks) but no audience is required: set --auth-audience (or $%s_AUTH_AUDIENCE, AuthOptions.Audience) to the aud claim the authorization server puts in tokens issued for this server, usually its public URL; --auth-insecure-any-audience accepts tokens issued for any service (development only)", prefix)
	}
	if a.enabled() {
		if s.auth, err = newAuthenticator(a, spec.Name, s.now); err != nil {
			return fmt.Errorf("authentication: %w", err)
		}
		if a.JWKS != "" && a.Audience == "" {
			s.logger.Warn("INSECURE: JWTs issued for ANY audience are accepted (--auth-insecure-any-audience): a token the authorization server minted for another service works here; set --auth-audience")
		}
	}
	if err := s.initUpstreamAuth(spec, opts, prefix); err != nil {
		return err
	}
	s.rate = s.newRateLimiter(spec.RateLimit)
	s.insecureNoAuth = opts.InsecureNoAuth
	for _, h := range spec.PassHeaders {
		s.passHeaders = append(s.passHeaders, http.CanonicalHeaderKey(h))
	}
	if f := strings.Fields(opts.Getenv(prefix + "_STDIO_CALLER")); len(f) > 0 {
		s.stdioClaims = parseCaller(f).AllClaims()
	}
	return nil
}

// newRateLimiter makes a limiter for r, shared through the handle store
// when it keeps rate limits.
func (s *Server) newRateLimiter(r *RateLimit) *rateLimiter {
	shared, _ := s.handles.store.(RateStore)
	return newRateLimiter(r, s.now, shared, s.handles.ns, s.signer.owner, s.logger)
}

func needsState(spec *ServerDef) bool {
	for _, t := range spec.Tools {
		if len(t.Asks) > 0 || t.Confirm != "" {
			return true
		}
	}
	return false
}

// authOptionsFrom completes the auth options from the environment:
// PREFIX_AUTH_TOKENS (inline "TOKEN SUBJECT [SCOPE...]" entries separated
// by ";" or newlines), PREFIX_AUTH_TOKENS_FILE (one entry per line),
// PREFIX_AUTH_JWKS (URL or file), PREFIX_AUTH_ISSUER, PREFIX_AUTH_AUDIENCE.
func authOptionsFrom(opts *Options, prefix string) (*AuthOptions, error) {
	a := &AuthOptions{}
	if opts.Auth != nil {
		*a = *opts.Auth
	}
	env := func(name string) string { return opts.Getenv(prefix + "_AUTH_" + name) }
	tokens := map[string]Caller{}
	for k, v := range a.Tokens {
		tokens[k] = v
	}
	if inline := env("TOKENS"); inline != "" {
		if err := parseTokenLines(strings.NewReader(inline), tokens); err != nil {
			return nil, fmt.Errorf("$%s_AUTH_TOKENS: %w", prefix, err)
		}
	}
	file := a.TokensFile
	if file == "" {
		file = env("TOKENS_FILE")
	}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("bearer token file: %w", err)
		}
		err = parseTokenLines(f, tokens)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("bearer token file %s: %w", file, err)
		}
	}
	a.Tokens = tokens
	if a.JWKS == "" {
		a.JWKS = env("JWKS")
	}
	if a.Issuer == "" {
		a.Issuer = env("ISSUER")
	}
	if a.Audience == "" {
		a.Audience = env("AUDIENCE")
	}
	if a.Resource == "" {
		a.Resource = env("RESOURCE")
	}
	return a, nil
}

// bindAccess compiles a tool's confirmation, answer schemas and limits.
func (s *Server) bindAccess(bt *boundTool) error {
	ts := bt.spec
	if ts.Confirm != "" {
		e, err := compileExpr(ts.Confirm)
		if err != nil {
			return fmt.Errorf("confirm: %w", err)
		}
		bt.confirm = &e
	}
	for _, a := range ts.Asks {
		n, err := jsonschema.CompileNode(a.Schema)
		if err != nil {
			return fmt.Errorf("ask %s: %w", a.Arg, err)
		}
		if bt.askSchemas == nil {
			bt.askSchemas = map[string]*jsonschema.Node{}
		}
		bt.askSchemas[a.Arg] = n
	}
	for _, in := range ts.HandleInputs {
		if s.handles.types[in.Type] == nil {
			return fmt.Errorf("input %s: unknown handle type %q", in.Arg, in.Type)
		}
	}
	if ho := ts.CreatesHandle; ho != nil && s.handles.types[ho.Type] == nil {
		return fmt.Errorf("creates unknown handle type %q", ho.Type)
	}
	bt.rate = s.newRateLimiter(ts.RateLimit)
	bt.claims = ts.IdentityClaims()
	return nil
}

// IdentityClaims are the claims of the caller's identity the tool's
// bindings read (${identity.NAME}), sorted: a call needs every one of
// them, and test callers carry them.
func (t *Tool) IdentityClaims() []string {
	var claims []string
	for _, st := range t.AllSteps() {
		for _, b := range st.Args {
			for _, c := range b.IdentityClaims() {
				if !slices.Contains(claims, c) {
					claims = append(claims, c)
				}
			}
		}
	}
	slices.Sort(claims)
	return claims
}

// IdentityClaims lists the claims of the caller's identity that the
// binding and its fields read (${identity.NAME}), in the order met.
func (b Binding) IdentityClaims() []string {
	var claims []string
	if e, err := expr.Parse(b.Expr); err == nil {
		for _, r := range e.Refs {
			if r.Root == "identity" && len(r.Path) > 0 && !slices.Contains(claims, r.Path[0]) {
				claims = append(claims, r.Path[0])
			}
		}
	}
	for _, f := range append(slices.Clip(b.Fields), b.Items...) {
		for _, c := range f.IdentityClaims() {
			if !slices.Contains(claims, c) {
				claims = append(claims, c)
			}
		}
	}
	return claims
}

// admit identifies the caller and applies the tool-level checks: an
// identity when inputs are bound to it, the required scopes, and the rate
// limit. It returns ctx carrying the caller and the caller's owner digest.
func (s *Server) admit(ctx context.Context, bt *boundTool, ti *auth.TokenInfo) (context.Context, string, *callError) {
	claims, scopes := s.callerOf(ctx, ti)
	if claims != nil {
		ctx = ContextWithCaller(ctx, claims)
	}
	sub := claims["sub"]
	if len(bt.claims) > 0 && sub == "" && !overHTTP(ctx) {
		// stdio has no tokens: the user who runs the server names
		// themselves in its environment.
		return ctx, "", &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s acts for a signed-in user, and this local server was started without one. Tell the user to set %s in the server's environment and restart it; do not retry unchanged.", bt.spec.Name, callerenv.Setting(envPrefix(s.spec), bt.claims))}
	}
	if len(bt.claims) > 0 && sub == "" {
		return ctx, "", &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s acts for a signed-in user, and this call carries no verified identity. The user must connect with their own access token (bearer token) and try again.", bt.spec.Name)}
	}
	for _, c := range bt.claims {
		if c != "sub" && sub != "" && claims[c] == "" && s.stdio.Load() && !overHTTP(ctx) {
			return ctx, "", &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("%s needs the claim %q of the caller's identity, and %s_STDIO_CALLER gives none. Tell the user to set %s in the server's environment and restart it; do not retry unchanged.", bt.spec.Name, c, envPrefix(s.spec), callerenv.Setting(envPrefix(s.spec), bt.claims))}
		}
		if c != "sub" && sub != "" && claims[c] == "" {
			return ctx, "", &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("%s needs the claim %q of the caller's identity, and the caller's token has none. Do not retry; tell the user their sign-in lacks %s.", bt.spec.Name, c, c)}
		}
	}
	if len(bt.spec.Scopes) > 0 && claims == nil && overHTTP(ctx) && !s.insecureNoAuth {
		return ctx, "", &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s needs a signed-in caller with the scope %s, and this call carries no verified identity. Do not retry; tell the user to connect with their own access token.", bt.spec.Name, strings.Join(bt.spec.Scopes, " and "))}
	}
	if len(bt.spec.Scopes) > 0 && claims != nil {
		if miss := missingScopes(bt.spec.Scopes, scopes); len(miss) > 0 {
			return ctx, "", &callError{kind: KindForbidden, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("%s needs the scope %s, which the caller's access token does not grant. Do not retry; tell the user their account is not allowed to do this, or have them sign in with one that is.", bt.spec.Name, strings.Join(miss, " and "))}
		}
	}
	limiter, scope := bt.rate, "this tool"
	if limiter == nil {
		limiter, scope = s.rate, "this server"
	}
	if ok, wait := limiter.take(ctx, bt.spec.Name+"\x00"+sub); !ok {
		secs := int(math.Ceil(wait.Seconds()))
		return ctx, "", &callError{kind: KindRateLimited, retryable: true, retryAfter: secs,
			msg: fmt.Sprintf("Too many calls: %s allows %s calls per minute per caller. Wait %d seconds before calling again.", scope, trimFloat(limiter.rate*60), secs)}
	}
	return ctx, s.signer.owner(sub), nil
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// inboundHeaderKey carries the MCP client's HTTP headers to the request
// builder, which copies the allowlisted ones.
type inboundHeaderKey struct{}

// passThrough copies the allowlisted inbound headers onto req.
func (s *Server) passThrough(ctx context.Context, req *http.Request) {
	if len(s.passHeaders) == 0 {
		return
	}
	in, _ := ctx.Value(inboundHeaderKey{}).(http.Header)
	for _, h := range s.passHeaders {
		if v := in.Values(h); len(v) > 0 && req.Header.Get(h) == "" {
			req.Header[h] = append([]string(nil), v...)
		}
	}
}

// scopedTools lists the tools that declare scopes.
func (s *Server) scopedTools() []string {
	var out []string
	for name, bt := range s.tools {
		if len(bt.spec.Scopes) > 0 {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
