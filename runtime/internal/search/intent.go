package search

import (
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Intent weighting of discovery search. A request asks for one kind of
// operation (to list many things, to see one, to create, change or
// delete), and each operation is of one kind by its method and path.
// Words alone miss this: "which pods are running in the payments
// namespace" matches replace, patch, create and delete of pods as well as
// their list, since all of them name pods and namespaces. Each hit's score
// is scaled by how well its kind fits the request's.

// opKind is what an operation does, read from its method and path.
type opKind int

const (
	kindOther  opKind = iota
	kindList          // GET of a collection: /pods
	kindRead          // GET of one thing: /pods/{name}
	kindCreate        // POST to a collection
	kindAction        // POST to one thing or an action path
	kindUpdate        // PUT, PATCH
	kindDelete        // DELETE
)

// askKind is what a request asks for.
type askKind int

const (
	askUnknown askKind = iota
	askList            // "which pods ...", "list every queue"
	askRead            // "is cron job backup suspended", "show node-4"
	askCreate          // "add a webhook"
	askUpdate          // "rename the channel"
	askDelete          // "remove the service"
	askAct             // "cordon node-4", "hang up the call"
)

// intentFit is the factor a request's kind gives each operation kind; a
// kind missing from a row counts 1. The factors demote rather than
// exclude: a request's verb may be one the API spells otherwise (Stripe
// cancels a payout with POST), so the words still decide among close
// scores.
var intentFit = map[askKind]map[opKind]float64{
	askList:   {kindRead: 0.8, kindCreate: 0.55, kindAction: 0.55, kindUpdate: 0.5, kindDelete: 0.45},
	askRead:   {kindList: 0.85, kindCreate: 0.6, kindAction: 0.65, kindUpdate: 0.65, kindDelete: 0.45},
	askCreate: {kindList: 0.6, kindRead: 0.6, kindAction: 0.85, kindUpdate: 0.75, kindDelete: 0.5},
	askUpdate: {kindList: 0.6, kindRead: 0.6, kindCreate: 0.8, kindDelete: 0.5},
	askDelete: {kindList: 0.6, kindRead: 0.6, kindCreate: 0.6, kindAction: 0.85, kindUpdate: 0.6},
	askAct:    {kindList: 0.7, kindRead: 0.7, kindDelete: 0.8},
}

// kindOf reads an operation's kind from its method and path: a path
// ending in a parameter names one thing ("/pods/{name}", Twilio's
// "/Calls/{Sid}.json"); a POST whose path ends in a singular word after a
// parameter acts on that thing ("/payouts/{id}/cancel"), while a plural
// one creates ("/namespaces/{ns}/pods").
func kindOf(op Op) opKind {
	segs := strings.Split(strings.Trim(op.Path, "/"), "/")
	last := segs[len(segs)-1]
	if i := strings.LastIndexByte(last, '.'); i > 0 && strings.HasSuffix(last[:i], "}") {
		last = last[:i]
	}
	item := strings.HasSuffix(last, "}")
	switch strings.ToUpper(op.Method) {
	case "GET", "HEAD":
		if item {
			return kindRead
		}
		return kindList
	case "POST":
		word := strings.ToLower(last)
		if item || strings.Contains(op.Path, "{") && Singular(word) == word {
			return kindAction
		}
		return kindCreate
	case "PUT", "PATCH":
		return kindUpdate
	case "DELETE":
		return kindDelete
	}
	return kindOther
}

// verbKinds maps the stemmed verbs of verbGroups onto what they ask for,
// a verb of two groups onto its first group's. "get" says nothing: "get a
// shareable link" makes one, "get the pod" reads it.
var verbKinds = sync.OnceValue(func() map[string]askKind {
	out := map[string]askKind{"get": askUnknown}
	for _, g := range verbGroups {
		for _, w := range g.words {
			if _, ok := out[stem(w)]; !ok {
				out[stem(w)] = g.ask
			}
		}
	}
	return out
})

// listWords say a request is about many things even with a singular
// noun: "list every queue", "all the nodes".
var listWords = sync.OnceValue(func() map[string]bool { return textkit.WordSet("all every list each") })

// seeQuestions start a question that asks to see, whatever its verb: "what
// did I open lately" reads, "how do I delete" does not.
var seeQuestions = sync.OnceValue(func() map[string]bool { return textkit.WordSet("what which who whom whose where when is are was were") })

// ask reads what a request asks for from its words as written and as
// read: its first CRUD verb, else an order of another verb ("cordon
// node-4") acts; a question that asks to see ("what did I open lately")
// reads whatever its verb, unless it changes or deletes; about many
// things ("which pods", "every queue"), reading is listing.
func ask(raw []string, words []queryWord) askKind {
	verb := askUnknown
	many := false
	for _, w := range raw {
		many = many || listWords()[w]
	}
	for i, w := range words {
		k, isVerb := verbKinds()[w.term]
		switch {
		case isVerb && verb == askUnknown:
			verb = k
		case isVerb:
		case w.plural:
			many = true
		case i == 0 && !questionWords()[raw[0]]:
			verb = askAct
		}
	}
	switch {
	case len(raw) == 0:
	case seeQuestions()[raw[0]] && verb != askDelete && verb != askUpdate,
		questionWords()[raw[0]] && verb == askUnknown:
		verb = askRead
	}
	if many && (verb == askRead || verb == askUnknown) {
		return askList
	}
	return verb
}

// fit is the factor of an operation for what the request asks.
func (k askKind) fit(kind opKind) float64 {
	row, found := intentFit[k]
	if !found {
		return 1
	}
	if f, found := row[kind]; found {
		return f
	}
	return 1
}
