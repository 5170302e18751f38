package generator_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// upstreamAuthSpec has one scheme of every kind upstream_auth meets.
const upstreamAuthSpec = `openapi: 3.0.3
info: {title: Accounts, version: "1"}
servers: [{url: "https://api.example.com"}]
components:
  securitySchemes:
    code_oauth:
      type: oauth2
      flows:
        authorizationCode: {authorizationUrl: "https://auth.example.com/authorize", tokenUrl: "https://auth.example.com/token", scopes: {read: Read, write: Write}}
    cc_oauth:
      type: oauth2
      flows:
        clientCredentials: {tokenUrl: "https://auth.example.com/token", scopes: {read: Read}}
    oidc:
      type: openIdConnect
      openIdConnectUrl: "https://auth.example.com/.well-known/openid-configuration"
    key:
      type: apiKey
      in: header
      name: X-Key
paths:
  /a:
    get:
      operationId: getA
      security: [{code_oauth: [read]}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}}}
  /b:
    post:
      operationId: postB
      security: [{cc_oauth: [read]}, {oidc: []}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}}}
  /c:
    get:
      operationId: getC
      security: [{key: []}]
      responses: {"200": {description: ok, content: {application/json: {schema: {type: object, properties: {id: {type: string}}}}}}}
`

// authBlock is one random upstream_auth entry and whether the rules
// (written here independently of the code) accept it.
type authBlock struct {
	scheme string
	keys   [][2]string // key, YAML value
	valid  bool
	mode   string
}

var (
	goodURLs = []string{"https://auth.example.com/x", "http://127.0.0.1:9000/token", "http://localhost/authorize"}
	badURLs  = []string{"/relative", "http://auth.example.com/token", "ftp://auth.example.com/", "https://user:pw@auth.example.com/", "https://auth.example.com/#frag", "not a url"}
)

func randomAuthBlock(r *rand.Rand) authBlock {
	b := authBlock{scheme: []string{"code_oauth", "code_oauth", "code_oauth", "cc_oauth", "oidc", "key", "nosuch"}[r.IntN(7)], valid: true}
	b.mode = []string{"", "service", "per_user", "per_user", "per_user", "exchange", "exchange", "bogus"}[r.IntN(8)]
	if b.mode != "" {
		b.keys = append(b.keys, [2]string{"mode", b.mode})
	}
	mode := b.mode
	if mode == "" {
		mode = "service"
	}
	if mode == "bogus" {
		b.valid = false
	}
	if b.scheme == "key" || b.scheme == "nosuch" {
		b.valid = false
	}
	url := func() (string, bool) {
		if r.IntN(6) == 0 {
			return badURLs[r.IntN(len(badURLs))], false
		}
		return goodURLs[r.IntN(len(goodURLs))], true
	}
	hasAuthz, hasToken := false, false
	for _, key := range []string{"authorization_url", "token_url", "resource"} {
		if r.IntN(3) != 0 && !(mode == "exchange" && key == "token_url") {
			continue
		}
		u, ok := url()
		b.keys = append(b.keys, [2]string{key, fmt.Sprintf("%q", u)})
		b.valid = b.valid && ok
		allowed := map[string]string{"authorization_url": "per_user", "token_url": "per_user exchange", "resource": "exchange"}[key]
		if mode != "bogus" && !strings.Contains(allowed, mode) {
			b.valid = false
		}
		hasAuthz = hasAuthz || key == "authorization_url"
		hasToken = hasToken || key == "token_url"
	}
	if r.IntN(4) == 0 {
		b.keys = append(b.keys, [2]string{"audience", `"https://api.example.com"`})
		if mode != "exchange" && mode != "bogus" {
			b.valid = false
		}
	}
	if r.IntN(4) == 0 {
		scope := []string{"offline_access", "read:all", "has space", `quo"te`}[r.IntN(4)]
		b.keys = append(b.keys, [2]string{"scopes", fmt.Sprintf("[%q]", scope)})
		if strings.ContainsAny(scope, ` "`) || (mode != "per_user" && mode != "bogus") {
			b.valid = false
		}
	}
	if mode == "exchange" && !hasToken {
		b.valid = false
	}
	// per_user takes missing endpoints from the authorization code flow,
	// which only code_oauth has.
	if mode == "per_user" && b.scheme != "code_oauth" && (!hasAuthz || !hasToken) {
		b.valid = false
	}
	return b
}

