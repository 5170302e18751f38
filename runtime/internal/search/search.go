package search

import (
	"sort"
	"sync"
)

// Ranking of discovery search. Each thing the request says is a slot: a
// term, the verbs that may stand for it, or the longer words it begins
// when the index lacks it ("evict" finds "eviction"). An operation scores
// the best weight (BM25F, computed by the generator into the index) of
// each slot it matches, times the term's rarity; a verb found through a
// synonym counts less, and without the rarity of the synonym, so "make"
// does not prefer the rare "post" to the common "create". The sum is
// scaled by the share of the request an operation matches, and by the
// share of its own name the request covers: "delete droplet" prefers
// droplets_destroy to droplets_destroy_with_associated_resources.

const (
	// nameShare is how much an operation's name coverage counts.
	nameShare = 0.4
	// rerank is how many operations the name coverage reorders.
	rerank = 50
)

// Op is what ranking reads of an operation besides the index: its name
// (the operationId, else the tool name), method and path.
type Op struct {
	Name, Method, Path string
}

// Searcher ranks operations of type T (a server's discoverable
// operations) for requests in plain words. It is safe for concurrent use.
type Searcher[T any] struct {
	ops   []T
	names []string // each operation's Op.Name, for name coverage
	idx   *searchIndex
	terms []string // the index terms, sorted, for prefix lookups
	syn   map[string][]synonym
	// verbIDF is the rarity each verb counts at.
	verbIDF map[string]float64
	// kinds are the operations' kinds, for intent weighting.
	kinds []opKind
}

// synonym is a verb that may stand for another, with the rarity it
// counts at: the most common of its group's.
type synonym struct {
	term  string
	entry indexEntry
	idf   float64
}

// listMarker names listings in some APIs ("AllCustomers"); it counts as
// common as "list".
const listMarker = "all"

// verbs are the stemmed verbs of verbGroups, true for the verbs of
// seeing ("show", "list", "get"). This and the package's other word
// tables are built on first use, not at package initialisation: every
// generated server and the generator import the package, and most of
// them never search (0.25 ms of each process's start otherwise).
var verbs = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for i, g := range verbGroups {
		for _, w := range g.words {
			out[stem(w)] = out[stem(w)] || i == 0
		}
	}
	return out
})

// verbGroupOf maps each stemmed verb onto its first group in verbGroups.
var verbGroupOf = sync.OnceValue(func() map[string]int {
	out := map[string]int{}
	for i, g := range verbGroups {
		for _, w := range g.words {
			if _, ok := out[stem(w)]; !ok {
				out[stem(w)] = i
			}
		}
	}
	return out
})

// idf is a term's rarity as ranking counts it: a verb counts as common
// as its group's most common, since that "show" is rare in an API's
// prose makes it no better a sign of what the user wants.
func (s *Searcher[T]) idf(term string, e indexEntry) float64 {
	if v, ok := s.verbIDF[term]; ok {
		return v
	}
	return e.idf
}

// New decodes index, the encoded index of ops; describe tells ranking
// each operation's name, method and path.
func New[T any](index string, ops []T, describe func(T) Op) (*Searcher[T], error) {
	idx, err := decodeSearchIndex(index, len(ops))
	if err != nil {
		return nil, err
	}
	s := &Searcher[T]{ops: ops, idx: idx}
	s.terms = make([]string, 0, len(idx.terms))
	for t := range idx.terms {
		s.terms = append(s.terms, t)
	}
	sort.Strings(s.terms)
	s.syn = s.synonyms()
	s.kinds = make([]opKind, len(ops))
	s.names = make([]string, len(ops))
	for i, op := range ops {
		d := describe(op)
		s.kinds[i], s.names[i] = kindOf(d), d.Name
	}
	return s, nil
}

