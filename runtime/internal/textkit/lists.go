package textkit

import (
	"slices"
	"strconv"
	"strings"
)

// QuoteAll renders names as a comma-separated list of Go-quoted strings,
// the form messages use to list allowed values.
func QuoteAll(names []string) string {
	q := make([]string, len(names))
	for i, s := range names {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// SortedKeys returns the keys of m in order, so that messages and output
// built from a map do not depend on Go's map iteration order.
func SortedKeys[V any](m map[string]V) []string {
	// One allocation of the right size: the schema compiler sorts the
	// keys of every schema object, and collecting an iterator grows the
	// slice step by step.
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
