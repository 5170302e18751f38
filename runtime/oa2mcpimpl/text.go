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
