package mapping

import (
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// securitySchemes maps the spec's schemes onto the kinds the runtime can
// apply, each with the environment variables that hold its credential:
// PREFIX_SCHEME for keys and tokens, PREFIX_SCHEME_USERNAME and
// PREFIX_SCHEME_PASSWORD for basic auth. OAuth2 and OpenID Connect take
// a ready access token as a bearer token. Mutual TLS is not supported.
func securitySchemes(doc *load.Document, prefix string) map[string]ir.SecurityScheme {
	out := map[string]ir.SecurityScheme{}
	for name, s := range doc.SecuritySchemes {
		env := prefix + "_" + envName(name)
		desc := oa2mcpimpl.PlainText(s.Description)
		switch {
		case s.Type == "apiKey" && s.ParamName != "":
			out[name] = ir.SecurityScheme{Name: name, Kind: runtime.APIKey, In: s.In, ParamName: s.ParamName, EnvVar: env, Description: desc}
		case s.Type == "http" && strings.EqualFold(s.Scheme, "basic"):
			out[name] = ir.SecurityScheme{Name: name, Kind: runtime.Basic, EnvVar: env + "_USERNAME", PasswordEnv: env + "_PASSWORD", Description: desc}
		case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"), s.Type == "oauth2", s.Type == "openIdConnect":
			if !strings.HasSuffix(env, "_TOKEN") {
				env += "_TOKEN"
			}
			out[name] = ir.SecurityScheme{Name: name, Kind: runtime.Bearer, EnvVar: env, Description: desc}
		}
	}
	return out
}

// supportedSecurity keeps the requirement alternatives whose schemes the
// runtime can apply; an empty alternative (no auth) is kept as it is.
func supportedSecurity(reqs [][]string, schemes map[string]ir.SecurityScheme) [][]string {
	var out [][]string
	for _, alt := range reqs {
		ok := true
		for _, name := range alt {
			if _, known := schemes[name]; !known {
				ok = false
			}
		}
		if ok {
			out = append(out, sortedUnique(alt))
		}
	}
	return out
}

// skipParam reports whether a declared parameter is left out of the
// tool's input: headers the runtime sets itself, and parameters that
// carry a credential, which come from the environment, never the model.
func skipParam(p *load.Parameter, security [][]string, schemes map[string]ir.SecurityScheme) bool {
	if p.In == "header" && ignoredHeaders[strings.ToLower(p.Name)] {
		return true
	}
	for _, alt := range security {
		for _, name := range alt {
			s := schemes[name]
			if s.Kind == runtime.APIKey && s.In == p.In && strings.EqualFold(s.ParamName, p.Name) {
				return true
			}
		}
	}
	return false
}
