package runtime

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Getting a caller's upstream token: a per_user token from the vault
// (refreshed when it expires within refreshMargin), or an exchanged one
// (cached per caller and MCP token until shortly before it expires).

// perUserToken is the caller's stored token of a per_user scheme, or ""
// when there is none usable: none stored, one that does not open, one
// without the scopes this tool needs, or one that expired and cannot be
// refreshed.
func (u *upstreamAuth) perUserToken(ctx context.Context, bt *boundTool, us *userScheme, sub string) (string, *callError) {
	key := u.vault.tokenKey(sub, us.def.Name)
	var st storedToken
	ok, err := u.vault.get(ctx, key, &st)
	if errors.Is(err, errVaultSealed) {
		u.logger.Warn("a stored upstream token does not open with $PREFIX_TOKEN_KEY (another key, or altered): the caller is asked to connect again", "scheme", us.def.Name)
		return "", nil
	}
	if err != nil {
		return "", storeUnavailable()
	}
	if !ok || missingScopes(bt.userNeeds[us.def.Name], st.Scopes) != nil {
		return "", nil
	}
	if st.Expires == 0 || u.now().Add(refreshMargin).Unix() < st.Expires {
		return st.Access, nil
	}
	if st.Refresh == "" {
		_ = u.vault.delete(ctx, key)
		return "", nil
	}
	ans, oerr := us.client.post(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {st.Refresh}}, st.Refresh, st.Access)
	if oerr != nil && oerr.refused() {
		// The grant is gone (revoked, expired): connect again.
		_ = u.vault.delete(ctx, key)
		return "", nil
	}
	if oerr != nil {
		return "", &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("Your %s account's access expired and could not be renewed: %s. Retry in a few seconds.", us.def.Name, oerr.Error())}
	}
	next := ans.stored(u.now(), st.Scopes, st.Refresh)
	if err := u.vault.put(ctx, key, next, u.keepFor(next)); err != nil {
		return "", storeUnavailable()
	}
	return next.Access, nil
}

// keepFor is how long the vault keeps a token.
func (u *upstreamAuth) keepFor(st storedToken) time.Duration {
	if st.Refresh != "" {
		return refreshTTL
	}
	if st.Expires == 0 {
		return time.Hour
	}
	return max(time.Unix(st.Expires, 0).Sub(u.now()), time.Second)
}

// exchangeCacheMargin: a cached exchanged token is used until this long
// before it expires.
const exchangeCacheMargin = 60 * time.Second

// exchange is the caller's MCP access token exchanged (RFC 8693) for an
// upstream token, from the cache when a fresh one is there.
func (u *upstreamAuth) exchange(ctx context.Context, bt *boundTool, us *userScheme, call *Call) (string, *callError) {
	subject := call.in.bearer()
	if subject == "" {
		return "", &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s acts for the caller with a token exchanged for their own access token, and this call carries no access token this server verified (exchange needs the HTTP transport with bearer authentication). Do not retry; tell the user to connect over HTTP with their own access token.", bt.spec.Name)}
	}
	sub := call.Caller["sub"]
	key := u.vault.exchangeKey(sub, us.def.Name, subject)
	var st storedToken
	ok, err := u.vault.get(ctx, key, &st)
	if err != nil && !errors.Is(err, errVaultSealed) {
		return "", storeUnavailable()
	}
	if ok && (st.Expires == 0 || u.now().Add(exchangeCacheMargin).Unix() < st.Expires) {
		return st.Access, nil
	}
	ua := us.def.UpstreamAuth
	form := url.Values{"grant_type": {tokenExchangeGrant}, "subject_token": {subject}, "subject_token_type": {accessTokenType}}
	if ua.Audience != "" {
		form.Set("audience", ua.Audience)
	}
	if ua.Resource != "" {
		form.Set("resource", ua.Resource)
	}
	ans, oerr := us.client.post(ctx, form, subject)
	if oerr != nil {
		return "", exchangeFailure(bt, us, oerr)
	}
	next := ans.stored(u.now(), nil, "")
	next.Refresh = ""
	ttl := time.Duration(next.Expires-u.now().Unix())*time.Second - exchangeCacheMargin
	if next.Expires == 0 {
		ttl = 5 * time.Minute
	}
	if ttl > 0 {
		if err := u.vault.put(ctx, key, next, ttl); err != nil {
			u.logger.LogAttrs(ctx, slog.LevelWarn, "an exchanged upstream token could not be cached", slog.String("scheme", us.def.Name))
		}
	}
	return next.Access, nil
}