func (b authBlock) yaml() string {
	var s strings.Builder
	fmt.Fprintf(&s, "    %s:\n", b.scheme)
	if len(b.keys) == 0 {
		s.WriteString("      {}\n")
	}
	for _, kv := range b.keys {
		fmt.Fprintf(&s, "      %s: %s\n", kv[0], kv[1])
	}
	return s.String()
}

// TestRandomUpstreamAuthOverrides: random upstream_auth blocks, valid and
// invalid. A file the rules accept generates and its tools pass the
// proof (a per_user scheme brings disconnect_account and loses its
// environment token); any other gets errors at file:line:col of the
// override file and no files.
func TestRandomUpstreamAuthOverrides(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 24))
	dir := t.TempDir()
	specPath := filepath.Join(dir, "openapi.yaml")
	if err := os.WriteFile(specPath, []byte(upstreamAuthSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, problems := load.Load(context.Background(), specPath, load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems)
	}
	valid, invalid := 0, 0
	for i := 0; i < 150; i++ {
		var blocks []authBlock
		seen := map[string]bool{}
		for n := 1 + r.IntN(2)/max(1, r.IntN(3)); len(blocks) < n; {
			b := randomAuthBlock(r)
			if !seen[b.scheme] {
				seen[b.scheme] = true
				blocks = append(blocks, b)
			}
		}
		text := "version: 1\nselect: {unused: keep}\nserver:\n  upstream_auth:\n"
		want := true
		perUser := false
		for _, b := range blocks {
			text += b.yaml()
			want = want && b.valid
			perUser = perUser || (b.valid && b.mode == "per_user")
		}
		ovPath := filepath.Join(dir, "overrides.yaml")
		ov, ovProblems := overrides.Decode(ovPath, []byte(text))
		var res *generator.Result
		var more diag.List
		if !ovProblems.HasErrors() {
			res, more = generator.Generate(doc, generator.Config{Name: "accounts", ImportPath: "example.com/accounts", Overrides: ov})
		}
		all := append(ovProblems, more...)
		fail := func(msg string) {
			t.Fatalf("seed %d, case %d: %s\noverride file:\n%s\nproblems:\n%v", seed, i, msg, text, all)
		}
		if !want {
			invalid++
			if !all.HasErrors() || res != nil {
				fail("the rules refuse this file, and it generated")
			}
			for _, p := range all {
				if p.Severity == diag.Error && (p.Pos.File != ovPath || p.Pos.Line == 0 || p.Pos.Column == 0) {
					fail("an error without a position in the override file: " + p.String())
				}
			}
			continue
		}
		valid++
		if all.HasErrors() || res == nil {
			fail("the rules accept this file, and it did not generate")
		}
		hasDisconnect := false
		for _, tool := range res.Server.Tools {
			hasDisconnect = hasDisconnect || tool.DisconnectsAccount
		}
		if hasDisconnect != perUser {
			fail(fmt.Sprintf("disconnect_account present %v, want %v", hasDisconnect, perUser))
		}
		for _, s := range res.Server.Security {
			if ua := s.UpstreamAuth; ua != nil && (s.EnvVar != "" || ua.TokenURL == "" || (ua.Mode == runtime.ModePerUser && ua.AuthorizationURL == "")) {
				fail(fmt.Sprintf("scheme %s: %+v", s.Name, s))
			}
		}
	}
	if valid == 0 || invalid == 0 {
		t.Fatalf("seed %d: %d valid and %d invalid files: both kinds are needed", seed, valid, invalid)
	}
	t.Logf("%d valid and %d invalid files", valid, invalid)
}
