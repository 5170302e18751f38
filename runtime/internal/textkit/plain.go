package textkit

import (
	"regexp"
	"strings"
	"sync"
)

// Regular expressions used to turn spec Markdown and HTML into plain text
// that reads well inside a tool description. Links, images, tags and
// emphasis, the markup big specs use most, are removed by hand-written
// scanners with the same matches (markup.go; TestMarkupScannersMatchRegexps
// holds them to the regexps they replace).
var (
	mdHeading   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#{1,6}\s*`) })
	mdListItem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*[-*+]\s+`) })
	mdTableRule = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\|?[-:| ]{3,}\|?\s*$`) })
	spaces      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+`) })
)

// PlainText converts Markdown/HTML prose to one line of plain text.
// Most spec prose has no markup, and big specs repeat the same parameter
// descriptions hundreds of times, so plain strings skip the regexps.
func PlainText(s string) string {
	if !strings.ContainsAny(s, "[]<>*_`#|&-+\n\r\t") {
		return strings.TrimSpace(s)
	}
	// Each pass runs only when what it matches can occur: on big specs
	// these passes were a third of Build. An image and a link hold "](";
	// without one in the text neither matches, and nothing else changes.
	if strings.Contains(s, "](") {
		s = stripLinks(stripLinks(s, true), false)
	}
	if strings.IndexByte(s, '<') >= 0 {
		s = stripTags(s)
	}
	if hasRun(s, "-:| ", 3) {
		s = mdTableRule().ReplaceAllString(s, " ")
	}
	if strings.HasPrefix(s, "#") || strings.Contains(s, "\n#") {
		s = mdHeading().ReplaceAllString(s, "")
	}
	if mayStartListItem(s) {
		s = mdListItem().ReplaceAllString(s, "")
	}
	if strings.Contains(s, "**") || strings.Contains(s, "__") || strings.Contains(s, "`") {
		s = emphasisMarks().Replace(s)
	}
	if strings.Contains(s, "&") {
		s = htmlEntities().Replace(s)
	}
	return strings.TrimSpace(collapseSpaces(s))
}

// isRegexpSpace is the regexp class \s: ASCII tab, newline, form feed,
// carriage return and space.
func isRegexpSpace(c byte) bool {
	return c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ' '
}

// hasRun reports whether s has n bytes in a row from set (mdTableRule
// needs three of "-:| ").
func hasRun(s, set string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			run = 0
		} else if run++; run >= n {
			return true
		}
	}
	return false
}

// mayStartListItem reports whether mdListItem matches in s: a -, * or +
// followed by \s whose preceding run of \s starts the text or holds a
// newline (the regexp's ^\s* at a line start).
func mayStartListItem(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] != '-' && s[i] != '*' && s[i] != '+') || !isRegexpSpace(s[i+1]) {
			continue
		}
		j := i - 1
		for j >= 0 && isRegexpSpace(s[j]) && s[j] != '\n' {
			j--
		}
		if j < 0 || s[j] == '\n' {
			return true
		}
	}
	return false
}

// collapseSpaces is spaces().ReplaceAllString(s, " "): every run of the
// regexp's \s (ASCII tab, newline, form feed, carriage return, space)
// becomes one space, without the regexp machinery.
func collapseSpaces(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inRun := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isRegexpSpace(c) {
			b.WriteByte(c)
			inRun = false
		} else if !inRun {
			b.WriteByte(' ')
			inRun = true
		}
	}
	return b.String()
}
