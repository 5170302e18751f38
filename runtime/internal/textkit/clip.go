package textkit

import (
	"strings"
	"unicode/utf8"
)

// ellipsis marks a cut.
const ellipsis = "…"

// Clip shortens s to at most max bytes, never inside a UTF-8 sequence:
// at the last sentence end that fits in the second half, else at the
// last space in the second half (marking the cut with "…", counted in
// max), else at a rune boundary. Text that fits is returned unchanged.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max <= 0 {
		return ""
	}
	if i := strings.LastIndex(s[:runeStart(s, max)], ". "); i > max/2 {
		return s[:i+1]
	}
	if max < len(ellipsis) {
		return s[:runeStart(s, max)]
	}
	cut := s[:runeStart(s, max-len(ellipsis))]
	if i := strings.LastIndexByte(cut, ' '); i > max/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + ellipsis
}

// runeStart is the largest n <= max at which s can be cut without
// splitting a UTF-8 sequence.
func runeStart(s string, max int) int {
	if max >= len(s) {
		return len(s)
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

// ClipRunes shortens s to its first n runes, marking the cut with "…"
// (not counted in n). Unlike Clip it never looks for a sentence or word
// end: it keeps a quoted detail (an upstream's message, a logged value)
// as the peer wrote it, only shorter. Text that fits is returned
// unchanged.
func ClipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for range n {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i] + ellipsis
}
