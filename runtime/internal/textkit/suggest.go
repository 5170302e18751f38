package textkit

import "strings"

// Suggest returns the candidate a misspelt word most likely meant: the
// closest by edit distance, ignoring case, within two edits and half the
// word's length; "" when none is that close. The runtime's "did you
// mean" and the generator's use this one rule.
func Suggest(word string, candidates []string) string {
	best, bestD := "", min(3, len(word)/2+1)
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if d := EditDistance(lw, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of two short strings, by
// bytes; longer strings count as far apart, which bounds the work.
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