// synonyms maps each stemmed verb onto the other verbs of its groups
// that the index holds.
func (s *Searcher[T]) synonyms() map[string][]synonym {
	out := map[string][]synonym{}
	s.verbIDF = map[string]float64{}
	for _, g := range verbGroups {
		var stems []string
		common, found := 0.0, false
		for _, w := range g.words {
			st := stem(w)
			stems = append(stems, st)
			if e, ok := s.idx.terms[st]; ok && (!found || e.idf < common) {
				common, found = e.idf, true
			}
		}
		if g.words[0] == "list" {
			s.verbIDF[listMarker] = common
		}
		for _, a := range stems {
			if v, ok := s.verbIDF[a]; !ok || common < v {
				s.verbIDF[a] = common
			}
			for _, b := range stems {
				if e, ok := s.idx.terms[b]; ok && a != b {
					out[a] = append(out[a], synonym{b, e, common})
				}
			}
		}
	}
	return out
}

// Hit is one operation a search found.
type Hit[T any] struct {
	Operation T
	Score     float64
	// at is the operation's position, for name coverage.
	at int
}

// Search returns at most limit operations for query, best first; ties
// keep the operations' order.
func (s *Searcher[T]) Search(query string, limit int) []Hit[T] {
	req := readRequest(query)
	slots, known := s.slots(req)
	if known == 0 || limit <= 0 {
		return nil
	}
	n := len(s.ops)
	scores := make([]float64, n)
	quality := make([]float64, n)
	best := make([]float64, n)
	bestQ := make([]float64, n)
	var touched []int32
	for _, sl := range slots {
		touched = touched[:0]
		for _, a := range sl.alts {
			for _, p := range a.entry.postings {
				v := a.factor * a.idf * float64(p.weight)
				if best[p.op] == 0 {
					touched = append(touched, p.op)
				}
				best[p.op] = max(best[p.op], v)
				bestQ[p.op] = max(bestQ[p.op], a.quality*float64(p.weight))
			}
		}
		counts := sl.counts()
		for _, op := range touched {
			scores[op] += best[op]
			if counts {
				quality[op] += bestQ[op]
			}
			best[op], bestQ[op] = 0, 0
		}
	}
	for op := range scores {
		scores[op] *= req.ask.fit(s.kinds[op])
	}
	return s.top(scores, quality, known, limit, matchedTerms(slots))
}

// counts reports whether a match of the slot counts towards how much of
// the request an operation matches: an implicit intent does not, nor a
// compound whose words count on their own.
func (sl querySlot) counts() bool { return !sl.implicit && len(sl.covers) == 0 }

// matchedTerms are the index terms the request stands for, its implied
// intents included.
func matchedTerms(slots []querySlot) map[string]bool {
	out := map[string]bool{}
	for _, sl := range slots {
		for _, a := range sl.alts {
			out[a.term] = true
		}
	}
	return out
}

// top ranks the scored operations: by score times the share of the
// request matched (a word found in a name counts more than one found in
// passing in a description), then the best of them again by how much of
// their own name the request covers.
func (s *Searcher[T]) top(scores, quality []float64, known, limit int, terms map[string]bool) []Hit[T] {
	var hits []Hit[T]
	for op, sc := range scores {
		if quality[op] == 0 {
			continue
		}
		hits = append(hits, Hit[T]{Operation: s.ops[op], at: op, Score: sc * quality[op] / float64(known)})
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > rerank {
		hits = hits[:rerank]
	}
	for i := range hits {
		hits[i].Score *= 1 - nameShare + nameShare*s.nameCoverage(s.names[hits[i].at], terms)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].Score > hits[j].Score })
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// nameCoverage is the share of an operation's name (by rarity) that the
// request's terms cover.
func (s *Searcher[T]) nameCoverage(name string, terms map[string]bool) float64 {
	total, hit := 0.0, 0.0
	seen := map[string]bool{}
	for _, t := range SearchTerms(name) {
		e, ok := s.idx.terms[t]
		if !ok || seen[t] {
			continue
		}
		seen[t] = true
		idf := s.idf(t, e)
		total += idf
		if terms[t] {
			hit += idf
		}
	}
	if total == 0 {
		return 0
	}
	return hit / total
}
