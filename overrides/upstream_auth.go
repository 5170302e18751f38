package overrides

import (
	"net"
	"net/url"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// checkUpstreamAuth checks server.upstream_auth without the spec: known
// modes, keys that belong to the mode, absolute URLs and scope tokens.
// Whether each name is an OAuth scheme of the spec is the mapping's to
// check.
func (f *File) checkUpstreamAuth(l *diag.List) {
	names := make([]string, 0, len(f.Server.UpstreamAuth))
	for name := range f.Server.UpstreamAuth {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a, path := f.Server.UpstreamAuth[name], "server.upstream_auth."+name
		if a == nil {
			l.Errorf(f.Pos(path), "give mode: service, per_user or exchange", "upstream_auth.%s is empty", name)
			continue
		}
		f.checkUpstreamMode(a, name, path, l)
		for key, u := range map[string]string{"authorization_url": a.AuthorizationURL, "token_url": a.TokenURL, "resource": a.Resource} {
			if u != "" {
				if msg := endpointProblem(u); msg != "" {
					l.Errorf(f.Pos(path+"."+key), "give an absolute https URL (http only on localhost or a loopback address)", "upstream_auth.%s.%s %q %s", name, key, u, msg)
				}
			}
		}
		for i, sc := range a.Scopes {
			if !validScope(sc) {
				l.Errorf(f.Pos(path+".scopes"), "write each scope as one word without spaces or quotes, e.g. read:calendar", "upstream_auth.%s.scopes[%d] %q is not an OAuth scope", name, i, sc)
			}
		}
	}
}

// checkUpstreamMode checks the mode and the keys only some modes take.
func (f *File) checkUpstreamMode(a *UpstreamAuth, name, path string, l *diag.List) {
	mode := a.Mode
	switch mode {
	case "", runtime.ModeService, runtime.ModePerUser, runtime.ModeExchange:
	default:
		l.Errorf(f.Pos(path+".mode"), `use "service", "per_user" or "exchange"`, "unknown upstream_auth.%s.mode %q", name, mode)
		return
	}
	if mode == "" {
		mode = runtime.ModeService
	}
	only := func(key, value, modes string) {
		if value != "" && !strings.Contains(modes, mode) {
			l.Errorf(f.Pos(path+"."+key), "remove it, or set mode: "+strings.ReplaceAll(modes, " ", " or "), "upstream_auth.%s.%s has no meaning in mode %s", name, key, mode)
		}
	}
	only("authorization_url", a.AuthorizationURL, runtime.ModePerUser)
	only("token_url", a.TokenURL, runtime.ModePerUser+" "+runtime.ModeExchange)
	only("audience", a.Audience, runtime.ModeExchange)
	only("resource", a.Resource, runtime.ModeExchange)
	if len(a.Scopes) > 0 && mode != runtime.ModePerUser {
		l.Errorf(f.Pos(path+".scopes"), "remove it, or set mode: per_user", "upstream_auth.%s.scopes has no meaning in mode %s", name, mode)
	}
	if mode == runtime.ModeExchange && a.TokenURL == "" {
		l.Errorf(f.Pos(path), "add token_url: the authorization server's token endpoint that performs RFC 8693 token exchange", "upstream_auth.%s in mode exchange has no token_url", name)
	}
}

// endpointProblem says what makes u unfit as an OAuth endpoint, or "".
func endpointProblem(u string) string {
	p, err := url.Parse(u)
	switch {
	case err != nil || p.Host == "" || !p.IsAbs():
		return "is not an absolute URL"
	case p.User != nil:
		return "carries credentials"
	case p.Fragment != "":
		return "has a #fragment"
	case p.Scheme == "https":
		return ""
	case p.Scheme == "http" && loopbackHost(p.Hostname()):
		return ""
	case p.Scheme == "http":
		return "uses http on a host that is not loopback: tokens would cross the network in clear"
	}
	return "is not an http or https URL"
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// validScope reports whether s is an RFC 6749 scope-token.
func validScope(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < 0x21 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}
