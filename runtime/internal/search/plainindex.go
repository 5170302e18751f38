package search

import "sort"

// PlainIndex encodes an index of len(texts) operations in which each
// operation holds the terms of its text with equal weights and every term
// is equally rare: enough for tests of what serves the ranking; the
// generator builds the real index (BM25F) from the whole document.
func PlainIndex(texts []string) string {
	postings := map[string][]Posting{}
	for i, text := range texts {
		seen := map[string]bool{}
		for _, t := range SearchTerms(text) {
			if !seen[t] {
				seen[t] = true
				postings[t] = append(postings[t], Posting{Op: i, Weight: 1})
			}
		}
	}
	terms := make([]IndexTerm, 0, len(postings))
	for t, ps := range postings {
		terms = append(terms, IndexTerm{Term: t, IDF: 1, Postings: ps})
	}
	sort.Slice(terms, func(i, j int) bool { return terms[i].Term < terms[j].Term })
	idx, err := EncodeSearchIndex(len(texts), terms)
	if err != nil {
		panic(err) // SearchTerms makes only valid terms, sorted above
	}
	return idx
}
