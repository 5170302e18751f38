package discover

import (
	"context"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// rankedSpec is one corpus spec indexed with and without WordNet's
// words.
type rankedSpec struct {
	name          string
	docs          []Doc
	bags          []*bag
	with, without *oa2mcpimpl.Searcher
}

// TestOwnWordOutranksWordNetWord picks random words of the corpus specs
// that one operation holds in its name (O) and another of the same kind
// only through WordNet (P): a search for the word ranks O above P.
// Seeded; a failure prints the seed and the pair.
func TestOwnWordOutranksWordNetWord(t *testing.T) {
	type pair struct {
		s        *rankedSpec
		word     string
		own, via []int
	}
	var pairs []pair
	for _, s := range rankedSpecs(t) {
		words := map[string]bool{}
		for _, b := range s.bags {
			for w := range b.counts[fieldWordNet] {
				words[w] = true
			}
		}
		for _, w := range slices.Sorted(maps.Keys(words)) {
			pr := pair{s: s, word: w}
			for i, b := range s.bags {
				switch {
				case b.counts[fieldName][w] > 0:
					pr.own = append(pr.own, i)
				case b.counts[fieldWordNet][w] > 0 && !b.ownsAny([]string{w}):
					pr.via = append(pr.via, i)
				}
			}
			if len(pr.own) > 0 && len(pr.via) > 0 {
				pairs = append(pairs, pr)
			}
		}
	}
	if len(pairs) < 50 {
		t.Fatalf("only %d words of the corpus are both some operation's own and another's through WordNet; want at least 50", len(pairs))
	}
	checked := 0
	for seed := uint64(1); seed <= 2000 && checked < 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 13))
		pr := pairs[rng.IntN(len(pairs))]
		s, o, p := pr.s, pr.own[rng.IntN(len(pr.own))], pr.via[rng.IntN(len(pr.via))]
		if !sameKind(s.docs[o], s.docs[p]) {
			// Intent weighting may rank another kind of operation
			// lower whatever its words (a DELETE for a bare noun).
			continue
		}
		checked++
		ranks := s.ranks(s.with, pr.word, len(s.docs))
		if rankOf(ranks, p) < rankOf(ranks, o) {
			t.Fatalf("seed %d: %s, query %q: %s holds it only through WordNet but ranks %d, above %s, whose name holds it, at %d", seed, s.name, pr.word, s.docs[p].OperationID, rankOf(ranks, p)+1, s.docs[o].OperationID, rankOf(ranks, o)+1)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d pairs of one kind checked; want at least 100", checked)
	}
}

// sameKind reports whether two operations are of one kind for intent
// weighting: one method, both on one thing or both on a collection.
func sameKind(a, b Doc) bool {
	item := func(d Doc) bool { return strings.HasSuffix(strings.TrimRight(d.Path, "/"), "}") }
	return a.Method == b.Method && item(a) == item(b)
}

// ranked holds the corpus specs the WordNet ranking tests share,
// indexed once per test binary: indexing them takes seconds.
var (
	rankedOnce sync.Once
	ranked     []*rankedSpec
)

// rankedSpecs are the corpus specs of 150 operations or more, indexed.
func rankedSpecs(t *testing.T) []*rankedSpec {
	t.Helper()
	rankedOnce.Do(func() {
		for _, e := range testenv.Corpus() {
			doc, problems := load.Load(context.Background(), filepath.Join(testenv.CorpusDir(t), e.Path), load.Options{})
			if problems.HasErrors() {
				t.Fatalf("%s: %v", e.Path, problems.Errors())
			}
			if len(doc.Operations) >= 150 {
				ranked = append(ranked, rankSpec(t, e.Name, doc))
			}
		}
	})
	if len(ranked) < 4 {
		t.Fatalf("want at least 4 corpus specs of 150 operations or more, found %d", len(ranked))
	}
	return ranked
}

// rankSpec indexes a spec's operations with and without WordNet's field.
func rankSpec(t *testing.T, name string, doc *load.Document) *rankedSpec {
	t.Helper()
	s := &rankedSpec{name: name}
	var plain []*bag
	wn := withWordNet()
	for _, op := range doc.Operations {
		d := Doc{Name: op.ID, OperationID: op.ID, Method: op.Method, Path: op.Path, Tags: op.Tags,
			Summary: oa2mcpimpl.PlainText(op.Summary), Description: oa2mcpimpl.PlainText(op.Description)}
		s.docs = append(s.docs, d)
		s.bags = append(s.bags, docBag(d, wn))
		plain = append(plain, docBag(d, handVocabulary()))
	}
	s.with = searcher(t, s.docs, s.bags)
	s.without = searcher(t, s.docs, plain)
	return s
}

// searcher is the server's searcher over bags.
func searcher(t *testing.T, docs []Doc, bags []*bag) *oa2mcpimpl.Searcher {
	t.Helper()
	index, err := oa2mcpimpl.EncodeSearchIndex(len(bags), weigh(bags))
	if err != nil {
		t.Fatal(err)
	}
	def := &runtime.Discovery{Index: index}
	for _, d := range docs {
		def.Operations = append(def.Operations, &runtime.Discoverable{Tool: &runtime.Tool{Name: d.Name,
			Op: &runtime.Operation{OperationID: d.OperationID, Method: d.Method, Path: d.Path}}})
	}
	s, err := oa2mcpimpl.NewSearcher(def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ranks maps the first limit hits of query onto their rank.
func (s *rankedSpec) ranks(sr *oa2mcpimpl.Searcher, query string, limit int) map[int]int {
	out := map[int]int{}
	for i, h := range sr.Search(query, limit) {
		out[s.index(h.Operation.Tool.Op.OperationID)] = i
	}
	return out
}

func (s *rankedSpec) index(id string) int {
	return slices.IndexFunc(s.docs, func(d Doc) bool { return d.OperationID == id })
}

// rankOf is op's rank, past the hits when it is not among them.
func rankOf(ranks map[int]int, op int) int {
	if r, ok := ranks[op]; ok {
		return r
	}
	return len(ranks) + 1
}

// ownsAny reports whether the operation's own text (not the vocabulary
// fields, not its method's verbs) holds one of terms.
func (b *bag) ownsAny(terms []string) bool {
	for f := range b.counts {
		if f == fieldRelated || f == fieldWordNet || f == fieldMethod {
			continue
		}
		for _, t := range terms {
			if b.counts[f][t] > 0 {
				return true
			}
		}
	}
	return false
}