// exchangeFailure names what the authorization server said.
func exchangeFailure(bt *boundTool, us *userScheme, oerr *oauthError) *callError {
	if !oerr.refused() {
		return &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s could not exchange the caller's access token for a %s token: %s. Retry in a few seconds.", bt.spec.Name, us.def.Name, oerr.Error())}
	}
	return &callError{kind: KindForbidden, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("%s could not act for the caller: exchanging their access token for a %s token was refused (%s). Do not retry unchanged; tell the user their sign-in is not allowed to use this API, or have them sign in again.", bt.spec.Name, us.def.Name, oerr.Error())}
}

// forget drops the stored tokens a call used after the upstream refused
// them (401): per_user tokens and cached exchanges alike.
func (u *upstreamAuth) forget(ctx context.Context, call *Call, used map[string]string) {
	sub := call.Caller["sub"]
	for name := range used {
		us := u.schemes[name]
		if us == nil || u.vault == nil {
			continue
		}
		if us.mode() == ModePerUser {
			_ = u.vault.delete(ctx, u.vault.tokenKey(sub, name))
		} else if b := call.in.bearer(); b != "" {
			_ = u.vault.delete(ctx, u.vault.exchangeKey(sub, name, b))
		}
	}
}

// hasScopes reports whether every scope of need is in have.
func hasScopes(need, have []string) bool { return missingScopes(need, have) == nil }

// joinScopes is a scope parameter.
func joinScopes(scopes []string) string { return strings.Join(scopes, " ") }

// tokenRefused answers a call whose upstream refused the caller's token
// (401): the stored token is dropped and the call answers as if none had
// been stored, so a per_user caller is asked to connect again.
func (s *Server) tokenRefused(ctx context.Context, bt *boundTool, call *Call, used map[string]string) (*mcp.CallToolResult, error) {
	s.upstream.forget(ctx, call, used)
	var perUser []string
	for _, name := range textkit.SortedKeys(used) {
		if s.upstream.schemes[name].mode() == ModePerUser {
			perUser = append(perUser, name)
		}
	}
	if len(perUser) == 0 {
		return nil, &callError{kind: KindUnauthorized, status: http.StatusUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The API refused the token this server obtained for the caller (HTTP 401); it is forgotten. Call %s again once; if it fails again, tell the user their sign-in is not accepted by the API.", bt.spec.Name)}
	}
	out := s.connectAnswer(ctx, bt, call, perUser)
	if out.err != nil {
		return nil, out.err
	}
	return out.res, nil
}

// withoutUserTokens removes the call's upstream tokens from what it
// answers: an upstream may echo its Authorization header.
func withoutUserTokens(res *mcp.CallToolResult, cerr *callError, tokens map[string]string) (*mcp.CallToolResult, *callError) {
	var vals []string
	for _, t := range tokens {
		if t != "" {
			vals = append(vals, t)
		}
	}
	if len(vals) == 0 {
		return res, cerr
	}
	cs := &credentialSet{secrets: vals}
	if cerr != nil {
		cerr.msg = redactValues(cerr.msg, vals)
	}
	if res != nil {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				t.Text = redactValues(t.Text, vals)
			}
		}
		if res.StructuredContent != nil {
			res.StructuredContent = redactValue(res.StructuredContent, cs)
		}
	}
	return res, cerr
}
