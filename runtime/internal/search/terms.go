package search

import (
	"strings"
	"sync"
	"unicode"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// The words of discovery search. The generator indexes operations and the
// server reads queries with the same functions, so an operation named
// listCoreV1NamespacedPod, a path /pods and a request "show the pods" all
// meet on the term "pod".

// SearchTerms returns the search terms of text in order: its words split
// at punctuation and camelCase ("chat.postMessage" gives chat, post,
// message), lower-cased and stemmed ("Pods" and "pod", "created" and
// "create" give one term), without stop words and bare numbers.
func SearchTerms(text string) []string {
	var out []string
	for _, group := range SearchTermGroups(text) {
		out = append(out, group...)
	}
	return out
}

// SearchTermGroups is SearchTerms grouped by identifier: the terms of
// each run of letters and digits ("ReplicaSet" gives one group, replica
// and set), so callers can join neighbours into compounds ("replicaset")
// that match the same thing written as one word.
func SearchTermGroups(text string) [][]string {
	var out [][]string
	for _, ident := range identifiers(text) {
		var group []string
		for _, w := range camelWords(ident) {
			if t := searchTerm(w); t != "" {
				group = append(group, t)
			}
		}
		if len(group) > 0 {
			out = append(out, group)
		}
	}
	return out
}

// identifiers splits text into runs of letters and digits.
func identifiers(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// camelWords splits an identifier at lower-to-upper changes, at the end
// of an upper-case run ("HTTPResponse" gives HTTP, Response) and where
// ASCII meets other scripts; digits stay with the word before them
// ("V1beta1", "load5").
func camelWords(ident string) []string {
	rs := []rune(ident)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		lowerToUpper := (unicode.IsLower(prev) || unicode.IsDigit(prev)) && unicode.IsUpper(cur)
		acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		// "config的service" is two words in two scripts.
		scriptChange := (prev < unicode.MaxASCII) != (cur < unicode.MaxASCII)
		if lowerToUpper || acronymEnd || scriptChange {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// searchTerm normalizes one word; "" drops it.
func searchTerm(word string) string {
	w := strings.ToLower(word)
	if len(w) < 2 || stopWords()[w] || textkit.IsDigits(w) {
		return ""
	}
	return stem(w)
}

// stopWords carry no meaning in a request or a description.
var stopWords = sync.OnceValue(func() map[string]bool {
	return textkit.WordSet(`a an the of for to in on at by with from and or nor is are was were be been
	being am this that these those it its my me mine we our ours us you your yours i he she him her his
	they them their please can could would should will shall may might must how what which who whom
	whose when where why do does did done doing want wants need needs into onto about up some any there
	here then than so as if via per just right now also only very has have had having not no yes let lets
	one each every other such same own too again further once both more most many much few lot
	use uses used using`)
})

// irregular words the suffix rules would get wrong.
var irregular = map[string]string{
	"alias": "alias", "aliases": "alias", "canvas": "canvas", "canvases": "canvas",
	"indices": "index", "matrices": "matrix", "vertices": "vertex", "children": "child",
	"people": "person", "persons": "person", "analyses": "analysis", "string": "string",
	"strings": "string", "data": "data", "series": "series", "species": "species",
}

// stem folds plural and verb endings with a few suffix rules, the same
// on both sides of a search, so it need not give dictionary words: only
// "pod" and "pods", "namespace" and "namespaced" must meet ("namespac").
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	w = singular(w)
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		w = undouble(w[:n-2])
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// Singular is the singular of a lower-case English noun, by a few
// suffix rules and the irregular words they would get wrong ("pods" and
// "pod", "policies" and "policy", "indices" and "index"). The generator
// names and describes resources with it, and discovery search folds
// plurals with it, so both agree.
func Singular(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	return singular(w)
}

// singular drops a plural ending.
func singular(w string) string {
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && hasAnySuffix(w, "sses", "xes", "ches", "shes", "zzes"):
		return w[:n-2]
	case n > 2 && w[n-1] == 's' && !hasAnySuffix(w, "ss", "us", "is"):
		return w[:n-1]
	}
	return w
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// undouble turns "gett" and "mapp" into "get" and "map", but keeps
// "bill" and "pass".
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// verbGroups are the API verbs a request may use for one another: a
// query word also finds operations named with its group's other words, at
// a lower weight than its own. Each group asks for one kind of operation
// (see intent.go); the first sees.
var verbGroups = []verbGroup{
	{askRead, []string{"list", "show", "find", "get", "read", "retrieve", "fetch", "view", "lookup", "display", "describe", "info", "search", "browse"}},
	{askCreate, []string{"create", "add", "open", "new", "make", "post", "insert", "register", "generate", "issue", "start", "setup"}},
	{askDelete, []string{"delete", "remove", "kill", "destroy", "erase", "drop", "purge", "terminate", "cancel", "kick", "wipe", "end"}},
	{askUpdate, []string{"update", "edit", "change", "patch", "modify", "set", "replace", "rename", "alter", "adjust", "put", "configure", "close", "reopen"}},
	{askAct, []string{"enable", "activate", "unsuspend", "resume"}},
	{askAct, []string{"disable", "deactivate", "suspend", "pause"}},
	{askAct, []string{"renew", "extend", "refresh", "prolong"}},
}

// verbGroup is one group of verbGroups.
type verbGroup struct {
	ask   askKind
	words []string
}
