package textkit

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// textPieces are what random prose is built from: words in several
// scripts (CJK, accented Latin, emoji), the abbreviations, sentence ends,
// Markdown and HTML markup, white space.
var textPieces = []string{
	"pet", "order", "Stock", "keeping", "unit", "ID", "ABC-1234", "工单", "请求参数", "ユーザー", "데이터", "müller", "naïve",
	"😀", "e.g.", "E.g.", "i.e.", "etc.", "vs.", "approx.", "incl.", "cf.", "No.", "no.", ".", "!", "?", ",", ";", ":",
	"**bold**", "__u__", "`code`", "[link](http://x.test/a)", "![img](y.png)", "<b>", "</b>", "&amp;", "&nbsp;",
	"# ", "## ", "- ", "* ", "+ ", "|a|b|", "|---|---|", " ", " ", " ", "\n", "\t", "\u00a0", "(", ")",
	"[", "]", "](", "![", "<", ">",
}

// randomText joins up to n random pieces.
func randomText(r *rand.Rand, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(textPieces[r.IntN(len(textPieces))])
		if r.IntN(3) == 0 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestTextRulesRandomised checks, for seeded random prose: Clip never
// returns invalid UTF-8 or more than its limit, and leaves text that fits
// unchanged; ClipRunes keeps exactly the first runes; PlainText's
// guarded passes give what unconditional ones give; the first sentence
// is a prefix of the plain text and never ends right after an
// abbreviation; FirstSentence keeps its limit.
func TestTextRulesRandomised(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 7))
	for i := range 5000 {
		raw := randomText(r, 40)
		if msg := checkTextRules(raw, r.IntN(120)); msg != "" {
			t.Fatalf("seed %d case %d: %s\ninput: %q\nminimised: %q", seed, i, msg, raw, minimiseText(raw, func(s string) bool {
				for max := range 120 {
					if checkTextRules(s, max) != "" {
						return true
					}
				}
				return false
			}))
		}
	}
}

// checkTextRules returns what is wrong with the text rules on raw with
// limit max, or "".
func checkTextRules(raw string, max int) string {
	c := Clip(raw, max)
	switch {
	case !utf8.ValidString(c):
		return "Clip returned invalid UTF-8: " + strings.ToValidUTF8(c, "<?>")
	case len(c) > max:
		return "Clip exceeded its limit"
	case len(raw) <= max && c != raw:
		return "Clip changed text that fits"
	case !strings.HasPrefix(raw, strings.TrimSuffix(c, ellipsis)):
		return "Clip's result is no prefix of its input"
	}
	switch r := ClipRunes(raw, max); {
	case !utf8.ValidString(r):
		return "ClipRunes returned invalid UTF-8"
	case utf8.RuneCountInString(raw) <= max && r != raw:
		return "ClipRunes changed text that fits"
	case utf8.RuneCountInString(raw) > max && (r != string([]rune(raw)[:max])+ellipsis):
		return "ClipRunes did not keep exactly the first runes: " + r
	}
	plain := PlainText(raw)
	if !utf8.ValidString(plain) {
		return "PlainText returned invalid UTF-8"
	}
	if want := plainTextRegexps(raw); plain != want {
		return "PlainText's guarded passes give " + plain + ", the unconditional ones " + want
	}
	first := FirstSentence(plain, len(plain))
	if !strings.HasPrefix(plain, first) {
		return "the first sentence " + first + " is no prefix of the plain text " + plain
	}
	if i := SentenceEnd(plain); i >= 0 && plain[i] == '.' && endsWithAbbreviation(plain[:i+1]) {
		return "the first sentence ends after an abbreviation: " + plain[:i+1]
	}
	if f := FirstSentence(plain, max); len(f) > max || !utf8.ValidString(f) {
		return "FirstSentence exceeded its limit or split a rune"
	}
	return ""
}

// minimiseText drops runes from s while fails still holds.
func minimiseText(s string, fails func(string) bool) string {
	for changed := true; changed; {
		changed = false
		for i, w := 0, 0; i < len(s); i += w {
			_, w = utf8.DecodeRuneInString(s[i:])
			if cand := s[:i] + s[i+w:]; fails(cand) {
				s, changed = cand, true
				break
			}
		}
	}
	return s
}

// TestSentenceRule pins the one abbreviation list.
func TestSentenceRule(t *testing.T) {
	for in, want := range map[string]string{
		"Stock keeping unit, e.g. ABC-1234. More text.": "Stock keeping unit, e.g. ABC-1234.",
		"Pet No. 5 is here. Then more.":                 "Pet No. 5 is here.",
		"Really? Yes.":                                  "Really?",
		"No end here":                                   "No end here",
		"Version 1.2 is out. Next.":                     "Version 1.2 is out.",
		"Ends (i.e. here). Next.":                       "Ends (i.e. here).",
	} {
		if got := FirstSentence(in, len(in)); got != want {
			t.Errorf("FirstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClipCJK: a cut inside a multi-byte rune moves back to its start.
func TestClipCJK(t *testing.T) {
	s := "请求参数请求参数请求参数"
	for max := range len(s) + 1 {
		if c := Clip(s, max); !utf8.ValidString(c) || len(c) > max {
			t.Errorf("Clip(%q, %d) = %q", s, max, c)
		}
	}
}
