package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// Seeded properties of how a request is read, over random indexes of
// random operations made of random nouns and verbs: whatever the words,
// a second verb of a group the request already says changes nothing, a
// two-word verb reads as the verb it means, and a "who" question prefers
// the operation about people. A failure prints the seed, the request and
// the operations' texts, which are short enough to be the minimal case.

// readingNouns are the nouns random operations and requests are made of;
// none is a verb, a stop word, a people word or a join of two others.
var readingNouns = []string{"widget", "gadget", "printer", "bucket", "invoice", "channel", "robot", "ticket", "garden", "planet"}

// randomOps makes n operations of one to three random nouns and maybe a
// random verb of verbGroups, with their texts for PlainIndex.
func randomOps(rng *rand.Rand, n int) ([]Op, []string) {
	var ops []Op
	var texts []string
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	for i := range n {
		var words []string
		for range 1 + rng.IntN(3) {
			words = append(words, readingNouns[rng.IntN(len(readingNouns))])
		}
		if rng.IntN(2) == 0 {
			g := verbGroups[rng.IntN(len(verbGroups))]
			words = append(words, g.words[rng.IntN(len(g.words))])
		}
		path := "/" + words[0] + "s"
		if rng.IntN(2) == 0 {
			path += "/{id}"
		}
		ops = append(ops, Op{Name: fmt.Sprintf("op%d", i), Method: methods[rng.IntN(len(methods))], Path: path})
		texts = append(texts, strings.Join(words, " "))
	}
	return ops, texts
}

// ranking is a search's result as operation names and scores, for
// comparing two searches.
func ranking(hits []Hit[Op]) string {
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s:%.6f ", h.Operation.Name, h.Score)
	}
	return b.String()
}

// TestSecondVerbOfGroupChangesNothing: "create a new widget" is "create a
// widget" when the index lacks "new": two verbs of one group are one
// slot, so the second neither counts again, nor dilutes the share of the
// request an operation matches, nor raises its synonyms' weight.
func TestSecondVerbOfGroupChangesNothing(t *testing.T) {
	ran := 0
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 211))
		ops, texts := randomOps(rng, 4+rng.IntN(8))
		idx := PlainIndex(texts)
		s, err := New(idx, ops, func(o Op) Op { return o })
		if err != nil {
			t.Fatal(err)
		}
		g := verbGroups[rng.IntN(len(verbGroups))]
		var absent []string
		for _, w := range g.words {
			// "list" also says the request is about many things.
			if !strings.Contains(idx, "\n"+stem(w)+" ") && verbGroupOf()[stem(w)] == verbGroupOf()[stem(g.words[0])] && !listWords()[w] {
				absent = append(absent, w)
			}
		}
		if len(absent) == 0 {
			continue
		}
		verb := g.words[rng.IntN(len(g.words))]
		nouns := []string{readingNouns[rng.IntN(len(readingNouns))], readingNouns[rng.IntN(len(readingNouns))]}
		query := verb + " " + strings.Join(nouns, " ")
		second := absent[rng.IntN(len(absent))]
		if stem(second) == stem(verb) || verbKinds()[stem(second)] != verbKinds()[stem(verb)] || listWords()[verb] {
			// A verb of another kind ("get" says nothing, "find"
			// reads) asks for something else.
			continue
		}
		ran++
		with := verb + " " + second + " " + strings.Join(nouns, " ")
		if a, b := ranking(s.Search(query, 10)), ranking(s.Search(with, 10)); a != b {
			t.Fatalf("seed %d: %q ranks %s\nbut %q ranks %s\noperations: %q", seed, query, a, with, b, texts)
		}
	}
	if ran < 100 {
		t.Fatalf("only %d of 300 seeds made a request with two verbs of one group", ran)
	}
}

// TestPhrasalVerbReadsAsItsVerb: "turn off the widget" is "disable the
// widget", whatever the index.
func TestPhrasalVerbReadsAsItsVerb(t *testing.T) {
	var pairs [][2]string
	for words, verb := range phrasalVerbs {
		pairs = append(pairs, [2]string{words[0] + " " + words[1], verb})
	}
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 212))
		ops, texts := randomOps(rng, 4+rng.IntN(8))
		s, err := New(PlainIndex(texts), ops, func(o Op) Op { return o })
		if err != nil {
			t.Fatal(err)
		}
		p := pairs[rng.IntN(len(pairs))]
		noun := readingNouns[rng.IntN(len(readingNouns))]
		phrasal, plain := p[0]+" the "+noun, p[1]+" the "+noun
		if a, b := ranking(s.Search(phrasal, 10)), ranking(s.Search(plain, 10)); a != b {
			t.Fatalf("seed %d: %q ranks %s\nbut %q ranks %s\noperations: %q", seed, phrasal, a, plain, b, texts)
		}
	}
}

