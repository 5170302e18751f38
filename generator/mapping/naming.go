package mapping

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"
)

// maxToolName is the longest tool name accepted by every major model API
// (MCP itself allows 128).
const maxToolName = 64

// SnakeCase turns an identifier-ish string ("getPetById", "Get-Pet By ID",
// "/pet/{petId}") into lower snake case ("get_pet_by_id"). Only ASCII
// letters and digits survive; everything else separates words. It is the
// one naming rule: tool names, prefixes, lint's namespace advice and
// init's drafts all use it.
func SnakeCase(s string) string {
	words := splitWords(s)
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	return strings.Join(words, "_")
}

// splitWords splits s at non-alphanumerics and at case changes, keeping
// acronyms together: "getHTTPResponse2xx" → get, HTTP, Response, 2xx.
func splitWords(s string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, string(cur))
			cur = cur[:0]
		}
	}
	runes := []rune(s)
	for i, r := range runes {
		if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			flush()
			continue
		}
		if len(cur) > 0 && isWordBoundary(runes, i) {
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// isWordBoundary reports whether a new word starts at runes[i]: a lower
// case letter or digit followed by an upper case one, or the last upper
// case letter of an acronym that is followed by a lower case one.
func isWordBoundary(runes []rune, i int) bool {
	prev, r := runes[i-1], runes[i]
	if !unicode.IsUpper(r) {
		return false
	}
	if unicode.IsLower(prev) || unicode.IsDigit(prev) {
		return true
	}
	return unicode.IsUpper(prev) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
}

// ClipName shortens a snake (or kebab) name a person will read and edit
// (init's drafts) to at most max bytes, at a word boundary where one is
// near. Generated names are shortened by shorten instead, which keeps
// distinct long names distinct.
func ClipName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	name = name[:max]
	if i := strings.LastIndexAny(name, "_-"); i > max/2 {
		name = name[:i]
	}
	return strings.Trim(name, "_-")
}

// shorten caps name at max bytes. A long name keeps its head and gets an
// 8-hex-digit digest of the full name, so distinct long names stay
// distinct and the result is the same on every run.
func shorten(name string, max int) string {
	if len(name) <= max {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	suffix := "_" + hex.EncodeToString(sum[:4])
	head := strings.TrimRight(name[:max-len(suffix)], "_-")
	return head + suffix
}

// uniqueNames resolves collisions among wanted names, in order: the first
// holder keeps the name, later ones get "_2", "_3", ... (shortened again
// if needed). The result has the same length as wanted.
func uniqueNames(wanted []string, max int) []string {
	taken := make(map[string]bool, len(wanted))
	out := make([]string, len(wanted))
	for i, w := range wanted {
		name := w
		for n := 2; taken[name]; n++ {
			suffix := "_" + strconv.Itoa(n)
			name = shorten(w, max-len(suffix)) + suffix
		}
		taken[name] = true
		out[i] = name
	}
	return out
}

// propertyName sanitises a wire name into a JSON property name that every
// model API accepts (^[A-Za-z0-9_.-]{1,64}$).
func propertyName(wire string) string {
	var b strings.Builder
	for _, r := range wire {
		switch {
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)), r == '_', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		name = "param"
	}
	return shorten(name, maxToolName)
}

// commonInitialisms are upper-cased whole in Go identifiers.
var commonInitialisms = map[string]bool{
	"API": true, "ID": true, "URL": true, "URI": true, "HTTP": true, "JSON": true,
	"XML": true, "UUID": true, "IP": true, "SQL": true, "TLS": true, "TTL": true,
	"UI": true, "OS": true, "DNS": true, "SSH": true, "VPC": true, "CPU": true,
}

// goName turns a snake or camel name into a Go CamelCase identifier with
// initialisms ("get_pet_by_id" → "GetPetByID").
func goName(s string) string {
	var b strings.Builder
	for _, w := range splitWords(s) {
		up := strings.ToUpper(w)
		if commonInitialisms[up] {
			b.WriteString(up)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]))
		b.WriteString(strings.ToLower(w[1:]))
	}
	name := b.String()
	if name == "" || unicode.IsDigit(rune(name[0])) {
		name = "X" + name
	}
	return name
}

// packageName derives a Go package name from a server name: lower case
// letters and digits only, never starting with a digit.
func packageName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	name := b.String()
	if name == "" || unicode.IsDigit(rune(name[0])) {
		name = "api" + name
	}
	return name
}

// envName turns s into an environment variable fragment: upper snake case.
func envName(s string) string {
	return strings.ToUpper(SnakeCase(s))
}
