package textkit

import (
	"strings"
	"testing"
)

// plainTextRegexps is PlainText with every regexp pass unconditional, as
// it was before the passes got their character guards.
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
