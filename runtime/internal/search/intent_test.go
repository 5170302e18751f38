package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// intentCase is a request phrased for one kind of operation.
type intentCase struct {
	template string // %s: the noun, %p: its plural
	want     opKind
}

var intentCases = []intentCase{
	{"which %p are there", kindList},
	{"what %p do we have", kindList},
	{"show every %s", kindList},
	{"%p in prod", kindList},
	{"is %s abc-1 ready", kindRead},
	{"what is the state of %s x9", kindRead},
	{"remove %s x9", kindDelete},
	{"delete the old %s", kindDelete},
	{"get rid of %s 7", kindDelete},
	{"add a %s", kindCreate},
	{"make a new %s for me", kindCreate},
	{"rename %s x9 to y", kindUpdate},
	{"change the %s settings", kindUpdate},
}

// TestIntentRanksKindFirst builds, for random resource names, the five
// operations of a resource (list, read, create, update, delete) named
// alike and in a random order, so that only what a request asks for can
// tell them apart; each phrasing must rank its kind first. Seeded: a
// failure names the seed, the request and the order.
func TestIntentRanksKindFirst(t *testing.T) {
	nouns := []string{"widget", "gadget", "ticket", "printer", "bucket", "invoice", "channel", "robot"}
	kinds := []struct {
		kind         opKind
		method, path string
	}{
		{kindList, "GET", "/%p"}, {kindRead, "GET", "/%p/{id}"}, {kindCreate, "POST", "/%p"},
		{kindUpdate, "PATCH", "/%p/{id}"}, {kindDelete, "DELETE", "/%p/{id}"},
	}
	for seed := uint64(1); seed <= 100; seed++ {
		rng := rand.New(rand.NewPCG(seed, 21))
		noun := nouns[rng.IntN(len(nouns))]
		order := rng.Perm(len(kinds))
		var ops []Op
		var texts []string
		for i, k := range order {
			path := strings.ReplaceAll(kinds[k].path, "%p", noun+"s")
			ops = append(ops, Op{Name: fmt.Sprintf("op%d", i), Method: kinds[k].method, Path: path})
			texts = append(texts, fmt.Sprintf("op%d op%d %s", i, i, noun))
		}
		s, err := New(PlainIndex(texts), ops, func(o Op) Op { return o })
		if err != nil {
			t.Fatal(err)
		}
		c := intentCases[rng.IntN(len(intentCases))]
		query := strings.ReplaceAll(strings.ReplaceAll(c.template, "%p", noun+"s"), "%s", noun)
		hits := s.Search(query, 5)
		if len(hits) == 0 {
			t.Fatalf("seed %d: %q found nothing", seed, query)
		}
		if got := kindOf(hits[0].Operation); got != c.want {
			t.Fatalf("seed %d: %q ranks %s %s first (kind %d), want kind %d; order %v", seed, query,
				hits[0].Operation.Method, hits[0].Operation.Path, got, c.want, order)
		}
	}
}

// TestKindOf reads operation kinds from methods and paths, Twilio's
// ".json" paths and action paths included.
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		method, path string
		want         opKind
	}{
		{"GET", "/pods", kindList}, {"GET", "/pods/{name}", kindRead},
		{"GET", "/Accounts/{Sid}/Calls/{CallSid}.json", kindRead}, {"GET", "/Accounts/{Sid}/Calls.json", kindList},
		{"POST", "/namespaces/{ns}/pods", kindCreate}, {"POST", "/payouts/{payout}/cancel", kindAction},
		{"POST", "/calls/{sid}", kindAction}, {"PUT", "/pods/{name}", kindUpdate},
		{"PATCH", "/pods/{name}", kindUpdate}, {"DELETE", "/pods/{name}", kindDelete}, {"OPTIONS", "/", kindOther},
	} {
		if got := kindOf(Op{Method: c.method, Path: c.path}); got != c.want {
			t.Errorf("%s %s: kind %d, want %d", c.method, c.path, got, c.want)
		}
	}
}
