package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/zitadel/oidc/v3/pkg/client/rp"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// verifier checks bearer tokens the way a resource server must: the JWT
// offline against the issuer's keys, then (with --introspect) its
// liveness at the issuer.
type verifier struct {
	issuer     string
	audiences  []string
	jwt        *op.AccessTokenVerifier
	client     *http.Client
	introspect [2]string // client id, secret; empty: no introspection
}

// caller is who a verified token speaks for.
type caller struct {
	subject string
	scopes  []string
}

// authError is a refusal with its RFC 6750 error code.
type authError struct {
	status      int
	code, scope string
	description string
}

func (e *authError) Error() string { return e.code + ": " + e.description }

func newVerifier(issuer string, audiences []string, introspect string) (*verifier, error) {
	client := &http.Client{Timeout: 10 * time.Second}
	v := &verifier{issuer: issuer, audiences: audiences, client: client,
		jwt: op.NewAccessTokenVerifier(issuer, rp.NewRemoteKeySet(client, strings.TrimSuffix(issuer, "/")+"/keys"))}
	if introspect != "" {
		id, secret, ok := strings.Cut(introspect, ":")
		if !ok || id == "" {
			return nil, fmt.Errorf("--introspect %q: want CLIENT_ID:SECRET", introspect)
		}
		v.introspect = [2]string{id, secret}
	}
	return v, nil
}

// check verifies the request's bearer token and that it holds scope.
func (v *verifier) check(ctx context.Context, r *http.Request, scope string) (caller, *authError) {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || raw == "" {
		return caller{}, &authError{status: 401, code: "invalid_request", description: "no bearer token"}
	}
	claims, err := op.VerifyAccessToken[*oidc.AccessTokenClaims](ctx, raw, v.jwt)
	if err != nil {
		return caller{}, &authError{status: 401, code: "invalid_token", description: err.Error()}
	}
	if !slices.ContainsFunc(claims.Audience, func(a string) bool { return slices.Contains(v.audiences, a) }) {
		return caller{}, &authError{status: 401, code: "invalid_token", description: fmt.Sprintf("token audience %v is not this API (%v)", claims.Audience, v.audiences)}
	}
	if v.introspect[0] != "" {
		if err := v.active(ctx, raw); err != nil {
			return caller{}, err
		}
	}
	c := caller{subject: claims.Subject, scopes: claims.Scopes}
	if !slices.Contains(c.scopes, scope) {
		return caller{}, &authError{status: 403, code: "insufficient_scope", scope: scope, description: "the token lacks scope " + scope}
	}
	return c, nil
}

// active asks the issuer's introspection endpoint whether the token is
// still valid (not revoked).
func (v *verifier) active(ctx context.Context, token string) *authError {
	form := url.Values{"token": {token}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(v.issuer, "/")+"/oauth/introspect", strings.NewReader(form.Encode()))
	if err != nil {
		return &authError{status: 500, code: "server_error", description: err.Error()}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(v.introspect[0]), url.QueryEscape(v.introspect[1]))
	resp, err := v.client.Do(req)
	if err != nil {
		return &authError{status: 503, code: "temporarily_unavailable", description: "introspection: " + err.Error()}
	}
	defer resp.Body.Close()
	var out struct {
		Active bool `json:"active"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&out) != nil {
		return &authError{status: 503, code: "temporarily_unavailable", description: "introspection answered " + resp.Status}
	}
	if !out.Active {
		return &authError{status: 401, code: "invalid_token", description: "the token was revoked"}
	}
	return nil
}
