package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Per-caller upstream tokens (per_user and exchange schemes): the
// configuration read at start, and what a call does before its upstream
// requests (attach a token, or ask the user to connect their account)
// and after them (an upstream 401 forgets the token).

// UpstreamTokenFunc supplies a caller's upstream token for a per_user or
// exchange scheme instead of the built-in flows (Options.UpstreamTokens):
// "" when the caller has none, so the call answers as if none were stored.
type UpstreamTokenFunc func(ctx context.Context, scheme string, caller map[string]string) (string, error)

// flowTTL bounds a connect link and its sign-in.
const flowTTL = 10 * time.Minute

// refreshMargin: an access token expiring sooner is refreshed first.
const refreshMargin = 60 * time.Second

// refreshTTL keeps a token with a refresh token this long after its last
// use or refresh; without one, the token lives until it expires.
const refreshTTL = 30 * 24 * time.Hour

// upstreamAuth is the server's per-caller upstream authentication.
type upstreamAuth struct {
	vault     *tokenVault // nil when tokens come from supply
	supply    UpstreamTokenFunc
	schemes   map[string]*userScheme
	publicURL string       // without a trailing "/"
	signIn    *signInCheck // the caller check of connect links; nil: none
	secure    bool         // publicURL is https: cookies are Secure
	now       func() time.Time
	logger    *slog.Logger
}

// userScheme is one per_user or exchange scheme with its client.
type userScheme struct {
	def    *SecurityScheme
	client oauthClient
}

// mode is the scheme's UpstreamAuth.Mode.
func (u *userScheme) mode() string { return u.def.UpstreamAuth.Mode }

// initUpstreamAuth reads the settings per_user and exchange schemes need:
// the token key ($PREFIX_TOKEN_KEY, base64 of 32 bytes), the public URL
// ($PREFIX_PUBLIC_URL, per_user) and each scheme's client id (and
// secret). The server does not start without them.
func (s *Server) initUpstreamAuth(spec *ServerDef, opts *Options, prefix string) error {
	u := &upstreamAuth{schemes: map[string]*userScheme{}, supply: opts.UpstreamTokens, now: s.now, logger: s.logger}
	perUser := false
	var problems []string
	for i := range spec.Security {
		def := &spec.Security[i]
		ua := def.UpstreamAuth
		if ua == nil {
			continue
		}
		if ua.Mode != ModePerUser && ua.Mode != ModeExchange {
			return fmt.Errorf("security scheme %q: unknown upstream auth mode %q", def.Name, ua.Mode)
		}
		perUser = perUser || ua.Mode == ModePerUser
		us := &userScheme{def: def, client: oauthClient{http: tokenHTTPClient(), tokenURL: ua.TokenURL,
			id: opts.Getenv(ua.ClientIDEnv), secret: opts.Getenv(ua.ClientSecretEnv)}}
		if us.client.id == "" && u.supply == nil {
			problems = append(problems, fmt.Sprintf("set $%s (and $%s for a confidential client) to the OAuth client registered for scheme %s at %s", ua.ClientIDEnv, ua.ClientSecretEnv, def.Name, hostOf(ua.TokenURL)))
		}
		u.schemes[def.Name] = us
	}
	if len(u.schemes) == 0 {
		return nil
	}
	s.upstream = u
	if u.supply != nil {
		return nil
	}
	if text := opts.Getenv(prefix + "_TOKEN_KEY"); text == "" {
		problems = append(problems, fmt.Sprintf("set $%s_TOKEN_KEY to base64 of 32 random bytes (`openssl rand -base64 32`), the same on every replica: upstream tokens of callers are stored encrypted with it", prefix))
	} else if key, err := parseTokenKey(text); err != nil {
		problems = append(problems, fmt.Sprintf("$%s_TOKEN_KEY: %v", prefix, err))
	} else if u.vault, err = newTokenVault(key, s.handles.store, s.handles.ns, s.now); err != nil {
		return err
	}
	if perUser {
		pub := strings.TrimRight(opts.Getenv(prefix+"_PUBLIC_URL"), "/")
		p, err := url.Parse(pub)
		switch {
		case pub == "":
			problems = append(problems, fmt.Sprintf("set $%s_PUBLIC_URL to this server's external base URL (e.g. https://mcp.example.com): users are sent to $%s_PUBLIC_URL/oauth2/start and the authorization server redirects to $%s_PUBLIC_URL/oauth2/callback, which must be the redirect URI registered for the client", prefix, prefix, prefix))
		case err != nil || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" || p.RawQuery != "" || p.Fragment != "":
			problems = append(problems, fmt.Sprintf("$%s_PUBLIC_URL %q is not an http(s) base URL without query", prefix, pub))
		}
		u.publicURL, u.secure = pub, strings.HasPrefix(pub, "https:")
		var more []string
		u.signIn, more = s.initSignIn(opts, prefix)
		problems = append(problems, more...)
	}
	if len(problems) > 0 {
		return errors.New("upstream accounts: " + strings.Join(problems, "; "))
	}
	if perUser && u.signIn == nil {
		s.logger.Warn("connect links are not checked against their caller: a link forwarded to someone else lets that person connect their account to the caller; set $" +
			prefix + "_SIGNIN_CLIENT_ID (a client at the MCP authorization server, redirect URI $" + prefix + "_PUBLIC_URL/oauth2/signed-in) to check it (docs/state-and-auth.md)")
	}
	return nil
}

