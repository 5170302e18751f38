package main

import (
	"fmt"
	"strings"

	"github.com/zitadel/oidc/v3/example/server/storage"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// clientFlags collects the --client flags.
type clientFlags struct {
	registered []*storage.Client
	text       []string
}

func (c *clientFlags) String() string { return strings.Join(c.text, " ") }

// Set parses ID:SECRET:REDIRECT[,REDIRECT...]; the redirect URIs keep
// their own colons because only the first two separate fields.
func (c *clientFlags) Set(v string) error {
	parts := strings.SplitN(v, ":", 3)
	if len(parts) != 3 || parts[0] == "" {
		return fmt.Errorf("%q: want ID:SECRET:REDIRECT[,REDIRECT...] (SECRET empty for a public client)", v)
	}
	redirects := splitList(parts[2])
	if parts[1] == "" {
		c.registered = append(c.registered, storage.NativeClient(parts[0], redirects...))
	} else {
		c.registered = append(c.registered, storage.WebClient(parts[0], parts[1], redirects...))
	}
	c.text = append(c.text, v)
	return nil
}

// fixtureClient is a registered client that gets JWT access tokens and
// may ask for any scope: the example's clients get opaque tokens and only
// its one custom scope, and an upstream that verifies tokens offline
// needs JWTs with the API's own scopes in them.
type fixtureClient struct{ op.Client }

func (fixtureClient) AccessTokenType() op.AccessTokenType { return op.AccessTokenTypeJWT }

func (fixtureClient) IsScopeAllowed(string) bool { return true }

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
