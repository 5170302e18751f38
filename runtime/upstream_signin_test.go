package runtime

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSignInIDTokenChecked: the caller check accepts an ID token only
// when every part of it holds. Seeded random tokens get each of
// signature, algorithm, issuer, audience, expiry, nonce and subject
// right or wrong at random; the check must return the subject exactly
// when all are right, and never a subject otherwise.
func TestSignInIDTokenChecked(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	now := time.Unix(1_800_000_000, 0)
	a, err := newAuthenticator(&AuthOptions{JWKS: jwksFile(t, key), Issuer: "https://id.example.com", Audience: "https://mcp.example.com/mcp"}, "test", func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	c := &signInCheck{issuer: a.issuer, auth: a, client: oauthClient{id: "notes-signin"}}
	parts := []string{"signature", "alg", "iss", "aud", "exp", "nonce", "sub"}
	accepted, refused := 0, 0
	for seed := uint64(1); seed <= 400; seed++ {
		r := mrand.New(mrand.NewPCG(seed, 17))
		wrong := map[string]bool{}
		for _, p := range parts {
			wrong[p] = r.IntN(4) == 0
		}
		claims := map[string]any{"iss": "https://id.example.com", "aud": []string{"notes-signin"}, "exp": now.Add(time.Minute).Unix(),
			"iat": now.Unix(), "nonce": "nonce-of-this-sign-in", "sub": "bob"}
		if wrong["iss"] {
			claims["iss"] = "https://evil.example.com"
		}
		if wrong["aud"] {
			claims["aud"] = []string{"https://mcp.example.com/mcp"} // an MCP access token is no ID token of the client
		}
		if wrong["exp"] {
			claims["exp"] = now.Add(-5 * time.Minute).Unix()
		}
		if wrong["nonce"] {
			claims["nonce"] = []string{"", "nonce-of-another-sign-in"}[r.IntN(2)]
		}
		if wrong["sub"] {
			delete(claims, "sub")
		}
		signer, alg := key, "ES256"
		if wrong["signature"] {
			signer = other
		}
		if wrong["alg"] {
			alg = "none"
		}
		token := es256JWT(t, signer, alg, claims)
		sub, err := c.subject(context.Background(), token, "nonce-of-this-sign-in")
		allRight := true
		for _, p := range parts {
			allRight = allRight && !wrong[p]
		}
		switch {
		case allRight && (err != nil || sub != "bob"):
			t.Fatalf("seed %d: a valid ID token was refused: %v", seed, err)
		case !allRight && err == nil:
			t.Fatalf("seed %d: an ID token with %v wrong was accepted as %q", seed, wrong, sub)
		case allRight:
			accepted++
		default:
			refused++
		}
	}
	if accepted < 20 || refused < 200 {
		t.Fatalf("the random tokens did not exercise both verdicts: %d accepted, %d refused", accepted, refused)
	}
	if _, err := c.subject(context.Background(), "", "n"); err == nil || !strings.Contains(err.Error(), "no ID token") {
		t.Errorf("a token answer without an ID token: %v", err)
	}
}

// jwksFile writes the public key as a JWKS file (kid k1).
func jwksFile(t *testing.T, k *ecdsa.PrivateKey) string {
	t.Helper()
	x, y := make([]byte, 32), make([]byte, 32)
	k.X.FillBytes(x)
	k.Y.FillBytes(y)
	b64 := base64.RawURLEncoding.EncodeToString
	path := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(`{"keys":[{"kty":"EC","kid":"k1","crv":"P-256","x":%q,"y":%q}]}`, b64(x), b64(y))), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// es256JWT signs claims with k (header alg as given, kid k1).
func es256JWT(t *testing.T, k *ecdsa.PrivateKey, alg string, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(map[string]string{"alg": alg, "kid": "k1", "typ": "JWT"})
	p, _ := json.Marshal(claims)
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64(h) + "." + b64(p)
	digest := sha256.Sum256([]byte(input))
	rr, ss, err := ecdsa.Sign(rand.Reader, k, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := make([]byte, 64)
	rr.FillBytes(sig[:32])
	ss.FillBytes(sig[32:])
	return input + "." + b64(sig)
}
