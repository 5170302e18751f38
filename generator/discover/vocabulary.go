package discover

import (
	_ "embed"
	"fmt"
	"strings"

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
// call software concepts. See the files' heads for their format.
var (
	//go:embed vocabulary/english.txt
	english string
	//go:embed vocabulary/software.txt
	software string
)

// vocabulary maps a stemmed concept onto its related stemmed words, from
// both tables.
var vocabulary = func() map[string][]string {
	out := map[string][]string{}
	for name, text := range map[string]string{"english.txt": english, "software.txt": software} {
		if err := readVocabulary(name, text, out); err != nil {
			// The tables are compiled in; TestVocabularyTables names the
			// line.
			panic(err)
		}
	}
	return out
}()

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

// addRelated counts, once each, the related words of the terms an
// operation's name, summary, tags and path hold.
func (b *bag) addRelated() {
	for _, f := range []int{fieldName, fieldSummary, fieldTags, fieldPath} {
		for t := range b.counts[f] {
			for _, r := range vocabulary[t] {
				b.add(fieldRelated, r, 1, true)
			}
		}
	}
}
