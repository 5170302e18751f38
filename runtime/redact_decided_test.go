package runtime

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestSensitiveDecisionsBounded asks a sensitive set about random
// argument names, secret, personal, listed, patterned and made up, some
// very long, in random order and again: every answer is the rule's own
// (decide), and the decisions kept stay within 256 names of at most 64
// bytes whatever a caller sends.
func TestSensitiveDecisionsBounded(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	ss := newSensitiveSet(nil, []string{"x_internal", "tmp_*"})
	words := []string{"password", "api", "key", "token", "email", "phone", "name", "id", "pet", "x", "internal", "tmp", "status", "secret", "passphrase"}
	name := func() string {
		var parts []string
		for range 1 + r.IntN(3) {
			parts = append(parts, words[r.IntN(len(words))])
		}
		n := strings.Join(parts, []string{"_", "", "-"}[r.IntN(3)])
		if r.IntN(6) == 0 {
			n += strings.Repeat("a", 60+r.IntN(2000))
		}
		if r.IntN(4) == 0 {
			n += string(rune('a' + r.IntN(26)))
		}
		return n
	}
	var asked []string
	for i := range 3000 {
		n := name()
		if i%3 == 0 && len(asked) > 0 {
			n = asked[r.IntN(len(asked))]
		}
		asked = append(asked, n)
		if got, want := ss.is(n), ss.decide(n); got != want {
			t.Fatalf("seed %d: is(%q) = %v, the rule says %v", seed, n, got, want)
		}
	}
	kept := 0
	ss.decided.Range(func(k, _ any) bool {
		kept++
		if n := k.(string); len(n) > maxDecidedName {
			t.Errorf("seed %d: a decision for a name of %d bytes is kept", seed, len(n))
		}
		return true
	})
	if kept > maxDecidedNames {
		t.Errorf("seed %d: %d decisions kept, above %d", seed, kept, maxDecidedNames)
	}
	if kept == 0 {
		t.Errorf("seed %d: no decision kept", seed)
	}
}
