package main

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// fixtureStorage is the example's in-memory storage with what the tests
// need on top: JWT access tokens for every client, the requested scopes
// in a scope claim, a configurable access-token lifetime, a record of
// every token issued (so that introspection and revocation work for JWTs
// and a user's tokens can be revoked at once) and token exchange for
// ordinary users.
type fixtureStorage struct {
	*storage.Storage
	lifetime     time.Duration
	denyExchange []string

	mu      sync.Mutex
	issued  map[string]*issuedToken // by access-token id (jti)
	refresh map[string]string       // refresh token -> jti of its access token
}

// issuedToken is what the provider knows of one access token.
type issuedToken struct {
	subject, client, refresh string
	scopes                   []string
	expires                  time.Time
	revoked                  bool
}

func newFixtureStorage(inner *storage.Storage, lifetime time.Duration, denyExchange []string) *fixtureStorage {
	return &fixtureStorage{Storage: inner, lifetime: lifetime, denyExchange: denyExchange,
		issued: map[string]*issuedToken{}, refresh: map[string]string{}}
}

// GetClientByClientID hands out the registered client as a fixtureClient.
func (s *fixtureStorage) GetClientByClientID(ctx context.Context, id string) (op.Client, error) {
	c, err := s.Storage.GetClientByClientID(ctx, id)
	if err != nil {
		return nil, err
	}
	return fixtureClient{c}, nil
}

// CreateAccessToken shortens the example's lifetime and records the token.
func (s *fixtureStorage) CreateAccessToken(ctx context.Context, req op.TokenRequest) (string, time.Time, error) {
	id, _, err := s.Storage.CreateAccessToken(ctx, req)
	if err != nil {
		return "", time.Time{}, err
	}
	return id, s.record(id, "", req), nil
}

// CreateAccessAndRefreshTokens does the same for code, refresh and
// exchange grants that also issue a refresh token.
func (s *fixtureStorage) CreateAccessAndRefreshTokens(ctx context.Context, req op.TokenRequest, current string) (string, string, time.Time, error) {
	id, refresh, _, err := s.Storage.CreateAccessAndRefreshTokens(ctx, req, current)
	if err != nil {
		return "", "", time.Time{}, err
	}
	return id, refresh, s.record(id, refresh, req), nil
}

func (s *fixtureStorage) record(id, refresh string, req op.TokenRequest) time.Time {
	exp := time.Now().Add(s.lifetime)
	client := ""
	switch r := req.(type) {
	case interface{ GetClientID() string }:
		client = r.GetClientID()
	case *storage.AuthRequest:
		client = r.ApplicationID
	case *storage.RefreshTokenRequest:
		client = r.ApplicationID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issued[id] = &issuedToken{subject: req.GetSubject(), client: client, refresh: refresh,
		scopes: slices.Clone(req.GetScopes()), expires: exp}
	if refresh != "" {
		s.refresh[refresh] = id
	}
	return exp
}

// active returns the record of an access token that is neither revoked
// nor expired.
func (s *fixtureStorage) active(id string) (issuedToken, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.issued[id]
	if !ok || t.revoked || time.Now().After(t.expires) {
		return issuedToken{}, false
	}
	return *t, true
}

// RevokeToken (the /revoke endpoint) also marks the JWT revoked, so that
// introspection reports it inactive from then on.
func (s *fixtureStorage) RevokeToken(ctx context.Context, token, userID, clientID string) *oidc.Error {
	if err := s.Storage.RevokeToken(ctx, token, userID, clientID); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.refresh[token]; ok {
		token = id
	}
	if t, ok := s.issued[token]; ok {
		t.revoked = true
	}
	return nil
}

// revokeSubjectHandler revokes every access and refresh token of ?sub=.
func (s *fixtureStorage) revokeSubjectHandler(w http.ResponseWriter, r *http.Request) {
	sub := r.URL.Query().Get("sub")
	s.mu.Lock()
	var refresh []*issuedToken
	for _, t := range s.issued {
		if t.subject == sub && !t.revoked {
			t.revoked = true
			if t.refresh != "" {
				refresh = append(refresh, t)
			}
		}
	}
	s.mu.Unlock()
	for _, t := range refresh {
		_ = s.Storage.RevokeToken(r.Context(), t.refresh, t.subject, t.client)
	}
	w.WriteHeader(http.StatusNoContent)
}

// SetIntrospectionFromToken answers from the record: the example's
// storage checks that the caller is the token's audience, but an API
// introspects tokens issued to the client that calls it.
func (s *fixtureStorage) SetIntrospectionFromToken(_ context.Context, in *oidc.IntrospectionResponse, id, subject, _ string) error {
	t, ok := s.active(id)
	if !ok || t.subject != subject {
		return errors.New("token is not active")
	}
	in.Subject = t.subject
	in.ClientID = t.client
	in.Scope = t.scopes
	in.Expiration = oidc.FromTime(t.expires)
	return nil
}

// GetPrivateClaimsFromScopes adds the scope claim an API checks.
func (s *fixtureStorage) GetPrivateClaimsFromScopes(ctx context.Context, userID, clientID string, scopes []string) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromScopes(ctx, userID, clientID, scopes)
	return withScope(claims, scopes), err
}

// GetPrivateClaimsFromTokenExchangeRequest adds the scope claim to
// exchanged tokens.
func (s *fixtureStorage) GetPrivateClaimsFromTokenExchangeRequest(ctx context.Context, req op.TokenExchangeRequest) (map[string]any, error) {
	claims, err := s.Storage.GetPrivateClaimsFromTokenExchangeRequest(ctx, req)
	return withScope(claims, req.GetScopes()), err
}

func withScope(claims map[string]any, scopes []string) map[string]any {
	if claims == nil {
		claims = map[string]any{}
	}
	claims["scope"] = strings.Join(scopes, " ")
	return claims
}

// ValidateTokenExchangeRequest lets a client exchange an active access
// token of any user for an access token of the same user (the example
// allows only impersonation by admins): the requested token type
// defaults to an access token, the scopes to those of the subject token;
// users named by --deny-exchange are refused with access_denied.
func (s *fixtureStorage) ValidateTokenExchangeRequest(_ context.Context, req op.TokenExchangeRequest) error {
	if req.GetRequestedTokenType() == "" {
		req.SetRequestedTokenType(oidc.AccessTokenType)
	}
	if slices.Contains(s.denyExchange, req.GetExchangeSubject()) {
		return oidc.ErrAccessDenied().WithDescription("user %s has not allowed access to this API through token exchange", req.GetExchangeSubject())
	}
	if len(req.GetAudience()) == 0 {
		return oidc.ErrInvalidTarget().WithDescription("audience is required: name the API the token is for")
	}
	t, ok := s.active(req.GetExchangeSubjectTokenIDOrToken())
	if !ok {
		return oidc.ErrInvalidGrant().WithDescription("subject_token is not an active access token of this provider")
	}
	if len(req.GetScopes()) == 0 {
		req.SetCurrentScopes(t.scopes)
	}
	return nil
}
