package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// applyUpstreamAuth gives the schemes named in server.upstream_auth their
// mode: per_user and exchange schemes take their token per caller, so
// they lose the environment token and gain the OAuth client's variables
// (PREFIX_SCHEME_CLIENT_ID, PREFIX_SCHEME_CLIENT_SECRET, the scheme
// spelled as for every credential variable) and endpoints, from the
// override or the scheme's authorization code flow.
func applyUpstreamAuth(doc *load.Document, ov *overrides.File, schemes map[string]ir.SecurityScheme, prefix string, problems *diag.List) {
	if ov == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(ov.Server.UpstreamAuth)) {
		a, at := ov.Server.UpstreamAuth[name], ov.Pos("server.upstream_auth."+name)
		if a == nil {
			continue
		}
		spec, known := doc.SecuritySchemes[name]
		if !known {
			problems.Errorf(at, "name an entry of components.securitySchemes: "+strings.Join(oauthSchemeNames(doc), ", "), "upstream_auth names %q, which is not a security scheme of the spec", name)
			continue
		}
		if spec.Type != "oauth2" && spec.Type != "openIdConnect" {
			problems.Errorf(at, "remove it: only oauth2 and openIdConnect schemes have per-user tokens", "upstream_auth.%s: the scheme is of type %s, not oauth2 or openIdConnect", name, describeType(spec))
			continue
		}
		if a.Mode == "" || a.Mode == runtime.ModeService {
			continue
		}
		ua := &runtime.UpstreamAuth{Mode: a.Mode, AuthorizationURL: a.AuthorizationURL, TokenURL: a.TokenURL,
			Scopes: sortedUnique(a.Scopes), Audience: a.Audience, Resource: a.Resource}
		env := prefix + "_" + envName(name)
		ua.ClientIDEnv, ua.ClientSecretEnv = env+"_CLIENT_ID", env+"_CLIENT_SECRET"
		if a.Mode == runtime.ModePerUser && !endpointsFromFlow(ua, spec, name, at, problems) {
			continue
		}
		s := schemes[name]
		s.EnvVar = ""
		s.UpstreamAuth = ua
		schemes[name] = s
	}
}

// endpointsFromFlow completes a per_user scheme's endpoints from the
// spec's authorization code flow; false (reported) when one is missing.
func endpointsFromFlow(ua *runtime.UpstreamAuth, spec *load.SecurityScheme, name string, at diag.Position, problems *diag.List) bool {
	if ua.AuthorizationURL == "" {
		ua.AuthorizationURL = spec.AuthorizationURL
	}
	if ua.TokenURL == "" {
		ua.TokenURL = spec.TokenURL
	}
	var missing []string
	if ua.AuthorizationURL == "" {
		missing = append(missing, "authorization_url")
	}
	if ua.TokenURL == "" {
		missing = append(missing, "token_url")
	}
	if len(missing) == 0 {
		return true
	}
	why := "its flows declare no authorizationCode flow"
	if spec.Type == "openIdConnect" {
		why = "the discovery document of an openIdConnect scheme is not fetched at generation"
	}
	problems.Errorf(at, "add "+strings.Join(missing, " and ")+" to upstream_auth."+name, "upstream_auth.%s in mode per_user needs the authorization server's endpoints, and %s", name, why)
	return false
}

func describeType(s *load.SecurityScheme) string {
	if s.Type == "http" && s.Scheme != "" {
		return "http " + s.Scheme
	}
	return s.Type
}

func oauthSchemeNames(doc *load.Document) []string {
	var names []string
	for name, s := range doc.SecuritySchemes {
		if s.Type == "oauth2" || s.Type == "openIdConnect" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return []string{"(the spec has no oauth2 or openIdConnect scheme)"}
	}
	return names
}

// perUserScopes lists the scopes an operation's requirement declares for
// each per_user scheme it uses, sorted by scheme.
func perUserScopes(declared map[string][]string, security [][]string, schemes map[string]ir.SecurityScheme) []runtime.SchemeScopes {
	var out []runtime.SchemeScopes
	var seen []string
	for _, alt := range security {
		for _, name := range alt {
			ua := schemes[name].UpstreamAuth
			if ua == nil || ua.Mode != runtime.ModePerUser || slices.Contains(seen, name) || len(declared[name]) == 0 {
				continue
			}
			seen = append(seen, name)
			out = append(out, runtime.SchemeScopes{Scheme: name, Scopes: append([]string(nil), declared[name]...)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scheme < out[j].Scheme })
	return out
}

// disconnectTool is the built-in tool that forgets the caller's per_user
// tokens; nil when no scheme is per_user. A tool of the same name is an
// error.
func disconnectTool(srv *ir.Server, tools []ir.Tool, prefix string, at diag.Position, problems *diag.List) *ir.Tool {
	var names []string
	for _, s := range srv.Security {
		if s.UpstreamAuth != nil && s.UpstreamAuth.Mode == runtime.ModePerUser {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	name := "disconnect_account"
	if prefix != "" {
		name = SnakeCase(prefix) + "_" + name
	}
	for _, t := range tools {
		if t.Name == name {
			problems.Errorf(t.Pos, "rename the tool: "+name+" is the built-in tool that disconnects a caller's upstream account", "tool name %q is reserved", name)
		}
	}
	schema := map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"scheme": map[string]any{"type": "string", "enum": names,
			"description": "The account to disconnect (a security scheme of the API); leave it out to disconnect every account."},
	}}
	b, _ := json.Marshal(schema)
	t := &ir.Tool{Pos: at, Doc: []string{"is the built-in tool that deletes the caller's stored upstream tokens."}}
	t.Name = name
	t.Title = "Disconnect your account"
	t.Description = fmt.Sprintf("Disconnects your own account at the API from this server: deletes the access and refresh tokens this server stored for you (accounts: %s). Afterwards, tools that act as you ask you to connect again. Use it when the user asks to sign out, switch accounts or revoke this server's access.", strings.Join(names, ", "))
	t.InputSchema = string(b)
	t.Destructive, t.Idempotent = true, true
	t.DisconnectsAccount = true
	return t
}
