package search

import (
	"sort"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Reading a request for ranking: its words become query slots, and what
// it implies without saying (to see, to list, to act) becomes implicit
// slots that only nudge the ranking.

const (
	// synonymFactor discounts a term found through a synonym, and
	// loneSynonymFactor when the request's own word is not in the index.
	synonymFactor     = 0.5
	loneSynonymFactor = 0.8
	// prefixFactor discounts a longer word found for an unknown term.
	prefixFactor = 0.7
	// maxPrefixTerms bounds the longer words one term stands for.
	maxPrefixTerms = 8
	// minPrefixLen is the shortest term that may stand for longer ones.
	minPrefixLen = 4
	// readFactor and listFactor weigh the implicit read intent of a
	// request without a verb ("which nodes are there") or about many
	// things ("show the ingresses").
	readFactor = 0.2
	listFactor = 0.35
	// actionFactor weighs the implicit action of an order whose verb is
	// no CRUD verb.
	actionFactor = 0.3
	// whoFactor weighs the people a "who" question implies.
	whoFactor = 0.4
	// maxQuerySlots bounds the slots of one request.
	maxQuerySlots = 32
)

// querySlot is one thing the request says: the index terms that stand
// for it, each with its factor. A compound slot ("config map" as
// "configmap") covers the words it joins when the index knows them, else
// is a word of its own; an implicit slot is an intent the request does
// not say (see implied).
type querySlot struct {
	alts     []slotAlt
	covers   []int
	implicit bool
}

type slotAlt struct {
	term   string
	entry  indexEntry
	factor float64
	idf    float64
	// quality is how fully a match says what the slot says: a longer
	// word ("eviction" for "evict") does, a synonym less so.
	quality float64
}

// slots turns a request into query slots, and counts the slots the index
// knows anything about: words it has never seen ("nginx", "prod") say
// nothing about which operation is meant.
func (s *Searcher[T]) slots(req request) ([]querySlot, int) {
	var slots []querySlot
	pos := map[string]int{}
	groupSlot := map[int]int{}
	var terms []string
	in := intent{question: req.question, who: req.who}
	for i, w := range req.words {
		terms = append(terms, w.term)
		read, isVerb := verbs()[w.term]
		switch {
		case isVerb:
			in.verb = true
			in.readVerb = in.readVerb || read
		case w.plural:
			// A request may start with what it is about: "pods in prod".
			in.plural = true
			in.question = in.question || i == 0
		case i == 0:
			in.imperative = !req.question
		}
		if _, dup := pos[w.term]; dup || w.weak || len(slots) == maxQuerySlots {
			continue
		}
		sl := s.slot(w.term)
		if len(sl.alts) == 0 {
			continue
		}
		if g, ok := verbGroupOf()[w.term]; ok {
			// "create a new group" says create once: two verbs of one
			// group are one slot, or "new" would count again in
			// createNewClientSecret. The second verb adds only itself:
			// its synonyms are the first's, at the first's factor.
			if at, seen := groupSlot[g]; seen {
				pos[w.term] = at
				for _, a := range sl.alts {
					if a.term == w.term {
						slots[at].alts = append(slots[at].alts, a)
					}
				}
				continue
			}
			groupSlot[g] = len(slots)
		}
		pos[w.term] = len(slots)
		slots = append(slots, sl)
	}
	known := len(slots)
	for _, c := range s.compounds(terms, pos, maxQuerySlots-len(slots)) {
		if len(c.covers) == 0 {
			known++
		}
		slots = append(slots, c)
	}
	return append(slots, s.implied(in)...), known
}

// intent is what a request implies besides its words.
type intent struct {
	question   bool // "which nodes ...": to see something
	verb       bool // it has a known verb
	readVerb   bool // ... one of seeing ("show", "list", "get")
	imperative bool // it starts with a word other than a known verb: "pin this message"
	plural     bool // it is about many things: "the ingresses"
	who        bool // it asks who: about people
}

// slot is the slot of one term: the term itself, its synonyms, else the
// longer words it begins.
func (s *Searcher[T]) slot(t string) querySlot {
	var sl querySlot
	synFactor := synonymFactor
	if e, ok := s.idx.terms[t]; ok {
		sl.alts = append(sl.alts, slotAlt{t, e, 1, s.idf(t, e), 1})
	} else if len(t) >= minPrefixLen {
		i := sort.SearchStrings(s.terms, t)
		for ; i < len(s.terms) && strings.HasPrefix(s.terms[i], t) && len(sl.alts) < maxPrefixTerms; i++ {
			e := s.idx.terms[s.terms[i]]
			sl.alts = append(sl.alts, slotAlt{s.terms[i], e, prefixFactor, e.idf, 1})
		}
	}
	if len(sl.alts) == 0 {
		// The request's own verb is not in the index: its synonyms are
		// all that stands for it.
		synFactor = loneSynonymFactor
	}
	for _, syn := range s.syn[t] {
		sl.alts = append(sl.alts, slotAlt{syn.term, syn.entry, synFactor, syn.idf, synFactor})
	}
	return sl
}

// implied adds the intents a request implies without saying: a question
// asks to see something, and about many things to list them; an order
// whose verb is no CRUD verb ("pin this message", "evict the pod") most
// likely acts, which APIs do with POST.
func (s *Searcher[T]) implied(in intent) []querySlot {
	var out []querySlot
	add := func(verb string, factor float64) {
		t := stem(verb)
		sl := querySlot{implicit: true}
		if e, ok := s.idx.terms[t]; ok {
			sl.alts = append(sl.alts, slotAlt{t, e, factor, s.idf(t, e), 0})
		}
		switch verb {
		case "create":
			// An action is any of create's synonyms: "add", "post".
			for _, syn := range s.syn[t] {
				sl.alts = append(sl.alts, slotAlt{syn.term, syn.entry, factor * synonymFactor, syn.idf, 0})
			}
		case "list":
			// Some APIs name listings "all": Stripe's AllCustomers.
			if e, ok := s.idx.terms[listMarker]; ok {
				sl.alts = append(sl.alts, slotAlt{listMarker, e, factor * synonymFactor, s.idf(listMarker, e), 0})
			}
		}
		if len(sl.alts) > 0 {
			out = append(out, sl)
		}
	}
	if in.who {
		out = append(out, s.people()...)
	}
	switch {
	case in.question:
		add("get", readFactor)
		add("list", listFactor)
	case in.imperative && !in.verb:
		add("create", actionFactor)
	case in.plural && in.readVerb:
		add("list", listFactor)
	}
	return out
}

// peopleWords are what APIs call people; a "who" question asks for them.
var peopleWords = []string{"user", "member", "person", "collaborator", "people"}

// people is the implicit slot of a "who" question ("who is in the
// marketing team"): the request names a group, but asks for its people,
// whatever the API calls them.
func (s *Searcher[T]) people() []querySlot {
	sl := querySlot{implicit: true}
	for _, w := range peopleWords {
		t := stem(w)
		if e, ok := s.idx.terms[t]; ok {
			sl.alts = append(sl.alts, slotAlt{t, e, whoFactor, s.idf(t, e), 0})
		}
	}
	if len(sl.alts) == 0 {
		return nil
	}
	return []querySlot{sl}
}

// compounds are the neighbouring word pairs of the request that the
// index knows as one word: "config map" also finds "configmaps".
func (s *Searcher[T]) compounds(terms []string, pos map[string]int, room int) []querySlot {
	var out []querySlot
	seen := map[string]bool{}
	for i := 0; i+1 < len(terms) && len(out) < room; i++ {
		c := terms[i] + terms[i+1]
		e, ok := s.idx.terms[c]
		if !ok || seen[c] {
			continue
		}
		seen[c] = true
		sl := querySlot{alts: []slotAlt{{c, e, 1, e.idf, 1}}}
		for _, t := range terms[i : i+2] {
			if p, ok := pos[t]; ok {
				sl.covers = append(sl.covers, p)
			}
		}
		out = append(out, sl)
	}
	return out
}

// phrasalVerbs are two-word verbs a request may use, with the verb they
// mean: "set up a webhook" creates one.
var phrasalVerbs = map[[2]string]string{
	{"set", "up"}: "create", {"spin", "up"}: "create", {"look", "up"}: "find",
	{"tear", "down"}: "delete", {"sign", "up"}: "register", {"get", "rid"}: "delete",
	{"throw", "away"}: "delete", {"shut", "down"}: "shutdown",
	{"turn", "off"}: "disable", {"switch", "off"}: "disable", {"kick", "off"}: "start",
	{"turn", "on"}: "enable", {"switch", "on"}: "enable",
	{"read", "aloud"}: "speak", {"read", "out"}: "speak", {"hang", "up"}: "end",
}

// questionWords start a request that asks to see something.
var questionWords = sync.OnceValue(func() map[string]bool {
	return textkit.WordSet("what which who whom whose where when how is are was were do does did can could any")
})

// weakWords are no slot of their own but join compounds: "all" says
// little alone, yet "all namespaces" names listPodForAllNamespaces.
var weakWords = map[string]bool{"all": true}

// nameMarkers are words after which a request names a thing in its own
// words.
var nameMarkers = map[string]bool{"called": true, "named": true, "titled": true}

// queryWord is one word of a request.
type queryWord struct {
	term   string
	plural bool // written as a plural: "pods"
	weak   bool
}

// request is a request read for ranking.
type request struct {
	words []queryWord
	// question: it starts with a question word ("which nodes ...").
	question bool
	// ask is the kind of operation it asks for.
	ask askKind
	// who: it starts with "who", asking about people.
	who bool
}

// readRequest reads a request as SearchTerms does, keeping what ranking
// needs besides the terms.
func readRequest(query string) request {
	var words []string
	for _, ident := range identifiers(withoutAddresses(query)) {
		for _, w := range camelWords(ident) {
			words = append(words, strings.ToLower(w))
		}
	}
	r := request{question: len(words) > 0 && questionWords()[words[0]]}
	r.who = len(words) > 0 && (words[0] == "who" || words[0] == "whom")
	r.words = queryWords(words)
	r.ask = ask(words, r.words)
	return r
}

// withoutAddresses drops the e-mail addresses and URLs of a request
// ("invite carol@example.com"): they are values the call takes, and their
// words ("example", "com") are nobody's API.
func withoutAddresses(query string) string {
	fields := strings.Fields(query)
	kept := fields[:0]
	for _, f := range fields {
		if !strings.Contains(f, "@") && !strings.Contains(f, "://") {
			kept = append(kept, f)
		}
	}
	return strings.Join(kept, " ")
}

// queryWords reads the words of a request: phrasal verbs joined, stop
// words dropped, weak words kept for compounds.
func queryWords(words []string) []queryWord {
	var out []queryWord
	for i := 0; i < len(words); i++ {
		w := words[i]
		if i+1 < len(words) {
			if v, ok := phrasalVerbs[[2]string{w, words[i+1]}]; ok {
				w = v
				i++
			}
		}
		t := searchTerm(w)
		if nameMarkers[w] {
			// "a team called data science": the words after it are the
			// thing's name, not the API's.
			for i+1 < len(words) && searchTerm(words[i+1]) != "" {
				i++
			}
		}
		if t == "" && !weakWords[w] {
			continue
		}
		if weakWords[w] {
			t = w
		}
		out = append(out, queryWord{term: t, plural: Singular(w) != w, weak: weakWords[w]})
	}
	return out
}