func hostOf(raw string) string {
	if p, err := url.Parse(raw); err == nil && p.Host != "" {
		return p.Host
	}
	return raw
}

// redirectURI is the callback the authorization server sends users to.
func (u *upstreamAuth) redirectURI() string { return u.publicURL + callbackPath }

// userNeeds is what a tool's calls need per per_user or exchange scheme:
// the scopes to ask (per_user), by scheme.
type userNeeds map[string][]string

// bindUpstreamAuth finds the per-caller schemes the tool's operations
// authenticate with (the alternative each operation's plan picks) and
// the scopes they declare for them, plus the scheme's own.
func (s *Server) bindUpstreamAuth(bt *boundTool) error {
	if s.upstream == nil {
		return nil
	}
	ops := []*Operation{bt.spec.Op}
	for i := range bt.spec.Steps {
		ops = append(ops, &bt.spec.Steps[i].Op)
	}
	for _, a := range bt.spec.Actions {
		for i := range a.Steps {
			ops = append(ops, &a.Steps[i].Op)
		}
	}
	for _, op := range ops {
		if op == nil {
			continue
		}
		p, err := s.creds.plan(op.Security)
		if err != nil {
			return err
		}
		for _, c := range p.creds {
			us := s.upstream.schemes[c.scheme.Name]
			if us == nil {
				continue
			}
			if bt.userNeeds == nil {
				bt.userNeeds = userNeeds{}
			}
			scopes := append(bt.userNeeds[us.def.Name], us.def.UpstreamAuth.Scopes...)
			for _, ss := range op.SecurityScopes {
				if ss.Scheme == us.def.Name {
					scopes = append(scopes, ss.Scopes...)
				}
			}
			bt.userNeeds[us.def.Name] = sortedSet(scopes)
		}
	}
	return nil
}

// upstreamTokensKey carries the call's per-caller tokens (scheme →
// token) to the request builder.
type upstreamTokensKey struct{}

// userToken is the token of scheme for this call, "" when none.
func userToken(ctx context.Context, scheme string) string {
	m, _ := ctx.Value(upstreamTokensKey{}).(map[string]string)
	return m[scheme]
}

// callTokens are the per-caller tokens of a call (scheme → token).
func callTokens(ctx context.Context) map[string]string {
	m, _ := ctx.Value(upstreamTokensKey{}).(map[string]string)
	return m
}

// attachTokens gets the caller's token of every per-caller scheme the
// tool needs. A caller without one gets the connect answer (a result)
// instead; failures are call errors in the tool's terms.
func (s *Server) attachTokens(ctx context.Context, bt *boundTool, call *Call) (context.Context, *callOutcome) {
	if len(bt.userNeeds) == 0 {
		return ctx, nil
	}
	sub := call.Caller["sub"]
	if sub == "" {
		return ctx, &callOutcome{err: s.noCallerForAccount(ctx, bt)}
	}
	tokens := map[string]string{}
	var connect []string
	for _, name := range textkit.SortedKeys(bt.userNeeds) {
		us := s.upstream.schemes[name]
		tok, cerr := s.upstream.token(ctx, bt, us, call)
		if cerr != nil {
			return ctx, &callOutcome{err: cerr}
		}
		if tok == "" {
			connect = append(connect, name)
			continue
		}
		tokens[name] = tok
	}
	if len(connect) > 0 {
		if declined := connectDeclined(bt, call, connect); declined != nil {
			return ctx, &callOutcome{err: declined}
		}
		return ctx, s.connectAnswer(ctx, bt, call, connect)
	}
	return context.WithValue(ctx, upstreamTokensKey{}, tokens), nil
}

// connectDeclined ends a call whose retry answers the connect link with
// decline or cancel while the account is still not connected: asking
// again would loop a client that retries until it gives up.
func connectDeclined(bt *boundTool, call *Call, schemes []string) *callError {
	if call.in.req == nil || call.in.req.Params == nil {
		return nil
	}
	for _, name := range schemes {
		er, ok := call.in.req.Params.InputResponses[connectKey(name)].(*mcp.ElicitResult)
		if ok && (er.Action == "decline" || er.Action == "cancel") {
			return &callError{kind: KindDeclined, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("The user did not connect their %s account, so %s did nothing. Call it again only when the user wants to connect.", name, bt.spec.Name)}
		}
	}
	return nil
}

// callOutcome is a call's early end: a result to send or an error.
type callOutcome struct {
	res *mcp.CallToolResult
	err *callError
}

// token finds (or obtains) the caller's token of one scheme.
func (u *upstreamAuth) token(ctx context.Context, bt *boundTool, us *userScheme, call *Call) (string, *callError) {
	if u.supply != nil {
		tok, err := u.supply(ctx, us.def.Name, call.Caller)
		if err != nil {
			return "", &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
				msg: "This server cannot get your upstream token right now. Retry in a few seconds."}
		}
		return tok, nil
	}
	if us.mode() == ModeExchange {
		return u.exchange(ctx, bt, us, call)
	}
	return u.perUserToken(ctx, bt, us, call.Caller["sub"])
}

func sortedSet(vals []string) []string {
	out := slices.Clone(vals)
	sort.Strings(out)
	return slices.Compact(out)
}
