package runtime

import (
	"strings"
	"testing"
)

// TestStaticTokenClaims: a token entry and $PREFIX_STDIO_CALLER take
// CLAIM=VALUE fields beside the scopes; bindings read them as JWT claims.
func TestStaticTokenClaims(t *testing.T) {
	into := map[string]Caller{}
	if err := parseTokenLines(strings.NewReader("tok-0123456789abcdef alice items:read member_no=M-7 email=a@example.com\n"), into); err != nil {
		t.Fatal(err)
	}
	c := into["tok-0123456789abcdef"]
	got := c.AllClaims()
	if got["sub"] != "alice" || got["scope"] != "items:read" || got["member_no"] != "M-7" || got["email"] != "a@example.com" {
		t.Errorf("claims = %v", got)
	}
}
