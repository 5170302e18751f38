package runtime

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"unicode"
)

// What the server never shows: the one rule for names of secrets (used by
// the generator too, which refuses to mirror such inputs into headers),
// the rule for personal data in call logs, and the per-tool set of names
// the definition declares sensitive.

// secretWords are the words (of a name split at _, -, . and camelCase)
// that make it name a secret.
var secretWords = wordSet("pass password passwd passphrase passcode pwd pin cvv cvc csc otp totp hotp mfa " +
	"token secret key apikey credential credentials auth authorization authentication cookie session " +
	"signature private privatekey jwt bearer csrf xsrf")

// secretInfixes catch secrets in names written as one word (apiKey
// splits, "accesstoken" does not).
var secretInfixes = []string{"password", "passwd", "passphrase", "passcode", "secret", "token", "apikey",
	"credential", "authoriz", "authentic", "signature", "cookie", "privatekey"}

// personalWords are words of names of personal data, redacted in logs.
var personalWords = wordSet("email mail phone mobile telephone tel fax msisdn birthday birthdate dob ssn " +
	"passport iban card address street postcode postal zip zipcode surname firstname lastname fullname " +
	"taxid nationalid ip")

var personalInfixes = []string{"email", "phone", "birth", "passport", "iban", "creditcard", "cardnumber",
	"postcode", "zipcode", "surname", "firstname", "lastname", "fullname", "nationalid", "taxid",
	"socialsecurity", "address"}

// IsSecretName reports whether an input or parameter name names a secret
// (a password, passphrase, PIN, token, key, credential, session, ...):
// such values are never logged, never mirrored into an HTTP header and
// removed from upstream error text. Words are compared whole, so
// "author" or "keyword" are no secrets; "access_token", "apiKey" and
// "passphrase" are.
func IsSecretName(name string) bool { return nameMatches(name, secretWords, secretInfixes) }

// isPersonalName reports whether a name names personal data (e-mail,
// phone, address, birth date, IBAN, card number, ...).
func isPersonalName(name string) bool { return nameMatches(name, personalWords, personalInfixes) }

func nameMatches(name string, words map[string]bool, infixes []string) bool {
	ws := nameWords(name)
	for _, w := range ws {
		if words[w] {
			return true
		}
	}
	joined := strings.Join(ws, "")
	for _, in := range infixes {
		if strings.Contains(joined, in) {
			return true
		}
	}
	return false
}

// nameWords splits a name at non-letters and lower-to-upper case
// changes, lower-cased: "X-Api-Key" and "xApiKey" give x, api, key.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// emailRE and phoneRE recognise personal data by its shape, whatever
// the input is called: an e-mail address, an international phone number.
var (
	emailRE = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$`)
	phoneRE = regexp.MustCompile(`^\+[0-9][0-9 ().-]{5,22}[0-9]$`)
)

// looksPersonal reports whether a value is shaped like an e-mail address,
// an international phone number (+ and 7 to 15 digits) or a payment card
// number.
func looksPersonal(v string) bool {
	v = strings.TrimSpace(v)
	if emailRE.MatchString(v) || looksLikeCardNumber(v) {
		return true
	}
	if !phoneRE.MatchString(v) {
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
}

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
	if ss.names[name] || IsSecretName(name) || isPersonalName(name) {
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
