package runtime

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The token vault keeps the upstream tokens of per_user and exchange
// schemes in the handle store (memory or Redis), sealed with AES-256-GCM
// under $PREFIX_TOKEN_KEY. A record's key is an HMAC of (caller subject,
// scheme) under a key derived from the same secret, so the store names no
// caller, and the key is the AEAD's associated data, so a sealed token
// copied under another caller's key does not open.

// tokenRecordType marks vault records in the store.
const tokenRecordType = "oa2mcp-upstream-token"

// errVaultSealed: a record did not open (another key, altered bytes).
var errVaultSealed = errors.New("stored token does not open with this server's token key")

// tokenVault seals, indexes and stores upstream tokens.
type tokenVault struct {
	store HandleStore
	ns    string
	aead  cipher.AEAD
	index []byte // HMAC key of record keys
	now   func() time.Time
}

// storedToken is what the vault keeps for one caller and scheme.
type storedToken struct {
	Access  string `json:"a"`
	Refresh string `json:"r,omitempty"`
	// Expires is the access token's expiry (Unix seconds); 0: unknown.
	Expires int64 `json:"e,omitempty"`
	// Scopes are the scopes granted (or asked, when the server did not
	// say), sorted.
	Scopes []string `json:"s,omitempty"`
}

// parseTokenKey decodes $PREFIX_TOKEN_KEY: base64 (standard or URL, with
// or without padding) of exactly 32 bytes.
func parseTokenKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(text); err == nil {
			if len(k) != 32 {
				return nil, fmt.Errorf("it decodes to %d bytes, not 32; make one with `openssl rand -base64 32`", len(k))
			}
			return k, nil
		}
	}
	return nil, errors.New("it is not base64; make one with `openssl rand -base64 32`")
}

func newTokenVault(key []byte, store HandleStore, ns string, now func() time.Time) (*tokenVault, error) {
	block, err := aes.NewCipher(derive(key, "oa2mcp-token-seal"))
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &tokenVault{store: store, ns: ns, aead: aead, index: derive(key, "oa2mcp-token-index"), now: now}, nil
}

// derive makes an independent 32-byte key for one purpose.
func derive(key []byte, purpose string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// key is the store key of kind ("ut" a per_user token, "ux" an exchanged
// one, "uf" a flow, "us" a state) for the given parts: an HMAC, so a
// caller's subject never appears in the store.
func (v *tokenVault) key(kind string, parts ...string) string {
	m := hmac.New(sha256.New, v.index)
	m.Write([]byte(kind))
	for _, p := range parts {
		m.Write([]byte{0})
		m.Write([]byte(p))
	}
	return v.ns + kind + ":" + hex.EncodeToString(m.Sum(nil)[:20])
}

// put seals value (any JSON-encodable) under key for ttl.
func (v *tokenVault) put(ctx context.Context, key string, value any, ttl time.Duration) error {
	plain, err := json.Marshal(value)
	if err != nil {
		return err
	}
	nonce := make([]byte, v.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return err
	}
	sealed := v.aead.Seal(nonce, nonce, plain, []byte(key))
	blob, _ := json.Marshal(base64.RawStdEncoding.EncodeToString(sealed))
	return v.store.Put(ctx, key, HandleRecord{Type: tokenRecordType, Value: blob, Expires: v.now().Add(ttl).UnixMilli()}, ttl)
}

// get opens the record under key into out; false when there is none.
// A record that does not open is errVaultSealed: the caller treats it as
// absent (fails closed) and says so in the log.
func (v *tokenVault) get(ctx context.Context, key string, out any) (bool, error) {
	rec, ok, err := v.store.Get(ctx, key)
	if err != nil || !ok {
		return false, err
	}
	if rec.Type != tokenRecordType || (rec.Expires != 0 && v.now().UnixMilli() > rec.Expires) {
		return false, nil
	}
	var text string
	if json.Unmarshal(rec.Value, &text) != nil {
		return false, errVaultSealed
	}
	sealed, err := base64.RawStdEncoding.DecodeString(text)
	n := v.aead.NonceSize()
	if err != nil || len(sealed) < n {
		return false, errVaultSealed
	}
	plain, err := v.aead.Open(nil, sealed[:n], sealed[n:], []byte(key))
	if err != nil {
		return false, errVaultSealed
	}
	if json.Unmarshal(plain, out) != nil {
		return false, errVaultSealed
	}
	return true, nil
}

func (v *tokenVault) delete(ctx context.Context, key string) error {
	return v.store.Delete(ctx, key)
}

// tokenKey is the record key of a per_user token.
func (v *tokenVault) tokenKey(subject, scheme string) string {
	return v.key("ut", subject, scheme)
}

// exchangeKey is the cache key of an exchanged token: bound to the
// subject token too, so a new MCP token (or a revoked one's successor)
// never reuses another token's exchange.
func (v *tokenVault) exchangeKey(subject, scheme, subjectToken string) string {
	sum := sha256.Sum256([]byte(subjectToken))
	return v.key("ux", subject, scheme, hex.EncodeToString(sum[:]))
}

// randomToken is 32 random bytes, base64url: states, flow ids, PKCE
// verifiers.
func randomToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
