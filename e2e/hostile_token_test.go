//go:build linux && e2e

package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// The hostile-token cases: a petstore server process verifying ES256 JWTs
// from a JWKS file, attacked with tokens for another audience or issuer,
// without audience, with alg none or HS256 keyed with the public key,
// with string exp/nbf/iat, a crit header, expired or not yet valid. Each
// gets 401 naming the problem; the server serves on.

const (
	tokenIssuer   = "https://id.example.com"
	tokenAudience = "https://mcp.example.com/mcp"
)

// jwtKey signs test tokens; jwks is its public JWKS document.
type jwtKey struct {
	key  *ecdsa.PrivateKey
	jwks []byte
}

func newJWTKey(t *testing.T) *jwtKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	b64 := base64.RawURLEncoding.EncodeToString
	x, y := make([]byte, 32), make([]byte, 32)
	k.X.FillBytes(x)
	k.Y.FillBytes(y)
	jwks, _ := json.Marshal(map[string]any{"keys": []any{map[string]any{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256", "use": "sig", "x": b64(x), "y": b64(y)}}})
	return &jwtKey{key: k, jwks: jwks}
}

// sign makes a token from a header and claims; alg ES256 is signed with
// the key, HS256 with the JWKS text as secret (the key-confusion attack),
// anything else gets no signature.
func (k *jwtKey) sign(t *testing.T, header, claims map[string]any) string {
	t.Helper()
	hb, _ := json.Marshal(header)
	cb, _ := json.Marshal(claims)
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64(hb) + "." + b64(cb)
	digest := sha256.Sum256([]byte(input))
	switch header["alg"] {
	case "ES256":
		r, s, err := ecdsa.Sign(rand.Reader, k.key, digest[:])
		must(t, err)
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return input + "." + b64(sig)
	case "HS256":
		m := hmac.New(sha256.New, k.jwks)
		m.Write([]byte(input))
		return input + "." + b64(m.Sum(nil))
	}
	return input + "."
}

// goodClaims are claims the server accepts, as of now.
func goodClaims() map[string]any {
	now := time.Now().Unix()
	return map[string]any{"iss": tokenIssuer, "aud": tokenAudience, "sub": "user-1", "exp": now + 600, "iat": now, "nbf": now - 10, "scope": "pets:read"}
}

func es256() map[string]any { return map[string]any{"alg": "ES256", "kid": "k1", "typ": "JWT"} }

// with returns m with k set to v (v nil: deleted).
func with(m map[string]any, kv ...any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

func TestHostileTokens(t *testing.T) {
	root := testenv.RepoRoot(t)
	bins := buildPetstore(t, root)
	backend := startBackend(t, bins)
	k := newJWTKey(t)
	jwksFile := filepath.Join(t.TempDir(), "jwks.json")
	must(t, os.WriteFile(jwksFile, k.jwks, 0o600))
	t.Run("no audience refuses to start", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bins.server, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backend,
			"--auth-jwks", jwksFile, "--auth-issuer", tokenIssuer).CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "--auth-audience") {
			t.Fatalf("--auth-jwks without --auth-audience: %v, want exit 1 naming --auth-audience:\n%s", err, out)
		}
	})
	s := startHostile(t, bins, backend, "--auth-jwks", jwksFile, "--auth-issuer", tokenIssuer, "--auth-audience", tokenAudience)
	now := time.Now().Unix()
	cases := []struct {
		name   string
		token  string
		reason string // in error_description; "": accepted, "-": any 401
	}{
		{"valid", k.sign(t, es256(), goodClaims()), ""},
		{"audience list", k.sign(t, es256(), with(goodClaims(), "aud", []string{"other", tokenAudience})), ""},
		{"wrong audience", k.sign(t, es256(), with(goodClaims(), "aud", "https://other.example.com")), "another audience"},
		{"no audience", k.sign(t, es256(), with(goodClaims(), "aud", nil)), "another audience"},
		{"wrong issuer", k.sign(t, es256(), with(goodClaims(), "iss", "https://evil.example")), "another issuer"},
		{"alg none", k.sign(t, with(es256(), "alg", "none"), goodClaims()), "algorithm"},
		{"HS256 keyed with the public key", k.sign(t, with(es256(), "alg", "HS256"), goodClaims()), "algorithm"},
		{"string exp", k.sign(t, es256(), with(goodClaims(), "exp", "9999999999")), "exp claim is not a number"},
		{"string nbf", k.sign(t, es256(), with(goodClaims(), "nbf", "0")), "nbf claim is not a number"},
		{"string iat", k.sign(t, es256(), with(goodClaims(), "iat", "now")), "iat claim is not a number"},
		{"crit header", k.sign(t, with(es256(), "crit", []string{"exp"}), goodClaims()), "crit"},
		{"expired", k.sign(t, es256(), with(goodClaims(), "exp", now-3600)), "expired"},
		{"future nbf", k.sign(t, es256(), with(goodClaims(), "nbf", now+3600)), "not valid yet"},
		{"no exp", k.sign(t, es256(), with(goodClaims(), "exp", nil)), "no exp"},
		{"bad signature", k.sign(t, es256(), goodClaims())[:10] + "x" + k.sign(t, es256(), goodClaims())[11:], "-"},
		{"not a JWT", "not-a-token-at-all-0123456789", "not known"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := mcpHeaders()
			h.Set("Authorization", "Bearer "+c.token)
			status, body, hdr := post(t, s.endpoint, h, listTools)
			if c.reason == "" {
				if status != http.StatusOK {
					t.Fatalf("status %d, want 200: %s %s", status, hdr.Get("WWW-Authenticate"), truncate(string(body), 200))
				}
				return
			}
			ch := hdr.Get("WWW-Authenticate")
			if status != http.StatusUnauthorized || !strings.Contains(ch, `error="invalid_token"`) || (c.reason != "-" && !strings.Contains(ch, c.reason)) {
				t.Fatalf("status %d, challenge %q; want 401 naming %q", status, ch, c.reason)
			}
		})
	}
	t.Run("unauthenticated body is not read", func(t *testing.T) {
		// Headers with a bad token and a 100,000-byte body that never
		// comes: 401 at once and the connection closed.
		for i := 0; i < 50; i++ {
			c := dial(t, s.host)
			defer c.Close()
			start := time.Now()
			if _, err := c.Write([]byte(postHead(s.host, 100000, "Authorization: Bearer not-a-token-at-all-0123456789") + "{")); err != nil {
				t.Fatal(err)
			}
			closed, status := closedWithin(c, 2*time.Second)
			if !closed || !strings.HasPrefix(status, "HTTP/1.1 401") || time.Since(start) > 1500*time.Millisecond {
				t.Fatalf("bad token with a stalled body: closed %v, status %q after %s; want 401 and close at once", closed, status, time.Since(start))
			}
		}
	})
	h := mcpHeaders()
	h.Set("Authorization", "Bearer "+k.sign(t, es256(), goodClaims()))
	if status, body, _ := post(t, s.endpoint, h, listTools); status != 200 {
		t.Fatalf("after the hostile tokens, a valid one gets %d: %s", status, truncate(string(body), 200))
	}
	t.Run("insecure any audience", func(t *testing.T) {
		any := startHostile(t, bins, backend, "--auth-jwks", jwksFile, "--auth-issuer", tokenIssuer, "--auth-insecure-any-audience")
		h := mcpHeaders()
		h.Set("Authorization", "Bearer "+k.sign(t, es256(), with(goodClaims(), "aud", nil)))
		if status, body, _ := post(t, any.endpoint, h, listTools); status != 200 {
			t.Fatalf("--auth-insecure-any-audience refuses a token without aud: %d %s", status, truncate(string(body), 200))
		}
	})
}