// TestWhoAsksForPeople: of two operations alike but for one naming the
// API's people (users, members, ...), a "who" question ranks that one
// first, even when the other comes first in the index, while "which"
// leaves them tied.
func TestWhoAsksForPeople(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 213))
		ops, texts := randomOps(rng, 2+rng.IntN(6))
		noun := readingNouns[rng.IntN(len(readingNouns))]
		people := peopleWords[rng.IntN(len(peopleWords))]
		at := len(ops)
		ops = append(ops, Op{Name: "plain", Method: "GET", Path: "/" + noun + "s"}, Op{Name: "people", Method: "GET", Path: "/" + noun + "s"})
		texts = append(texts, noun+" zzlist", noun+" zzlist "+people)
		s, err := New(PlainIndex(texts), ops, func(o Op) Op { return o })
		if err != nil {
			t.Fatal(err)
		}
		query := "who is in the " + noun
		hits := s.Search(query, len(ops))
		rank := map[string]int{}
		for i, h := range hits {
			rank[h.Operation.Name] = i + 1
		}
		if rank["people"] == 0 || rank["plain"] != 0 && rank["people"] > rank["plain"] {
			t.Fatalf("seed %d: %q ranks the operation with %q at %d, the one without at %d; operations: %q (the last two at %d, %d)",
				seed, query, people, rank["people"], rank["plain"], texts, at, at+1)
		}
	}
}

// TestNameAfterCalledChangesNothing: "create a widget called printer
// bucket" is "create a widget called": the words after called, named or
// titled are the thing's own name, so nouns of the index there (up to
// the next stop word) neither find nor rank operations.
func TestNameAfterCalledChangesNothing(t *testing.T) {
	ran := 0
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 307))
		ops, texts := randomOps(rng, 4+rng.IntN(8))
		s, err := New(PlainIndex(texts), ops, func(o Op) Op { return o })
		if err != nil {
			t.Fatal(err)
		}
		g := verbGroups[rng.IntN(len(verbGroups))]
		head := g.words[rng.IntN(len(g.words))] + " the " + readingNouns[rng.IntN(len(readingNouns))]
		marker := []string{"called", "named", "titled"}[rng.IntN(3)]
		var name []string
		for range 1 + rng.IntN(3) {
			name = append(name, readingNouns[rng.IntN(len(readingNouns))])
		}
		tail := ""
		if rng.IntN(2) == 0 {
			// After a stop word the request speaks again.
			tail = " for the " + readingNouns[rng.IntN(len(readingNouns))]
		}
		with := head + " " + marker + " " + strings.Join(name, " ") + tail
		without := head + " " + marker + tail
		if got, want := ranking(s.Search(with, 5)), ranking(s.Search(without, 5)); got != want {
			t.Fatalf("seed %d: %q ranks %s, %q ranks %s; want the same\noperations: %q", seed, with, got, without, want, texts)
		}
		ran++
	}
	if ran < 200 {
		t.Fatalf("only %d requests checked", ran)
	}
}

// TestAddressesChangeNothing: an e-mail address or a URL anywhere in a
// request ("invite widget@printer.com to the channel") is a value the
// call takes, so index nouns inside it neither find nor rank operations.
func TestAddressesChangeNothing(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 401))
		ops, texts := randomOps(rng, 4+rng.IntN(8))
		s, err := New(PlainIndex(texts), ops, func(o Op) Op { return o })
		if err != nil {
			t.Fatal(err)
		}
		noun := func() string { return readingNouns[rng.IntN(len(readingNouns))] }
		g := verbGroups[rng.IntN(len(verbGroups))]
		words := []string{g.words[rng.IntN(len(g.words))], "the", noun(), "for", noun()}
		address := noun() + "." + noun() + "@" + noun() + ".com"
		if rng.IntN(2) == 0 {
			address = "https://" + noun() + ".example/" + noun() + "?q=" + noun()
		}
		at := rng.IntN(len(words) + 1)
		with := strings.Join(slices.Insert(slices.Clone(words), at, address), " ")
		without := strings.Join(words, " ")
		if got, want := ranking(s.Search(with, 5)), ranking(s.Search(without, 5)); got != want {
			t.Fatalf("seed %d: %q ranks %s, %q ranks %s; want the same\noperations: %q", seed, with, got, without, want, texts)
		}
	}
}
