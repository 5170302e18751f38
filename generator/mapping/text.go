package mapping

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Regular expressions used to turn spec Markdown and HTML into plain text
// that reads well inside a tool description.
var (
	mdLink      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`) })
	mdImage     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`) })
	htmlTag     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]{0,200}>`) })
	mdEmphasis  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(\\*\\*|__|`)") })
	mdHeading   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#{1,6}\s*`) })
	mdListItem  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*[-*+]\s+`) })
	mdTableRule = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\|?[-:| ]{3,}\|?\s*$`) })
	spaces      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s+`) })
)

// textCache memoises plainText for one Build: big specs repeat the same
// parameter descriptions on hundreds of operations. A nil cache is valid
// and caches nothing.
type textCache map[string]string

func (c textCache) plain(s string) string {
	if c == nil {
		return plainText(s)
	}
	if out, ok := c[s]; ok {
		return out
	}
	out := plainText(s)
	c[s] = out
	return out
}

// plainText converts Markdown/HTML prose to one line of plain text.
// Most spec prose has no markup, and big specs repeat the same parameter
// descriptions hundreds of times, so plain strings skip the regexps.
func plainText(s string) string {
	if !strings.ContainsAny(s, "[]<>*_`#|&-+\n\r\t") {
		return strings.TrimSpace(s)
	}
	s = mdImage().ReplaceAllString(s, "")
	s = mdLink().ReplaceAllString(s, "$1")
	s = htmlTag().ReplaceAllString(s, " ")
	// Each pass runs only when what it matches can occur: on big specs
	// these passes were a third of Build.
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
		s = mdEmphasis().ReplaceAllString(s, "")
	}
	if strings.Contains(s, "&") {
		s = strings.NewReplacer("&nbsp;", " ", "&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`).Replace(s)
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

// sentence makes s a sentence: capitalised first letter, final period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	s = string(r)
	switch s[len(s)-1] {
	case '.', '!', '?', ':':
		return s
	}
	return s + "."
}

// clip shortens s to at most max bytes, cutting at the last sentence end
// (or word boundary) that fits and marking the cut with an ellipsis.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := s[:max]
	if i := strings.LastIndex(cut, ". "); i > max/2 {
		return cut[:i+1]
	}
	if i := strings.LastIndexByte(cut, ' '); i > 0 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// humanize turns a snake name into words: "get_pet_by_id" → "Get pet by id".
func humanize(snake string) string {
	s := strings.ReplaceAll(snake, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// joinList renders items as "a, b and c".
func joinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// firstSentence keeps the first sentence of s, clipped to max bytes:
// nested fields need a hint, not the full reference text.
func firstSentence(s string, max int) string {
	if i := sentenceEnd(s); i > 0 && i < max {
		return s[:i+1]
	}
	return clip(s, max)
}

// abbreviations end in a period that does not end a sentence: cutting
// "Stock keeping unit, e.g. ABC-1234." after "e.g." loses the example.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "incl.", "cf.", "No."}

// sentenceEnd is the index of the period ending the first sentence of s
// (". " not part of an abbreviation), or -1.
func sentenceEnd(s string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], ". ")
		if i < 0 {
			return -1
		}
		i += from
		if !endsWithAbbreviation(s[:i+1]) {
			return i
		}
		from = i + 2
	}
}

func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		if strings.HasSuffix(s, a) && (len(s) == len(a) || s[len(s)-len(a)-1] == ' ' || s[len(s)-len(a)-1] == '(') {
			return true
		}
	}
	return false
}

// choices is a fix that lists the valid names ("use one of: a, b"), or,
// when there are none, what to do instead: a message never ends in an
// empty list.
func choices(lead string, names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return lead + ": " + strings.Join(names, ", ")
}
