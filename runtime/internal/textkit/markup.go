package textkit

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// The scanners below remove the markup big specs use most (Stripe: a
// link or a tag in one description of seven, emphasis in one of five)
// exactly as the regexps PlainText used did; the regexps backtracked
// through every description and were most of PlainText's time.
// TestMarkupScannersMatchRegexps holds each to its regexp.

// maxTagRunes is how many characters other than '>' a tag may hold
// between its '<' and its '>' (the regexp `<[^>]{0,200}>`): a '<' with no
// '>' soon after is prose ("a < b"), not a tag.
const maxTagRunes = 200

// stripTags replaces each HTML tag with a space: a '<', at most
// maxTagRunes characters other than '>', then a '>'; leftmost first, not
// overlapping.
func stripTags(s string) string {
	return rewrite(s, func(i int) (start, end int, repl string, next int) {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return -1, 0, "", -1
		}
		start = i + j
		if end = tagEnd(s, start); end < 0 {
			return -1, 0, "", start + 1
		}
		return start, end, " ", end
	})
}

// rewrite replaces the matches match finds in s, from the left: asked
// from byte i, it returns the next match s[start:end] and its
// replacement, or start -1; either way where to look next (next -1:
// nowhere). s comes back as is, not copied, when nothing matches.
func rewrite(s string, match func(i int) (start, end int, repl string, next int)) string {
	var b strings.Builder
	written, changed := 0, false
	for i := 0; i >= 0 && i <= len(s); {
		start, end, repl, next := match(i)
		if start >= 0 {
			if !changed {
				b.Grow(len(s))
				changed = true
			}
			b.WriteString(s[written:start])
			b.WriteString(repl)
			written = end
		}
		i = next
	}
	if !changed {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// tagEnd is the index just after the '>' that closes the tag opened at
// s[start] ('<'), or -1 when no '>' follows within maxTagRunes characters.
// Characters are counted as the regexp counts them: an invalid UTF-8
// byte is one.
func tagEnd(s string, start int) int {
	runes := 0
	for k := start + 1; k < len(s); {
		if s[k] == '>' {
			return k + 1
		}
		if runes == maxTagRunes {
			return -1
		}
		_, w := utf8.DecodeRuneInString(s[k:])
		k += w
		runes++
	}
	return -1
}

// stripLinks rewrites Markdown links, "[text](target)", as their text
// (image false: the regexp `\[([^\]]*)\]\([^)]*\)` replaced by "$1"), or
// removes images, "![alt](target)" (image true: `!\[[^\]]*\]\([^)]*\)`
// replaced by ""); leftmost first, not overlapping. The text runs to the
// first ']' and the target to the first ')'.
func stripLinks(s string, image bool) string {
	open := "["
	if image {
		open = "!["
	}
	return rewrite(s, func(i int) (start, end int, repl string, next int) {
		j := strings.Index(s[i:], open)
		if j < 0 {
			return -1, 0, "", -1
		}
		start = i + j
		textStart := start + len(open)
		k := strings.IndexByte(s[textStart:], ']')
		if k < 0 {
			return -1, 0, "", -1 // no ']' after this start, so none after any later one
		}
		closeText := textStart + k
		if closeText+1 >= len(s) || s[closeText+1] != '(' {
			// Every start before this ']' meets the same ']' first and
			// fails the same way.
			return -1, 0, "", closeText + 1
		}
		m := strings.IndexByte(s[closeText+2:], ')')
		if m < 0 {
			return -1, 0, "", -1 // no ')' after this ']', so none after any later one
		}
		end = closeText + 2 + m + 1
		if !image {
			repl = s[textStart:closeText]
		}
		return start, end, repl, end
	})
}

// emphasisMarks removes "**", "__" and "`" (the regexp "(\*\*|__|`)"):
// a Replacer takes, like the regexp, the leftmost match and, at one
// position, the first of its patterns.
var emphasisMarks = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("**", "", "__", "", "`", "")
})

// htmlEntities are the entities PlainText spells out, built once (a
// Replacer is safe for concurrent use).
var htmlEntities = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`)
})
