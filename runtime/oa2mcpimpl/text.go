package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime/internal/textkit"

// WithArticle puts "a" or "an" before a word, by the rule the runtime's
// messages use.
func WithArticle(word string) string { return textkit.WithArticle(word) }

// Suggest returns the candidate a misspelt word most likely meant, or "",
// by the rule of the runtime's "did you mean".
func Suggest(word string, candidates []string) string { return textkit.Suggest(word, candidates) }

// IsSecretName reports whether a name names a secret, by the rule the
// runtime redacts with; the generator never mirrors such an input into a
// header.
func IsSecretName(name string) bool { return textkit.IsSecretName(name) }

// PlainText converts Markdown and HTML prose to one line of plain text.
func PlainText(s string) string { return textkit.PlainText(s) }

// FirstSentence is the first sentence of s when it fits in max bytes,
// else s clipped to max bytes; one abbreviation list decides where a
// sentence ends.
func FirstSentence(s string, max int) string { return textkit.FirstSentence(s, max) }

// SentenceEnd is the index of the punctuation ending the first sentence
// of s, or -1.
func SentenceEnd(s string) int { return textkit.SentenceEnd(s) }

// Clip shortens s to at most max bytes, never inside a UTF-8 sequence,
// marking a cut with "…".
func Clip(s string, max int) string { return textkit.Clip(s, max) }

// JoinList renders items as prose: "a, b and c".
func JoinList(items []string) string { return textkit.JoinList(items) }

// IsDigits reports whether s holds only the ASCII digits 0-9 (true for "").
func IsDigits(s string) bool { return textkit.IsDigits(s) }

// WordSet turns a space-separated list of words into a set.
func WordSet(list string) map[string]bool { return textkit.WordSet(list) }
