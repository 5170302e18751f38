package lint

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// guardFragments are the pieces random descriptions are made of: the
// phrase regexps' own words and phrasings, near misses, and filler.
var guardFragments = []string{
	"use", "it", "this", "tool", "when", "whenever", "if", "for requests like", "to answer", "call", "choose", "pick",
	"the user", "only", "do not", "don't", "never", "instead", "rather than", "not for", "does not", "doesn't",
	"will not", "won't", "not", "return", "returns", "include", "contain", "list", "show", "cover", "the", "its",
	"their", "any", "excludes", "excluding", "omits", "omitted", "returns no content", "no content", "pets",
	"Lists", "an order", "by id", "status", ".", ",", "(", ")", "'", "\n", "uſe", "K", "USER", "Excluding",
	"calls", "invokes", "hits", "wraps", "a", "an", "API", "REST", "endpoint", "operation", "route", "HTTP",
	"request", "method", "GET", "POST", "DELETE", "https://example.com/a.b", "http", "获取验证码", "İ", "ſ", "\u212a",
	"e.g.", "e.g", "for example", "such as", "formatted", "like \"", "like 'x'", "YYYY-MM", "ISO 8601", "ISO8601", "RFC 3339",
	"RFC", "one of", "UUID", "URL", "URI", "signed-in", "logged in", "authenticated", "acting", "calling", "requesting",
	"current", "user", "customer", "id of the", "'s id", "set from the", "signed in", "identifier", "number",
}

// randomGuardText is n random fragments in random case, one in four a
// sentence end, which a phrase must not cross.
func randomGuardText(r *rand.Rand, n int) []string {
	parts := make([]string, n)
	for i := range parts {
		f := guardFragments[r.IntN(len(guardFragments))]
		if r.IntN(4) == 0 {
			f = "."
		}
		switch r.IntN(4) {
		case 0:
			f = strings.ToUpper(f)
		case 1:
			f = strings.ToUpper(f[:1]) + f[1:]
		}
		parts[i] = f
	}
	return parts
}

// TestPhraseGuardsOnRandomText: on seeded random descriptions built from
// the phrase regexps' own words, neither a word guard nor the split at
// periods hides a match of its regexp, so phrased answers what the
// regexp alone answers. A failure prints the smallest fragment list that
// still differs.
func TestPhraseGuardsOnRandomText(t *testing.T) {
	r := rand.New(rand.NewPCG(oa2mcptest.Seed(t), 1))
	guards := []struct {
		re    func() *regexp.Regexp
		words []string
	}{{whenToUseRE, whenToUseWords}, {whenNotRE, whenNotWords}, {notReturnRE, notReturnWords}, {endpointRE, endpointWords}}
	differs := func(parts []string) string {
		d := strings.Join(parts, " ")
		for _, g := range guards {
			if phrased(d, g.re, g.words) != g.re().MatchString(d) {
				return g.re().String()
			}
		}
		for _, g := range []struct {
			re    func() *regexp.Regexp
			words []string
		}{{exampleRE, exampleWords}, {identityDescRE, identityWords}} {
			if (!cannotMatch(d, true, g.words) && g.re().MatchString(d)) != g.re().MatchString(d) {
				return g.re().String()
			}
		}
		if got, want := endpointSpeak(d), referenceEndpointSpeak(d); want != "" && got != want {
			return "endpointSpeak: " + got + " instead of " + want
		}
		return ""
	}
	matched, identities := 0, 0
	for i := 0; i < 20000; i++ {
		parts := randomGuardText(r, 1+r.IntN(8))
		re := differs(parts)
		if whenToUseRE().MatchString(strings.Join(parts, " ")) {
			matched++
		}
		if identityDescRE().MatchString(strings.Join(parts, " ")) {
			identities++
		}
		if re == "" {
			continue
		}
		for j := 0; j < len(parts); {
			fewer := append(append([]string{}, parts[:j]...), parts[j+1:]...)
			if differs(fewer) != "" {
				parts = fewer
				continue
			}
			j++
		}
		t.Fatalf("the word guards or the split at periods of %s hide a match in %q", re, strings.Join(parts, " "))
	}
	t.Logf("%d texts match the when-to-use phrase, %d the caller-identity one", matched, identities)
	if matched < 40 {
		t.Fatalf("only %d of 20000 random texts match the when-to-use phrase; the generator no longer reaches the phrases", matched)
	}
	if identities < 20 {
		t.Fatalf("only %d of 20000 random texts match the caller-identity phrase; the generator no longer reaches it", identities)
	}
}

// TestASCIIFoldsAreAll: the only non-ASCII runes whose case folds reach
// an ASCII letter are the ones asciiFolds maps, so a (?i) regexp sees no
// ASCII word in text the word guards do not.
func TestASCIIFoldsAreAll(t *testing.T) {
	want := map[rune]rune{'ſ': 's', '\u212a': 'k'}
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < 0x80 && unicode.IsLetter(f) {
				if unicode.ToLower(f) != want[r] {
					t.Errorf("(?i) folds %q onto %q, which asciiFolds does not map", r, f)
				}
				if got := strings.ToLower(asciiFolds.Replace(string(r))); got != string(want[r]) {
					t.Errorf("asciiFolds maps %q to %q, want %q", r, got, want[r])
				}
			}
		}
	}
}

// referenceEndpointSpeak is the first match of the endpoint-speak
// regexps in d, run on the whole text without any guard: what
// endpointSpeak must give where they match.
func referenceEndpointSpeak(d string) string {
	for _, re := range []*regexp.Regexp{urlRE(), endpointRE(), httpVerbRE()} {
		if m := re.FindString(d); m != "" {
			return strings.TrimSpace(m)
		}
	}
	return ""
}
