package textkit

import "strings"

// abbreviations end in a period that does not end a sentence: cutting
// "Stock keeping unit, e.g. ABC-1234." after "e.g." loses the example.
// Compared without regard to case. The one list: descriptions, drafts,
// lint and discovery all cut sentences by it.
var abbreviations = []string{"e.g.", "i.e.", "etc.", "vs.", "approx.", "incl.", "cf.", "no."}

// SentenceEnd is the byte index of the '.', '!' or '?' that ends the
// first sentence of s (followed by white space or the end of s, and not
// an abbreviation's period), or -1 when s has none.
func SentenceEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		if i+1 < len(s) && !isSpace(s[i+1]) {
			continue
		}
		if c == '.' && endsWithAbbreviation(s[:i+1]) {
			continue
		}
		return i
	}
	return -1
}

// FirstSentence is the first sentence of s when it is at most max bytes
// long, else s clipped to max bytes (Clip). Pass len(s) for no limit.
func FirstSentence(s string, max int) string {
	if i := SentenceEnd(s); i >= 0 && i < max {
		return s[:i+1]
	}
	return Clip(s, max)
}

// endsWithAbbreviation reports whether s ends in an abbreviation that is
// a word of its own (at the start, or after a space or a parenthesis).
func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		if len(s) < len(a) || !strings.EqualFold(s[len(s)-len(a):], a) {
			continue
		}
		if len(s) == len(a) || s[len(s)-len(a)-1] == ' ' || s[len(s)-len(a)-1] == '(' {
			return true
		}
	}
	return false
}

// isSpace is ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
