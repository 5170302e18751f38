package runtime

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/callerenv"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// "Connect your account": a call whose caller has no token of a per_user
// scheme answers with a link to this server's /oauth2/start, as a
// URL-mode elicitation (input_required) to clients that declared it, or
// as an error text that gives the link to others. The link names a flow
// record bound to the caller; /oauth2/start turns it (once) into the
// OAuth state and PKCE verifier (upstream_callback.go).

// flowRecord is what a connect link names (sealed in the vault).
type flowRecord struct {
	Sub    string   `json:"u"`
	Scheme string   `json:"s"`
	Scopes []string `json:"c"`
	Exp    int64    `json:"e"` // Unix seconds
}

// connectKey is the input request key of one scheme's link.
func connectKey(scheme string) string { return "oa2mcp_connect_" + scheme }

// connectAnswer starts a flow per scheme and answers with the links.
func (s *Server) connectAnswer(ctx context.Context, bt *boundTool, call *Call, schemes []string) *callOutcome {
	u := s.upstream
	if u.vault == nil {
		return &callOutcome{err: &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s acts as the caller's own account at the API (%s), and this server has no token of theirs. Tell the user their account must be connected in the application that runs this server.", bt.spec.Name, strings.Join(schemes, ", "))}}
	}
	links := map[string]string{}
	for _, name := range schemes {
		flow, err := u.pendingFlow(ctx, call.Caller["sub"], name, s.askScopes(ctx, bt, name, call.Caller["sub"]))
		if err != nil {
			return &callOutcome{err: storeUnavailable()}
		}
		links[name] = u.publicURL + startPath + "?flow=" + url.QueryEscape(flow)
	}
	if clientCanElicitURL(call.in.req) {
		reqs := mcp.InputRequestMap{}
		for _, name := range schemes {
			reqs[connectKey(name)] = &mcp.ElicitParams{Mode: "url", URL: links[name], ElicitationID: flowID(links[name]),
				Message: fmt.Sprintf("Connect your %s account so that %s can act as you. Open the link, sign in and allow access, then come back: the call is retried.", name, bt.spec.Name)}
		}
		return &callOutcome{res: &mcp.CallToolResult{InputRequests: reqs, RequestState: s.signer.sign(s.newRequestState(bt, argsDigest(call.Args), call.owner))}}
	}
	var parts []string
	for _, name := range schemes {
		parts = append(parts, fmt.Sprintf("%s: %s", name, links[name]))
	}
	return &callOutcome{err: &callError{kind: KindNeedsUser, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("%s acts as the user's own account at the API, and the user has not connected it to this server yet. Give the user this link and tell them: open this URL, sign in, then call the tool again. %s. The link works once, for the user it was made for, within %d minutes.", bt.spec.Name, strings.Join(parts, "; "), int(flowTTL.Minutes()))}}
}

// pendingFlow is the caller's unused connect flow for scheme and scopes,
// or a new one: a caller has at most one pending flow per scheme, so
// calls without an account cannot fill the store with flow records.
func (u *upstreamAuth) pendingFlow(ctx context.Context, sub, scheme string, scopes []string) (string, error) {
	ptr := u.vault.key("ufp", sub, scheme)
	var cur struct {
		Flow string `json:"f"`
	}
	if ok, _ := u.vault.get(ctx, ptr, &cur); ok {
		var rec flowRecord
		if ok, _ := u.vault.get(ctx, u.vault.key("uf", cur.Flow), &rec); ok && u.now().Unix() < rec.Exp && slices.Equal(rec.Scopes, scopes) {
			return cur.Flow, nil
		}
	}
	cur.Flow = randomToken()
	rec := flowRecord{Sub: sub, Scheme: scheme, Scopes: scopes, Exp: u.now().Add(flowTTL).Unix()}
	if err := u.vault.put(ctx, u.vault.key("uf", cur.Flow), rec, flowTTL); err != nil {
		return "", err
	}
	return cur.Flow, u.vault.put(ctx, ptr, cur, flowTTL)
}

// askScopes are the scopes a new sign-in asks: what the tool needs and
// what the caller's present token (if any) holds, so that connecting for
// one tool does not lose another's scopes.
func (s *Server) askScopes(ctx context.Context, bt *boundTool, scheme, sub string) []string {
	scopes := bt.userNeeds[scheme]
	var st storedToken
	if ok, _ := s.upstream.vault.get(ctx, s.upstream.vault.tokenKey(sub, scheme), &st); ok {
		scopes = append(scopes, st.Scopes...)
	}
	return sortedSet(scopes)
}

// flowID names a link's elicitation (a digest, never the link's secret).
func flowID(link string) string {
	sum := sha256.Sum256([]byte(link))
	return hex.EncodeToString(sum[:8])
}

// clientCanElicitURL reports whether the client declared URL-mode
// elicitation.
func clientCanElicitURL(req *mcp.CallToolRequest) bool {
	if req == nil {
		return false
	}
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// noCallerForAccount refuses a call without a verified caller: there is
// no one whose account to use.
func (s *Server) noCallerForAccount(ctx context.Context, bt *boundTool) *callError {
	if !overHTTP(ctx) {
		return &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s acts as the user's own account at the API, and this local server was started without a user. Tell the user to set %s in the server's environment and restart it; do not retry unchanged.", bt.spec.Name, callerenv.Setting(envPrefix(s.spec), nil))}
	}
	return &callError{kind: KindUnauthorized, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("%s acts as the user's own account at the API, and this call carries no verified identity. The user must connect with their own access token (bearer token) and try again.", bt.spec.Name)}
}

// runDisconnect deletes the caller's stored per_user tokens: of the
// scheme given, or of every per_user scheme.
func (s *Server) runDisconnect(ctx context.Context, bt *boundTool, call *Call) (*mcp.CallToolResult, *callError) {
	sub := call.Caller["sub"]
	if sub == "" {
		return nil, s.noCallerForAccount(ctx, bt)
	}
	u := s.upstream
	if u == nil || u.vault == nil {
		// Tokens come from the embedding application (Options.UpstreamTokens).
		return s.finishResult(bt, map[string]any{"disconnected": []any{},
			"note": "This server stores no tokens of yours itself: the application that runs it keeps them. Disconnect the account there, or remove this application in your account's settings at the API."})
	}
	var names []string
	if want, _ := call.Args["scheme"].(string); want != "" {
		names = []string{want}
	} else {
		for _, name := range textkit.SortedKeys(u.schemes) {
			if u.schemes[name].mode() == ModePerUser {
				names = append(names, name)
			}
		}
	}
	var gone []any
	for _, name := range names {
		if us := u.schemes[name]; us == nil || us.mode() != ModePerUser {
			return nil, inputFailure(fmt.Sprintf("scheme %q is not an account users connect to this server.", name))
		}
		key := u.vault.tokenKey(sub, name)
		var st storedToken
		had, _ := u.vault.get(ctx, key, &st)
		if err := u.vault.delete(ctx, key); err != nil {
			return nil, storeUnavailable()
		}
		if had {
			gone = append(gone, name)
		}
	}
	if gone == nil {
		gone = []any{}
	}
	return s.finishResult(bt, map[string]any{"disconnected": gone,
		"note": "The tokens this server stored for you are deleted. To revoke the access at the API too, remove this application in your account's settings there."})
}

// sameSecret compares a presented secret with a stored digest.
func sameSecret(presented, digest string) bool {
	sum := sha256.Sum256([]byte(presented))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(digest)) == 1
}

// secretDigest is what a record keeps of a browser binding.
func secretDigest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
