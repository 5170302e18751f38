package runtime

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// What the server never shows: names of secrets and of personal data
// (the one rule, textkit.IsSecretName and IsPersonalName, which the
// generator shares), values shaped like personal data in call logs, and
// the per-tool set of names the definition declares sensitive.

// emailRE and phoneRE recognise personal data by its shape, whatever
// the input is called: an e-mail address, an international phone number.
var (
	emailRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$`) })
	phoneRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\+[0-9][0-9 ().-]{5,22}[0-9]$`) })
)

// looksPersonal reports whether a value is shaped like an e-mail address,
// an international phone number (+ and 7 to 15 digits) or a payment card
// number.
func looksPersonal(v string) bool {
	v = strings.TrimSpace(v)
	if emailRE().MatchString(v) || looksLikeCardNumber(v) {
		return true
	}
	if !phoneRE().MatchString(v) {
		return false
	}
	digits := 0
	for _, r := range v {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	return digits >= 7 && digits <= 15
}

// sensitiveSet is what one tool's log line and error texts hide: names
// the definition declares (ServerDef.Sensitive, Tool.Sensitive; an entry
// with * is a case-insensitive glob such as "*_pin"), names the secret and
// personal-data rules match, and the random part of handles.
type sensitiveSet struct {
	names    map[string]bool
	patterns []string
	prefixes []string // handle prefixes: handles are logged by prefix only

	// decided remembers is for the argument names seen, at most
	// maxDecidedNames of them: a tool's names repeat on every call, and
	// the word rules cost microseconds per name (every call's log line
	// asks for each argument).
	decided  sync.Map // string → bool
	ndecided atomic.Int32
}

// maxDecidedNames and maxDecidedName bound sensitiveSet.decided to 16
// KiB of names: names a caller makes up, beyond the first 256 or longer
// than 64 bytes, are decided again on every call rather than kept.
const (
	maxDecidedNames = 256
	maxDecidedName  = 64
)

func newSensitiveSet(handles []HandleType, lists ...[]string) *sensitiveSet {
	ss := &sensitiveSet{names: map[string]bool{}}
	for _, l := range lists {
		for _, n := range l {
			if strings.Contains(n, "*") {
				ss.patterns = append(ss.patterns, strings.ToLower(n))
			} else {
				ss.names[n] = true
			}
		}
	}
	for _, h := range handles {
		if h.Prefix != "" {
			ss.prefixes = append(ss.prefixes, h.Prefix)
		}
	}
	return ss
}

// is reports whether the values of name are hidden.
func (ss *sensitiveSet) is(name string) bool {
	if v, ok := ss.decided.Load(name); ok {
		return v.(bool)
	}
	is := ss.decide(name)
	if len(name) <= maxDecidedName && ss.ndecided.Load() < maxDecidedNames && ss.ndecided.Add(1) <= maxDecidedNames {
		ss.decided.Store(name, is)
	}
	return is
}

// decide applies the rules behind is.
func (ss *sensitiveSet) decide(name string) bool {
	if ss.names[name] || textkit.IsSecretName(name) || textkit.IsPersonalName(name) {
		return true
	}
	low := strings.ToLower(name)
	for _, p := range ss.patterns {
		if ok, _ := path.Match(p, low); ok {
			return true
		}
	}
	return false
}

// logValue renders a string argument for the log line: a handle by its
// prefix, personal data by shape redacted, anything else quoted.
func (ss *sensitiveSet) logValue(v string) string {
	for _, p := range ss.prefixes {
		if strings.HasPrefix(v, p) {
			return p + "…"
		}
	}
	if looksPersonal(v) {
		return "[REDACTED]"
	}
	return ""
}

// secretValues collects the values the caller sent under hidden names,
// at any depth, to remove them from what the upstream says back.
func (ss *sensitiveSet) secretValues(args map[string]any) []string {
	var out []string
	var walk func(v any, hidden bool)
	walk = func(v any, hidden bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, hidden || ss.is(k))
			}
		case []any:
			for _, e := range x {
				walk(e, hidden)
			}
		case string:
			if hidden && len(x) >= minSecretLen {
				out = append(out, x)
			}
		case json.Number:
			if hidden && len(x) >= minSecretLen {
				out = append(out, x.String())
			}
		}
	}
	walk(args, false)
	return out
}

// redactValues replaces every value of vals in s, longest first.
func redactValues(s string, vals []string) string {
	for len(vals) > 0 {
		longest := 0
		for i, v := range vals {
			if len(v) > len(vals[longest]) {
				longest = i
			}
		}
		s = strings.ReplaceAll(s, vals[longest], "[REDACTED]")
		vals = append(vals[:longest:longest], vals[longest+1:]...)
	}
	return s
}
