package load

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// extPrefix marks the extensions oa2mcp reads from a spec.
const extPrefix = "x-oa2mcp-"

// convert turns the loaded kin-openapi document into a Document.
func (l *loader) convert(t *openapi3.T) *Document {
	if l.swagger {
		l.indexV2Positions()
	}
	d := &Document{
		File:            l.path,
		Version:         l.version,
		SecuritySchemes: map[string]*SecurityScheme{},
		Schemas:         map[string]*Schema{},
		Tags:            map[string]string{},
		Extensions:      oa2mcpExtensions(t.Extensions),
	}
	if t.Info != nil {
		d.Title, d.Description, d.APIVersion = t.Info.Title, t.Info.Description, t.Info.Version
	}
	d.Servers = l.servers(t.Servers)
	d.TagDetails = tagDetails(t.Tags)
	for _, tag := range d.TagDetails {
		d.Tags[tag.Name] = firstNonEmpty(tag.Description, tag.Summary)
	}
	d.Self = extString(t.Extensions, "$self")
	if t.Components != nil {
		for name, ref := range t.Components.SecuritySchemes {
			if ref != nil && ref.Value != nil {
				d.SecuritySchemes[name] = securityScheme(name, ref.Value)
			}
		}
	}
	if t.Security != nil {
		d.Security = securityRequirements(t.Security)
		d.SecurityScopes = securityScopes(t.Security)
	}
	sc := newSchemaConverter(d)
	d.Operations = l.operations(t, sc)
	l.resolvePositions()
	l.checkOperations(d.Operations)
	return d
}

// oa2mcpExtensions keeps the x-oa2mcp-* extensions, without the prefix.
func oa2mcpExtensions(ext map[string]any) map[string]any {
	var out map[string]any
	for k, v := range ext {
		if name, ok := strings.CutPrefix(k, extPrefix); ok && name != "" {
			if out == nil {
				out = map[string]any{}
			}
			out[name] = v
		}
	}
	return out
}

var serverVarRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([^{}]+)\}`) })

// servers substitutes variable defaults; for Swagger 2.0 (converted to one
// server per scheme) https is put first.
func (l *loader) servers(servers openapi3.Servers) []string {
	var out []string
	for _, s := range servers {
		if s == nil {
			continue
		}
		u := serverVarRe().ReplaceAllStringFunc(s.URL, func(m string) string {
			if v, ok := s.Variables[m[1:len(m)-1]]; ok && v != nil {
				return v.Default
			}
			return m
		})
		out = append(out, u)
	}
	if l.swagger {
		sort.SliceStable(out, func(i, j int) bool {
			return strings.HasPrefix(out[i], "https:") && !strings.HasPrefix(out[j], "https:")
		})
	}
	return out
}

func securityScheme(name string, s *openapi3.SecurityScheme) *SecurityScheme {
	out := &SecurityScheme{
		Name:        name,
		Type:        s.Type,
		Scheme:      strings.ToLower(s.Scheme),
		In:          s.In,
		ParamName:   s.Name,
		Description: s.Description,
	}
	if s.Flows != nil && s.Flows.AuthorizationCode != nil {
		out.AuthorizationURL = s.Flows.AuthorizationCode.AuthorizationURL
		out.TokenURL = s.Flows.AuthorizationCode.TokenURL
	}
	return out
}

// securityScopes collects the scopes each scheme is required with, over
// all alternatives, sorted and without duplicates; nil when none.
func securityScopes(reqs openapi3.SecurityRequirements) map[string][]string {
	var out map[string][]string
	for _, r := range reqs {
		for name, scopes := range r {
			for _, sc := range scopes {
				if out == nil {
					out = map[string][]string{}
				}
				if !slices.Contains(out[name], sc) {
					out[name] = append(out[name], sc)
				}
			}
		}
	}
	for _, v := range out {
		sort.Strings(v)
	}
	return out
}

// securityRequirements converts alternatives of scheme sets, each set
// sorted so that map order does not leak.
func securityRequirements(reqs openapi3.SecurityRequirements) [][]string {
	out := make([][]string, 0, len(reqs))
	for _, r := range reqs {
		names := make([]string, 0, len(r))
		for name := range r {
			names = append(names, name)
		}
		sort.Strings(names)
		out = append(out, names)
	}
	return out
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
