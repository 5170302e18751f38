package ir

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// encodeByEncodingJSON is encode with encoding/json alone: the form the
// plain-value path is held to.
func encodeByEncodingJSON(v any, indent string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// TestJSONIsEncodingJSON: for seeded values (decoded schemas, and now and
// then what only reflection encodes or what cannot be encoded), JSON and
// CompactJSON give what encoding/json gives, errors included.
func TestJSONIsEncodingJSON(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	for i := range 5000 {
		v := randomValue(r, 4)
		for _, indent := range []string{"  ", ""} {
			got, gotErr := encode(v, indent)
			want, wantErr := encodeByEncodingJSON(v, indent)
			if got != want || (gotErr == nil) != (wantErr == nil) {
				t.Fatalf("seed %d case %d: encode(%#v, %q) = %q, %v; encoding/json gives %q, %v", seed, i, v, indent, got, gotErr, want, wantErr)
			}
		}
	}
}

// randomValue is a decoded-JSON-like value with hostile strings and
// numbers, empty and nil containers, and rarely a struct or an invalid
// number.
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(12); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return []string{"a", "é<&>", "\u2028\u2029", "\xff", "", "\"\\\n\t\x01"}[r.IntN(6)]
	case k == 3:
		return []json.Number{"12", "-0.5e3", "1e400", "", "x"}[r.IntN(5)]
	case k == 4:
		return []any{struct{ A int }{1}, []string{"x"}, map[string]any(nil), []any(nil), 3.5}[r.IntN(5)]
	case depth == 0 || k <= 6:
		return "s"
	case k <= 8:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomValue(r, depth-1)
		}
		return l
	}
	m := map[string]any{}
	for range r.IntN(4) {
		m[[]string{"type", "properties", "<b>", "\xfe", "é", ""}[r.IntN(6)]] = randomValue(r, depth-1)
	}
	return m
}
