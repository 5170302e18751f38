package overrides

import (
	"fmt"
	"net"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Checks of the state, people-in-the-loop and access settings (handles,
// ask/confirm, x-mcp-header, scopes, rate limits, pass-through headers)
// that need no spec. The build stage checks the rest against the tools.

var (
	handlePrefixRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{0,14}[_-]$`) })
	handleTypeRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`) })
	// scopeRE is an OAuth scope-token (RFC 6749 section 3.3).
	scopeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\x21\x23-\x5B\x5D-\x7E]+$`) })
)

// MaxLifetime bounds handle lifetimes.
const MaxLifetime = 366 * 24 * time.Hour

// ParseLifetime reads a handle lifetime: a Go duration ("90m", "24h") or
// a number of days ("7d").
func ParseLifetime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("%q is not a number of days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration", s)
	}
	return d, nil
}

// IsToken reports whether s is an RFC 9110 token (an HTTP header name).
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// refusedPassHeaders are never copied from the MCP client to the API.
var refusedPassHeaders = map[string]string{
	"authorization":       "it carries the MCP client's credentials, not the API's; configure upstream credentials per security scheme instead",
	"proxy-authorization": "it carries credentials",
	"cookie":              "it carries the MCP client's session",
	"host":                "it would redirect the call",
	"content-length":      "the server sets it",
	"content-type":        "the server sets it",
	"connection":          "it is hop-by-hop",
	"transfer-encoding":   "it is hop-by-hop",
	"te":                  "it is hop-by-hop",
	"upgrade":             "it is hop-by-hop",
	"keep-alive":          "it is hop-by-hop",
}

func (f *File) checkState(l *diag.List) {
	switch f.Server.HandleStore {
	case "", "memory", "redis":
	default:
		l.Errorf(f.Pos("server.handle_store"), `use "memory" or "redis"`, "unknown handle_store %q", f.Server.HandleStore)
	}
	f.checkRateLimit(f.Server.RateLimit, "server.rate_limit", l)
	seen := map[string]bool{}
	for i, h := range f.Server.PassHeaders {
		p := fmt.Sprintf("server.pass_headers[%d]", i)
		low := strings.ToLower(h)
		switch {
		case !IsToken(h):
			l.Errorf(f.Pos(p), "write a header name such as Accept-Language", "pass_headers: %q is not a header name", h)
		case refusedPassHeaders[low] != "":
			l.Errorf(f.Pos(p), "remove it", "pass_headers: %s cannot be passed through: %s", h, refusedPassHeaders[low])
		case strings.HasPrefix(low, "mcp-"):
			l.Errorf(f.Pos(p), "remove it", "pass_headers: %s is an MCP protocol header and is never passed through", h)
		case seen[low]:
			l.Errorf(f.Pos(p), "list each header once", "pass_headers: %s is listed twice", h)
		}
		seen[low] = true
	}
	f.checkRedirectHosts(l)
	for i, pat := range f.Server.Redact {
		if _, err := path.Match(strings.ToLower(pat), ""); err != nil || strings.TrimSpace(pat) == "" {
			l.Errorf(f.Pos(fmt.Sprintf("server.redact[%d]", i)), `write an input name or a glob with *, e.g. "*_pin"`, "redact: %q is not a name or glob", pat)
		}
	}
	for _, name := range sortedNames(f.Handles) {
		h, p := f.Handles[name], "handles."+name
		if !handleTypeRE().MatchString(name) {
			l.Errorf(f.Pos(p), "use lower-case letters, digits and _, e.g. ticket", "handle type name %q is not valid", name)
		}
		if h == nil {
			l.Errorf(f.Pos(p), "give it prefix: and lifetime:", "handle type %q is empty", name)
			continue
		}
		if !handlePrefixRE().MatchString(h.Prefix) {
			l.Errorf(f.Pos(p+".prefix"), `use 1 to 15 letters or digits (starting with a letter) and a final "_" or "-", e.g. tkt_`, "handle prefix %q is not valid", h.Prefix)
		}
		if h.Lifetime == "" {
			l.Errorf(f.Pos(p), "add lifetime:, e.g. 24h or 7d", "handle type %q has no lifetime", name)
		} else if d, err := ParseLifetime(h.Lifetime); err != nil {
			l.Errorf(f.Pos(p+".lifetime"), "write e.g. 30m, 24h or 7d", "handle lifetime: %v", err)
		} else if d < time.Minute || d > MaxLifetime {
			l.Errorf(f.Pos(p+".lifetime"), "choose between 1m and 366d", "handle lifetime %s is out of range", h.Lifetime)
		}
		switch h.Expiry {
		case "", "sliding", "fixed":
		default:
			l.Errorf(f.Pos(p+".expiry"), `use "sliding" or "fixed"`, "unknown expiry %q", h.Expiry)
		}
	}
	prefixes := map[string]string{}
	for _, name := range sortedNames(f.Handles) {
		if h := f.Handles[name]; h != nil && h.Prefix != "" {
			if other, dup := prefixes[strings.ToLower(h.Prefix)]; dup {
				l.Errorf(f.Pos("handles."+name+".prefix"), "give each handle type its own prefix", "handle prefix %q is used by %q too", h.Prefix, other)
			}
			prefixes[strings.ToLower(h.Prefix)] = name
		}
	}
}

func (f *File) checkRateLimit(r *RateLimit, p string, l *diag.List) {
	if r == nil {
		return
	}
	if r.PerMinute <= 0 {
		l.Errorf(f.Pos(p), "set per_minute to a positive number, e.g. 60", "rate limit without a positive per_minute")
	}
	if r.Burst < 0 {
		l.Errorf(f.Pos(p+".burst"), "use a positive burst or leave it out", "negative burst %d", r.Burst)
	}
}

// checkToolState checks one tool's handle, confirm, scope, rate-limit and
// input settings.
func (f *File) checkToolState(t *Tool, path string, l *diag.List) {
	f.checkRateLimit(t.RateLimit, path+".rate_limit", l)
	for i, s := range t.Scopes {
		if !scopeRE().MatchString(s) {
			l.Errorf(f.Pos(fmt.Sprintf("%s.scopes[%d]", path, i)), "write a scope such as tickets:read", "scope %q is not a valid OAuth scope", s)
		}
	}
	if c := t.CreatesHandle; c != nil {
		cp := path + ".creates_handle"
		f.checkHandleRef(c.Type, cp+".type", l)
		if strings.TrimSpace(c.From) == "" {
			l.Errorf(f.Pos(cp), "add from: the result field holding the upstream id, e.g. id", "creates_handle has no from")
		}
		if c.Field != "" && !nameRE().MatchString(c.Field) {
			l.Errorf(f.Pos(cp+".field"), "use letters, digits and _", "field name %q is not valid", c.Field)
		}
	}
	if c := t.CreatesHandle; c != nil && f.Handles[c.Type] != nil && f.Handles[c.Type].State {
		l.Errorf(f.Pos(path+".creates_handle.type"), "use updates_handle: for state handles", "handle type %q holds state, not an upstream id", c.Type)
	}
	f.checkUpdatesHandle(t, path, l)
	if c := t.ConsumesHandle; c != "" {
		fd := t.Input[c]
		isUpd := t.UpdatesHandle != nil && t.UpdatesHandle.Input == c
		if !isUpd && (fd == nil || fd.Handle == "") {
			l.Errorf(f.Pos(path+".consumes_handle"), "name an input declared with handle:", "consumes_handle: %q is not a handle input of tool %q", c, t.Name)
		}
	}
	if t.Confirm != "" {
		if _, err := ParseExpr(t.Confirm); err != nil {
			l.Errorf(f.Pos(path+".confirm"), "write ${input.NAME}, ${steps.ID.body.FIELD}, ${steps.ID.status}, ${env.VAR}, ${config.NAME} or ${identity.CLAIM}", "confirm text: %v", err)
		}
	}
	if t.IdempotencyHeader != "" && !IsToken(t.IdempotencyHeader) {
		l.Errorf(f.Pos(path+".idempotency_header"), "write a header name such as Idempotency-Key", "%q is not a header name", t.IdempotencyHeader)
	}
	headers := map[string]string{}
	for _, name := range sortedNames(t.Input) {
		fd, fp := t.Input[name], path+".input."+name
		if fd == nil {
			continue
		}
		hidden := fd.Value != nil || fd.Env != "" || fd.Config != "" || fd.Identity != "" || fd.Drop
		if fd.Handle != "" {
			f.checkHandleRef(fd.Handle, fp+".handle", l)
			if hidden || fd.Flatten {
				l.Errorf(f.Pos(fp+".handle"), "remove value, env, config, identity, drop or flatten", "input %q takes a handle and cannot also be hidden or flattened", name)
			}
			if fd.Ask != "" {
				l.Errorf(f.Pos(fp+".ask"), "let the model pass the handle it got", "input %q takes a handle; handles are not asked from the user", name)
			}
		}
		if fd.Ask != "" && (hidden || fd.Flatten) {
			l.Errorf(f.Pos(fp+".ask"), "remove ask or the hiding", "input %q is hidden and cannot be asked", name)
		}
		if h := fd.MCPHeader; h != "" {
			hp := fp + ".mcp_header"
			switch {
			case !IsToken(h):
				l.Errorf(f.Pos(hp), "use letters, digits and -, e.g. Region", "mcp_header %q is not an HTTP token (RFC 9110)", h)
			case headers[strings.ToLower(h)] != "":
				l.Errorf(f.Pos(hp), "give each input its own header name", "mcp_header %q is also used by input %q (names compare case-insensitively)", h, headers[strings.ToLower(h)])
			}
			if hidden {
				l.Errorf(f.Pos(hp), "mark an input the model fills", "input %q is hidden, so it cannot be mirrored in a header", name)
			}
			headers[strings.ToLower(h)] = name
		}
	}
}

// pureStateTool reports whether t, having no operation, steps or
// actions, reads a state handle: one of its inputs takes a state handle.
func (f *File) pureStateTool(t *Tool) bool {
	for _, fd := range t.Input {
		if fd != nil && fd.Handle != "" && f.Handles[fd.Handle] != nil && f.Handles[fd.Handle].State {
			return true
		}
	}
	return false
}

func (f *File) checkUpdatesHandle(t *Tool, path string, l *diag.List) {
	u := t.UpdatesHandle
	if u == nil {
		return
	}
	up := path + ".updates_handle"
	if t.Operation != "" || len(t.Steps) > 0 || len(t.Actions) > 0 || t.CreatesHandle != nil {
		l.Errorf(f.Pos(up), "remove operation, steps, actions and creates_handle: a tool updating a handle makes no upstream call", "tool %q updates a handle and calls the API", t.Name)
	}
	f.checkHandleRef(u.Type, up+".type", l)
	if h := f.Handles[u.Type]; h != nil && !h.State {
		l.Errorf(f.Pos(up+".type"), "add state: true to handles."+u.Type, "handle type %q holds no state", u.Type)
	}
	if !nameRE().MatchString(u.Input) {
		l.Errorf(f.Pos(up), "add input: the name of the input holding the handle, e.g. basket_id", "updates_handle: input %q is not a valid input name", u.Input)
	} else if fd := t.Input[u.Input]; fd != nil && fd.Handle != "" && fd.Handle != u.Type {
		l.Errorf(f.Pos(path+".input."+u.Input+".handle"), "remove handle: here; updates_handle declares it", "input %q takes %s handles, not %s", u.Input, fd.Handle, u.Type)
	}
	for _, kind := range []string{"append", "set"} {
		m := u.Append
		if kind == "set" {
			m = u.Set
		}
		for _, name := range sortedNames(m) {
			fp := up + "." + kind + "." + name
			if !nameRE().MatchString(name) {
				l.Errorf(f.Pos(fp), "use letters, digits and _", "state field name %q is not valid", name)
			}
			if _, dup := u.Append[name]; dup && kind == "set" {
				l.Errorf(f.Pos(fp), "append to or set a field, not both", "state field %q is both appended to and set", name)
			}
			if _, err := ParseExpr(m[name]); err != nil {
				l.Errorf(f.Pos(fp), "write ${input.NAME}, ${steps.ID.body.FIELD}, ${steps.ID.status}, ${env.VAR}, ${config.NAME} or ${identity.CLAIM}", "binding for %q: %v", name, err)
			}
		}
	}
}

func (f *File) checkHandleRef(typ, p string, l *diag.List) {
	if _, ok := f.Handles[typ]; ok {
		return
	}
	names := sortedNames(f.Handles)
	fix := "declare it under handles:"
	if s := oa2mcpimpl.Suggest(typ, names); s != "" {
		fix = "did you mean " + s + "?"
	} else if len(names) > 0 {
		fix = "use one of: " + strings.Join(names, ", ")
	}
	l.Errorf(f.Pos(p), fix, "unknown handle type %q", typ)
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

func sortStrings(s []string) { sort.Strings(s) }

// checkRedirectHosts accepts "host" or "host:port" entries, each once.
func (f *File) checkRedirectHosts(l *diag.List) {
	seen := map[string]bool{}
	for i, h := range f.Server.AllowRedirectHosts {
		p := fmt.Sprintf("server.allow_redirect_hosts[%d]", i)
		low := strings.ToLower(h)
		switch {
		case !isHostPort(low):
			l.Errorf(f.Pos(p), "write a host name or host:port, e.g. login.example.com or files.example.com:8443 (no scheme, no path)", "allow_redirect_hosts: %q is not a host", h)
		case seen[low]:
			l.Errorf(f.Pos(p), "list each host once", "allow_redirect_hosts: %s is listed twice", h)
		}
		seen[low] = true
	}
}

// isHostPort reports whether s is a host name or IP address, with an
// optional port, and nothing else.
func isHostPort(s string) bool {
	host := s
	if h, port, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return false
		}
		host = h
	}
	if net.ParseIP(strings.Trim(host, "[]")) != nil {
		return true
	}
	return hostNameRE().MatchString(host)
}

// hostNameRE matches a DNS host name (labels of letters, digits and
// hyphens).
var hostNameRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
})
