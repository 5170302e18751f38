package emit

import (
	"fmt"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// upstreamAuthDocs documents the variables of per_user and exchange
// schemes: each scheme's OAuth client, the token key, and (per_user) the
// public URL the redirect URI is made of.
func upstreamAuthDocs(srv *ir.Server) []docCredential {
	var out []docCredential
	perUser, some := false, false
	for _, s := range srv.Security {
		ua := s.UpstreamAuth
		if ua == nil {
			continue
		}
		some = true
		perUser = perUser || ua.Mode == runtime.ModePerUser
		what := "callers connect their own accounts"
		if ua.Mode == runtime.ModeExchange {
			what = "callers' access tokens are exchanged (RFC 8693) at " + ua.TokenURL
		}
		out = append(out,
			docCredential{Env: ua.ClientIDEnv, Meaning: fmt.Sprintf("OAuth client id registered for scheme %s (mode %s: %s); required", s.Name, ua.Mode, what), Short: "OAuth client id for scheme " + s.Name},
			docCredential{Env: ua.ClientSecretEnv, Meaning: fmt.Sprintf("OAuth client secret for scheme %s; leave unset for a public client", s.Name), Short: "OAuth client secret for scheme " + s.Name})
	}
	if !some {
		return nil
	}
	out = append(out, docCredential{Env: srv.EnvPrefix + "_TOKEN_KEY", Meaning: "base64 of 32 random bytes (`openssl rand -base64 32`), the same on every replica: callers' upstream tokens are stored AES-256-GCM encrypted with it; required", Short: "key that encrypts callers' stored upstream tokens (base64 of 32 bytes)"})
	if perUser {
		out = append(out, docCredential{Env: srv.EnvPrefix + "_PUBLIC_URL", Meaning: "this server's external base URL, e.g. `https://mcp.example.com`; register `$" + srv.EnvPrefix + "_PUBLIC_URL/oauth2/callback` as the client's redirect URI (served on the HTTP listener); required", Short: "external base URL; the redirect URI is PUBLIC_URL/oauth2/callback"},
			docCredential{Env: srv.EnvPrefix + "_SIGNIN_CLIENT_ID", Meaning: "OpenID Connect client at the MCP authorization server (`--auth-issuer`), redirect URI `$" + srv.EnvPrefix + "_PUBLIC_URL/oauth2/signed-in`: whoever opens a connect link signs in there first and must be the caller it was made for, so a forwarded link connects nobody's account; recommended (the server warns at start without it)", Short: "client that checks who opens a connect link"},
			docCredential{Env: srv.EnvPrefix + "_SIGNIN_CLIENT_SECRET", Meaning: "its client secret; leave unset for a public client", Short: "secret of the sign-in check's client"})
	}
	return out
}
