package discover

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// TestVocabularyTables reads both tables and refuses a malformed line
// with its file and line.
func TestVocabularyTables(t *testing.T) {
	for name, text := range map[string]string{"english.txt": english, "software.txt": software, "wordnet.txt": wordnet} {
		if err := readVocabulary(name, text, map[string][]string{}); err != nil {
			t.Error(err)
		}
	}
	err := readVocabulary("x.txt", "# head\nnode machine\n", map[string][]string{})
	if err == nil || !strings.HasPrefix(err.Error(), "x.txt:2: ") {
		t.Errorf("a line without a colon: got %v, want an error at x.txt:2", err)
	}
}

// TestRelatedWordsRankBelowOwn checks, for random operations naming a
// concept of the tables, that the concept's related words find the
// operation, and count less than the same word among its own: seeded,
// so a failure names its input. WordNet's words, a general resource,
// count at most maxWordNetShare of an own name word.
func TestRelatedWordsRankBelowOwn(t *testing.T) {
	t.Run("hand tables", func(t *testing.T) { relatedBelowOwn(t, vocabulary(), handVocabulary(), false) })
	wn := withWordNet()
	t.Run("wordnet.txt", func(t *testing.T) { relatedBelowOwn(t, wn.wordnet, wn, true) })
}

// maxWordNetShare bounds a WordNet word's weight against the same word
// in an operation's name.
const maxWordNetShare = 0.6

// relatedBelowOwn is TestRelatedWordsRankBelowOwn for one table.
func relatedBelowOwn(t *testing.T, vocabulary map[string][]string, v related, general bool) {
	var concepts []string
	for c := range vocabulary {
		concepts = append(concepts, c)
	}
	slices.Sort(concepts)
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		concept := concepts[rng.IntN(len(concepts))]
		related := vocabulary[concept]
		word := related[rng.IntN(len(related))]
		if word == concept || !stable(word) || !stable(concept) {
			// A stem that stems further ("attende") is met by the
			// request's word, not by a name of its own.
			continue
		}
		docs := []Doc{
			// No method: its verbs ("get", "list") would count as own
			// words of both operations.
			{Name: "list_" + concept, Path: "/" + concept},
			{Name: "list_" + word, Path: "/" + word},
			{Name: "noise", Path: "/noise", Summary: "Unrelated words entirely"},
		}
		terms := indexTerms(t, docs, v)
		w := terms[word]
		if w[0] <= 0 || w[1] <= 0 {
			t.Fatalf("seed %d: concept %q, related %q: postings %v, want both operations", seed, concept, word, w)
		}
		if w[0] >= w[1] {
			t.Fatalf("seed %d: concept %q, related %q: weight %.3f via the table, %.3f as its own word; want less", seed, concept, word, w[0], w[1])
		}
		if general && w[0] > maxWordNetShare*w[1] {
			t.Fatalf("seed %d: concept %q, WordNet's %q: weight %.3f via WordNet, %.3f as its own word; want at most %.1f of it", seed, concept, word, w[0], w[1], maxWordNetShare)
		}
	}
}

// indexTerms encodes docs and reads back each term's weight per
// operation.
func indexTerms(t *testing.T, docs []Doc, v related) map[string][]float64 {
	t.Helper()
	bags := make([]*bag, len(docs))
	for i, d := range docs {
		bags[i] = docBag(d, v)
	}
	out := map[string][]float64{}
	for _, it := range weigh(bags) {
		w := make([]float64, len(docs))
		for _, p := range it.Postings {
			w[p.Op] = p.Weight
		}
		out[it.Term] = w
	}
	return out
}

// stable reports whether a stem is its own search term.
func stable(stem string) bool {
	t := oa2mcpimpl.SearchTerms(stem)
	return len(t) == 1 && t[0] == stem
}
