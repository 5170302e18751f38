package textkit

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// The regexps the markup scanners (markup.go) replaced: the oracles
// they are held to.
var (
	mdLink     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`) })
	mdImage    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`) })
	htmlTag    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]{0,200}>`) })
	mdEmphasis = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(\\*\\*|__|`)") })
)

// plainTextRegexps is PlainText with every regexp pass unconditional, as
// it was before the passes got their character guards and the markup
// passes their scanners.
func plainTextRegexps(s string) string {
	if !strings.ContainsAny(s, "[]<>*_`#|&-+\n\r\t") {
		return strings.TrimSpace(s)
	}
	for _, r := range []struct {
		re  interface{ ReplaceAllString(string, string) string }
		rep string
	}{{mdImage(), ""}, {mdLink(), "$1"}, {htmlTag(), " "}, {mdTableRule(), " "}, {mdHeading(), ""}, {mdListItem(), ""}, {mdEmphasis(), ""}} {
		s = r.re.ReplaceAllString(s, r.rep)
	}
	s = strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`).Replace(s)
	return strings.TrimSpace(spaces().ReplaceAllString(s, " "))
}

// TestPlainTextGuards: the guarded passes give what the unconditional
// ones give.
func TestPlainTextGuards(t *testing.T) {
	for _, s := range []string{
		"plain", "# Heading\nText", "## H2 ##\n- item one\n* item two\n+ item three", "a - b", "x\t\ty\n\nz\r\n",
		"**bold** and __under__ and `code`", "a_b_c", "a*b", "snake_case_name", "|a|b|\n|---|---|\n|1|2|",
		"  \n   \n- after a blank line", "[link](http://x) ![img](y)", "<b>html</b> &amp; &nbsp;x",
		"tab\x0cformfeed\vvtab", "ünïcode — dash\u00a0nbsp", "#not-a-heading-in-middle a#b", "-", "--", "`", "_", "*",
		"a - b", "x\n - y", "x\n\t-\ty", "x -\ny", "x\n-y", "x\r\n- y", "- a", " * b", "+\n", "a\n\n + b", "a:b|c",
		"a\n---\nb", "a |-| b", "x\n   \n- y", "&lt;&gt;", "a & b", "\n#x", "a\r#b", "trailing -", "x\n-- \ny", "x\n:| \ny",
	} {
		if got, want := PlainText(s), plainTextRegexps(s); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", s, got, want)
		}
	}
}

// markupAlphabet is what the scanners' random inputs are made of: the
// markup characters, a letter, a two-byte and a four-byte character, an
// invalid byte (which the regexps count as one character), a newline,
// and runs long enough to cross the 200-character bound of a tag.
var markupAlphabet = []string{"<", ">", "[", "]", "(", ")", "!", "![", "](", "*", "**", "_", "__", "`", "a", "é", "😀", "\xff", "\n",
	strings.Repeat("x", 60), strings.Repeat("é", 60), strings.Repeat("y", 199)}

// TestMarkupScannersMatchRegexps: on seeded random strings, each scanner
// gives exactly what the regexp it replaced gives; a failure is shrunk.
func TestMarkupScannersMatchRegexps(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 11))
	passes := []struct {
		name    string
		scanner func(string) string
		oracle  func(string) string
	}{
		{"tags", stripTags, func(s string) string { return htmlTag().ReplaceAllString(s, " ") }},
		{"links", func(s string) string { return stripLinks(s, false) }, func(s string) string { return mdLink().ReplaceAllString(s, "$1") }},
		{"images", func(s string) string { return stripLinks(s, true) }, func(s string) string { return mdImage().ReplaceAllString(s, "") }},
		{"emphasis", emphasisMarks().Replace, func(s string) string { return mdEmphasis().ReplaceAllString(s, "") }},
	}
	for i := range 20000 {
		var b strings.Builder
		for range r.IntN(30) {
			b.WriteString(markupAlphabet[r.IntN(len(markupAlphabet))])
		}
		in := b.String()
		for _, p := range passes {
			differs := func(s string) bool { return p.scanner(s) != p.oracle(s) }
			if differs(in) {
				min := minimiseBytes(in, differs)
				t.Fatalf("seed %d case %d: %s: scanner %q, regexp %q\ninput %q\nminimised %q (scanner %q, regexp %q)",
					seed, i, p.name, p.scanner(in), p.oracle(in), in, min, p.scanner(min), p.oracle(min))
			}
		}
	}
}

// minimiseBytes drops bytes from s while fails still holds (bytes, not
// runes: the inputs hold invalid UTF-8 on purpose).
func minimiseBytes(s string, fails func(string) bool) string {
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(s); i++ {
			if cand := s[:i] + s[i+1:]; fails(cand) {
				s, changed = cand, true
				break
			}
		}
	}
	return s
}
