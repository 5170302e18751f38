package runtime

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// credentialSet holds the upstream credentials read from the environment
// once at newServer, and the secret strings that must never appear in a
// result or a log line.
type credentialSet struct {
	schemes map[string]*SecurityScheme
	values  map[string]credential // by scheme name; only schemes fully set
	secrets []string              // longest first, for redaction
}

// credential is one scheme with its values from the environment.
type credential struct {
	scheme   *SecurityScheme
	value    string // key, token or basic user name
	password string
}

// authPlan is what an operation attaches: the first alternative of
// op.Security whose variables are all set.
type authPlan struct {
	creds []credential
	// needed names the environment variables of the first alternative,
	// for debug logs when nothing is configured.
	needed []string
	// options describes every alternative by its variables ("A", "B and
	// C"), for 401 guidance when nothing is configured.
	options []string
	// required: the operation declares security and no anonymous
	// alternative.
	required bool
}

// minSecretLen avoids redacting tiny values that would mangle every message.
const minSecretLen = 4

func newCredentialSet(schemes []SecurityScheme, getenv func(string) string) (*credentialSet, error) {
	cs := &credentialSet{schemes: map[string]*SecurityScheme{}, values: map[string]credential{}}
	for i := range schemes {
		s := &schemes[i]
		switch s.Kind {
		case "apiKey", "bearer", "basic":
		default:
			return nil, fmt.Errorf("security scheme %q: unsupported kind %q", s.Name, s.Kind)
		}
		cs.schemes[s.Name] = s
		if s.UpstreamAuth != nil {
			if s.Kind != Bearer {
				return nil, fmt.Errorf("security scheme %q: per-caller tokens (mode %s) need kind %q, not %q", s.Name, s.UpstreamAuth.Mode, Bearer, s.Kind)
			}
			// Always available: the token is the caller's, attached per
			// call (upstream_auth.go).
			cs.values[s.Name] = credential{scheme: s}
			continue
		}
		if s.EnvVar == "" {
			continue
		}
		c := credential{scheme: s, value: getenv(s.EnvVar)}
		if s.PasswordEnv != "" {
			c.password = getenv(s.PasswordEnv)
		}
		if c.value == "" {
			continue
		}
		cs.values[s.Name] = c
		cs.addSecrets(c)
	}
	sort.Slice(cs.secrets, func(i, j int) bool { return len(cs.secrets[i]) > len(cs.secrets[j]) })
	return cs, nil
}

func (cs *credentialSet) addSecrets(c credential) {
	add := func(s string) {
		if len(s) >= minSecretLen {
			cs.secrets = append(cs.secrets, s)
		}
	}
	switch c.scheme.Kind {
	case "basic":
		add(c.password)
		add(base64.StdEncoding.EncodeToString([]byte(c.value + ":" + c.password)))
	default:
		add(c.value)
		add(escapeStrict(c.value))
	}
}

// plan picks the credentials for one operation. Alternatives with
// credentials win over an anonymous ({}) alternative.
func (cs *credentialSet) plan(security [][]string) (*authPlan, error) {
	p := &authPlan{}
	if len(security) == 0 {
		return p, nil
	}
	p.required = true
	var chosen []credential
	found := false
	for _, alt := range security {
		if len(alt) == 0 {
			p.required = false
			continue
		}
		creds, ok, err := cs.alternative(alt)
		if err != nil {
			return nil, err
		}
		if p.needed == nil {
			p.needed = cs.envNames(alt)
		}
		if names := cs.envNames(alt); len(names) > 0 {
			p.options = append(p.options, strings.Join(names, " and "))
		}
		if ok && !found {
			chosen, found = creds, true
		}
	}
	p.creds = chosen
	return p, nil
}

func (cs *credentialSet) alternative(alt []string) ([]credential, bool, error) {
	var creds []credential
	ok := true
	for _, name := range alt {
		if _, known := cs.schemes[name]; !known {
			return nil, false, fmt.Errorf("security requirement names unknown scheme %q", name)
		}
		c, set := cs.values[name]
		if !set {
			ok = false
			continue
		}
		creds = append(creds, c)
	}
	return creds, ok, nil
}

func (cs *credentialSet) envNames(alt []string) []string {
	var names []string
	for _, name := range alt {
		s := cs.schemes[name]
		if s.EnvVar != "" {
			names = append(names, s.EnvVar)
		}
		if s.PasswordEnv != "" {
			names = append(names, s.PasswordEnv)
		}
	}
	return names
}

// usedNames are the environment variables of the credentials the
// request carries, in the order of the scheme list.
func (p *authPlan) usedNames() []string {
	var names []string
	for _, c := range p.creds {
		if c.scheme.EnvVar != "" {
			names = append(names, c.scheme.EnvVar)
		}
		if c.scheme.PasswordEnv != "" {
			names = append(names, c.scheme.PasswordEnv)
		}
	}
	return names
}

// apply attaches the chosen credentials; query keys are appended to query.
func (p *authPlan) apply(req *http.Request, query *strings.Builder) {
	for _, c := range p.creds {
		s := c.scheme
		switch {
		case s.UpstreamAuth != nil:
			// The caller's own token, never the MCP client's.
			if tok := userToken(req.Context(), s.Name); tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			continue
		}
		switch s.Kind {
		case "bearer":
			req.Header.Set("Authorization", "Bearer "+c.value)
		case "basic":
			req.SetBasicAuth(c.value, c.password)
		case "apiKey":
			switch s.In {
			case "query":
				addPair(query, escapeStrict(s.ParamName), escapeStrict(c.value))
			case "cookie":
				addCookie(req, escapeStrict(s.ParamName)+"="+escapeStrict(c.value))
			default:
				req.Header.Set(s.ParamName, c.value)
			}
		}
	}
}

func addCookie(req *http.Request, pair string) {
	if old := req.Header.Get("Cookie"); old != "" {
		pair = old + "; " + pair
	}
	req.Header.Set("Cookie", pair)
}

// redact replaces every configured secret in s.
func (cs *credentialSet) redact(s string) string {
	for _, sec := range cs.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, "[REDACTED]")
		}
	}
	return s
}
