package discover

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Vocabulary beyond the spec's own words. A request says "machines" where
// Kubernetes says nodes, "servers" where DigitalOcean says droplets,
// "thrown away" where Box says trash; no word of the spec links the two.
// Two small tables, read at generation time, add the everyday words of a
// concept to every operation that names it, in a field of their own that
// counts less than the operation's own words: the index grows by the
// postings of those words only, and the server needs no table, network
// or model.

// english are general English related words; software are what people
// call software concepts; wordnet are the related words WordNet gives the
// words APIs use, derived from the WordNet database by
// internal/wordnet (TestWordNetTable re-derives it). See the files'
// heads for their format.
var (
	//go:embed vocabulary/english.txt
	english string
	//go:embed vocabulary/software.txt
	software string
	//go:embed vocabulary/wordnet.txt
	wordnet string
)

// vocabulary maps a stemmed concept onto its related stemmed words, from
// both hand tables; read on first use, not at every start of the CLI.
var vocabulary = sync.OnceValue(func() map[string][]string {
	return mustVocabulary(map[string]string{"english.txt": english, "software.txt": software})
})

// related is the vocabulary an index adds: the hand tables' words
// (fieldRelated) and WordNet's (fieldWordNet), each a map from a stemmed
// concept onto its related stemmed words; nil adds none.
type related struct{ hand, wordnet map[string][]string }

// handVocabulary is what Index adds: the hand tables only. WordNet's
// table moved no half of the held-out set by more than a request, in
// every variant measured, and grows the index by 10 to 20%
// (docs/discovery.md, "Quality"); indexWith(docs, withWordNet()) adds
// it.
func handVocabulary() related { return related{hand: vocabulary()} }

// withWordNet is the hand tables and WordNet's table, read from the
// compiled-in text on each call: only measurements use it.
func withWordNet() related {
	return related{hand: vocabulary(), wordnet: mustVocabulary(map[string]string{"wordnet.txt": wordnet})}
}

// mustVocabulary reads compiled-in tables, by file name.
func mustVocabulary(tables map[string]string) map[string][]string {
	out := map[string][]string{}
	for name, text := range tables {
		if err := readVocabulary(name, text, out); err != nil {
			// The tables are compiled in; TestVocabularyTables names the
			// line.
			panic(err)
		}
	}
	return out
}

// readVocabulary adds the lines of one table to out.
func readVocabulary(name, text string, out map[string][]string) error {
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		concept, words, ok := strings.Cut(line, ":")
		key := oa2mcpimpl.SearchTerms(concept)
		related := oa2mcpimpl.SearchTerms(words)
		if !ok || len(key) != 1 || len(related) == 0 {
			return fmt.Errorf("%s:%d: want \"concept: words\" with one concept word and at least one related word, got %q", name, i+1, line)
		}
		out[key[0]] = append(out[key[0]], related...)
	}
	return nil
}

// addRelated counts, once each, the related words in v of the terms an
// operation's name, summary, tags and path hold: the hand tables' in
// fieldRelated, WordNet's in fieldWordNet.
func (b *bag) addRelated(v related) {
	for _, f := range []int{fieldName, fieldSummary, fieldTags, fieldPath} {
		for t := range b.counts[f] {
			for _, r := range v.hand[t] {
				b.add(fieldRelated, r, 1, true)
			}
			for _, r := range v.wordnet[t] {
				b.add(fieldWordNet, r, 1, true)
			}
		}
	}
}
