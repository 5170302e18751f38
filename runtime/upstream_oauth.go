package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// The OAuth 2.0 client side of per_user and exchange schemes: requests
// to the authorization server's token endpoint (authorization code with
// PKCE, refresh, RFC 8693 token exchange).

// maxTokenResponse bounds a token endpoint's answer.
const maxTokenResponse = 64 << 10

// tokenExchangeGrant and accessTokenType are RFC 8693's names.
const (
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	accessTokenType    = "urn:ietf:params:oauth:token-type:access_token"
)

// oauthClient is the server's registered client at one token endpoint.
type oauthClient struct {
	http     *http.Client
	tokenURL string
	id       string
	secret   string
}

// tokenAnswer is a token endpoint's success or error body (RFC 6749 §5).
type tokenAnswer struct {
	AccessToken      string          `json:"access_token"`
	TokenType        string          `json:"token_type"`
	ExpiresIn        json.RawMessage `json:"expires_in"`
	RefreshToken     string          `json:"refresh_token"`
	IDToken          string          `json:"id_token"`
	Scope            string          `json:"scope"`
	Error            string          `json:"error"`
	ErrorDescription string          `json:"error_description"`
}

// oauthError is a refusal or failure of the token endpoint. Client
// errors (4xx with an error code) mean the grant is bad; others that the
// authorization server could not be reached or failed.
type oauthError struct {
	status int
	code   string
	desc   string
	cause  error
}

func (e *oauthError) Error() string {
	switch {
	case e.cause != nil:
		return "the authorization server could not be reached: " + e.cause.Error()
	case e.code != "" && e.desc != "":
		return fmt.Sprintf("the authorization server answered HTTP %d, error %q: %s", e.status, e.code, e.desc)
	case e.code != "":
		return fmt.Sprintf("the authorization server answered HTTP %d, error %q", e.status, e.code)
	}
	return fmt.Sprintf("the authorization server answered HTTP %d without a token", e.status)
}

// refused reports whether the grant itself was refused (a new one is
// needed), rather than the server failing.
func (e *oauthError) refused() bool {
	return e.cause == nil && e.status >= 400 && e.status < 500
}

// post sends a token request; secrets lists what the answer's text must
// never show (the client secret, the grant sent).
func (c *oauthClient) post(ctx context.Context, form url.Values, secrets ...string) (*tokenAnswer, *oauthError) {
	if c.secret == "" {
		form.Set("client_id", c.id)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, &oauthError{cause: err}
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if c.secret != "" {
		// RFC 6749 §2.3.1: form-encode both before basic auth.
		req.SetBasicAuth(url.QueryEscape(c.id), url.QueryEscape(c.secret))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, &oauthError{cause: redactedError(err, append(secrets, c.secret))}
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxTokenResponse))
	var ans tokenAnswer
	_ = json.Unmarshal(body, &ans)
	secrets = append(secrets, c.secret)
	if resp.StatusCode != http.StatusOK || ans.AccessToken == "" || ans.Error != "" {
		return nil, &oauthError{status: resp.StatusCode, code: textkit.ClipRunes(redactValues(ans.Error, nonEmpty(secrets)), 100),
			desc: textkit.ClipRunes(redactValues(ans.ErrorDescription, nonEmpty(secrets)), 300)}
	}
	return &ans, nil
}

// expiresAt turns expires_in (a number, or a string some servers send)
// into a Unix time; 0 when absent.
func (a *tokenAnswer) expiresAt(now time.Time) int64 {
	text := strings.Trim(string(a.ExpiresIn), `"`)
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return now.Unix() + n
}

// stored makes the vault entry of an answer; asked are the scopes
// requested, kept when the server does not list what it granted, and
// oldRefresh is kept when a refresh answer brings no new refresh token.
func (a *tokenAnswer) stored(now time.Time, asked []string, oldRefresh string) storedToken {
	st := storedToken{Access: a.AccessToken, Refresh: a.RefreshToken, Expires: a.expiresAt(now), Scopes: sortedSet(asked)}
	if a.Scope != "" {
		st.Scopes = sortedSet(strings.Fields(a.Scope))
	}
	if st.Refresh == "" {
		st.Refresh = oldRefresh
	}
	return st
}

// pkceChallenge is the S256 code challenge of a verifier (RFC 7636).
func pkceChallenge(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// tokenHTTPClient calls token endpoints: bounded in time, never
// following a redirect (a token request must not be replayed elsewhere).
func tokenHTTPClient() *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type redactedErr struct{ msg string }

func (e redactedErr) Error() string { return e.msg }

func redactedError(err error, secrets []string) error {
	return redactedErr{redactValues(err.Error(), nonEmpty(secrets))}
}

func nonEmpty(vals []string) []string {
	var out []string
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}
