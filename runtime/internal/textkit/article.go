package textkit

import "strings"

// WithArticle puts "a" or "an" before a word, by its first letter: "an"
// before a, e, i and o. Not before u: "a user", "a uuid" and "a URL" read
// right far more often than "an update". The generator's messages and
// drafted descriptions use the same rule.
func WithArticle(word string) string {
	if word != "" && strings.ContainsRune("aeioAEIO", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
