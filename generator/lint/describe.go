package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Phrases the description rules look for. They are heuristics tuned to
// English descriptions; docs/lint.md shows phrasings that satisfy them.
var (
	whenToUseRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(use|call|choose|pick) (it|this( tool)?|this one)?\s*(only )?(when|whenever|if|for requests like|to answer)\b|\bwhen the user\b|\bif the user\b|\buse (it|this) (for|to)\b`)
	})
	whenNotRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(do not|don't|never) (use|call)\b|\binstead\b|\brather than\b|\bnot for\b`)
	})
	notReturnRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(does not|doesn't|do not|don't|will not|won't|never|not) (return|include|contain|list|show|cover)|\breturns?\b[^.]*\bonly\b|\bonly\b[^.]{0,60}\breturn|\bnot (the|its|their|any)\b|\bexclud(es|ing)\b|\bomit(s|ted)?\b|\breturns no content\b`)
	})

	urlPathRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(^|[\s("'])(/[A-Za-z0-9_{}.:-]+){1,}/?`) })
	urlRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bhttps?://\S+`) })
	httpVerbRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE|HEAD)\b`) })
	endpointRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(calls?|invokes?|hits?|wraps?) (the|this|an?) ([\w-]+ ){0,3}(api|endpoint|operation|route)\b|\b(this|the|an?|API|REST) endpoint\b|\bHTTP (request|call|method)\b|\bAPI (call|request)\b`)
	})
)

// description runs the rules about a tool's description.
func (c *checker) description(t *ir.Tool, ctx *serverContext) {
	d := strings.TrimSpace(t.Description)
	if d == "" {
		c.add("description-missing", t.Name, "", "the tool has no description", "write what it does, when to use it, its key inputs and its limits")
		return
	}
	if n := countSentences(d); n < c.cfg.MinSentences {
		c.add("description-sentences", t.Name, "", fmt.Sprintf("the description has %d sentence(s), fewer than %d", n, c.cfg.MinSentences),
			"say what the tool does in task words, when to use it (and when not), what its key inputs look like and what it does not return")
	}
	if frag := endpointSpeak(d); frag != "" {
		c.add("description-endpoint-speak", t.Name, "", fmt.Sprintf("the description speaks of the endpoint (%q) rather than the user's task", frag),
			"describe what the user gets done, e.g. \"Look up a pet by its id\", and leave paths and HTTP verbs out")
	}
	if !phrased(d, whenToUseRE, whenToUseWords) {
		c.add("description-when-to-use", t.Name, "", "the description does not say when to use the tool",
			"add a sentence like \"Use it when the user asks ...\" with a typical request")
	}
	alts := ctx.overlaps(t)
	switch {
	case len(alts) > 0 && !mentionsAny(d, alts):
		c.add("description-overlap", t.Name, "", fmt.Sprintf("the tool overlaps with %s (same resource %q, same kind of effect) but the description names none of them",
			joinCapped(alts, 3), ctx.resource[t.Name]),
			fmt.Sprintf("say when to use %s instead, e.g. \"To ... use %s instead.\"", alts[0], alts[0]))
	case len(alts) == 0 && !phrased(d, whenNotRE, whenNotWords):
		c.add("description-when-not", t.Name, "", "the description does not say when not to use the tool",
			"add a sentence like \"Do not use it for ...; use ... instead.\"")
	}
	if !phrased(d, notReturnRE, notReturnWords) {
		c.add("description-not-returned", t.Name, "", "the description does not say what the tool does not return",
			"add a limit, e.g. \"Returns the status only, not the order contents.\"")
	}
}

// Words every match of a phrase regexp holds one of, case aside: a
// description without them cannot match, and the regexp need not run.
var (
	endpointWords  = []string{"call", "invoke", "hit", "wrap", "endpoint", "http", "api"}
	httpVerbs      = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}
	whenToUseWords = []string{"use", "call", "choose", "pick"}
	whenNotWords   = []string{"not", "don't", "never", "instead", "rather"}
	notReturnWords = []string{"not", "n't", "never", "only", "exclud", "omit", "returns no content"}
)

// phrased reports whether the case-insensitive phrase regexp re matches
// d (findPhrase).
func phrased(d string, re func() *regexp.Regexp, words []string) bool {
	_, ok := findPhrase(d, re, true, words)
	return ok
}

// findPhrase is the leftmost match of the phrase regexp re in d. No
// match of a phrase regexp holds a '.', and a '.' is no word character,
// so re's matches in d are its matches in d's '.'-free pieces; it runs
// only on the pieces that hold one of words (cannotMatch; fold: re is
// case-insensitive). The phrase regexps backtrack at every position and
// were most of lint's time.
func findPhrase(d string, re func() *regexp.Regexp, fold bool, words []string) (string, bool) {
	for piece := range strings.SplitSeq(d, ".") {
		if cannotMatch(piece, fold, words) {
			continue
		}
		if loc := re().FindStringIndex(piece); loc != nil {
			return piece[loc[0]:loc[1]], true
		}
	}
	return "", false
}

// cannotMatch reports that a regexp every match of which holds one of
// words (ASCII; fold: compared case-insensitively, for (?i) regexps)
// cannot match d.
func cannotMatch(d string, fold bool, words []string) bool {
	if fold {
		d = strings.ToLower(asciiFolds.Replace(d))
	}
	for _, w := range words {
		if strings.Contains(d, w) {
			return false
		}
	}
	return true
}

// asciiFolds maps ſ, which (?i) folds onto s, to s: with strings.ToLower
// (which maps the Kelvin sign to k) the word guards then see every ASCII
// letter a (?i) regexp sees (TestASCIIFoldsAreAll checks all of Unicode).
var asciiFolds = strings.NewReplacer("ſ", "s")

// countSentences counts sentences by the shared sentence rule
// (oa2mcpimpl.SentenceEnd: abbreviations and decimals end none), plus an
// unterminated last one.
func countSentences(s string) int {
	n := 0
	for {
		s = strings.TrimSpace(s)
		if s == "" {
			return n
		}
		n++
		i := oa2mcpimpl.SentenceEnd(s)
		if i < 0 {
			return n
		}
		s = strings.TrimLeft(s[i+1:], ".!?")
	}
}

// endpointSpeak returns the first endpoint-speak fragment in d, or "".
// Each regexp runs only when d holds a word every match of it holds
// (cannotMatch): most descriptions hold none, and the regexps were half
// of lint on big specs.
func endpointSpeak(d string) string {
	if strings.Contains(d, "http") {
		if m := urlRE().FindString(d); m != "" {
			return strings.TrimSpace(m)
		}
	}
	for _, g := range []struct {
		re    func() *regexp.Regexp
		fold  bool
		words []string
	}{{endpointRE, true, endpointWords}, {httpVerbRE, false, httpVerbs}} {
		if m, ok := findPhrase(d, g.re, g.fold, g.words); ok {
			return strings.TrimSpace(m)
		}
	}
	if !strings.Contains(d, "/") {
		return ""
	}
	for _, m := range urlPathRE().FindAllString(d, -1) {
		m = strings.TrimSpace(strings.TrimLeft(m, " (\"'"))
		// "and/or", "input/output" are prose, not paths.
		if strings.Count(m, "/") >= 2 || strings.Contains(m, "{") {
			return m
		}
	}
	return ""
}

func mentionsAny(d string, names []string) bool {
	for _, n := range names {
		if strings.Contains(d, n) {
			return true
		}
	}
	return false
}

func joinCapped(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:max], ", "), len(items)-max)
}

// serverContext is what the per-tool rules need to know about the other
// tools: name counts and overlap groups.
type serverContext struct {
	names    map[string]int
	resource map[string]string
	groups   map[string][]string // key: resource + "|" + effect class
	key      map[string]string
}

func newServerContext(srv *ir.Server) *serverContext {
	ctx := &serverContext{names: map[string]int{}, resource: map[string]string{}, groups: map[string][]string{}, key: map[string]string{}}
	for _, t := range srv.Tools {
		ctx.names[t.Name]++
		if t.Op == nil {
			continue
		}
		res := resourceOf(t.Op.Path)
		if res == "" {
			continue
		}
		k := res + "|" + effectClass(&t)
		ctx.resource[t.Name] = res
		ctx.key[t.Name] = k
		ctx.groups[k] = append(ctx.groups[k], t.Name)
	}
	for _, g := range ctx.groups {
		sort.Strings(g)
	}
	return ctx
}

// overlaps returns the other tools acting on the same resource with the
// same kind of effect.
func (ctx *serverContext) overlaps(t *ir.Tool) []string {
	var out []string
	for _, n := range ctx.groups[ctx.key[t.Name]] {
		if n != t.Name {
			out = append(out, n)
		}
	}
	return out
}

func effectClass(t *ir.Tool) string {
	switch {
	case t.ReadOnly:
		return "read"
	case t.Method() == "DELETE":
		return "delete"
	}
	return "write"
}

// resourceOf names the resource a path acts on: the last literal segment
// followed by a parameter, or the last literal segment unless it is an
// action word (findByStatus, uploadImage, login), singularised.
// /store/order/{orderId} and /store/order both give "order".
func resourceOf(path string) (res string) {
	var segs []string
	for _, s := range strings.Split(path, "/") {
		low := strings.ToLower(s)
		if s == "" || low == "api" || mapping.IsVersionSegment(low) {
			continue
		}
		segs = append(segs, s)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if strings.HasPrefix(s, "{") {
			continue
		}
		if i == len(segs)-1 && isAction(s) {
			if w := nameWords(mapping.SnakeCase(s))[0]; !lookupVerbs[w] {
				// login, uploadImage: an action of its own.
				defer func() { res += ":" + w }()
			}
			continue
		}
		return oa2mcpimpl.Singular(strings.ToLower(s))
	}
	return res
}

// lookupVerbs start action segments that only read the resource another
// way (findByStatus), so such tools overlap with plain reads.
var lookupVerbs = oa2mcpimpl.WordSet("find search list get query lookup filter")

func isAction(seg string) bool {
	words := nameWords(mapping.SnakeCase(seg))
	switch len(words) {
	case 0:
		return false
	case 1:
		// One word: only words that are never a resource ("order",
		// "log" and "tag" are both).
		return singleActions[words[0]]
	}
	return verbs[words[0]]
}

var singleActions = oa2mcpimpl.WordSet(`activate approve archive cancel close confirm count deactivate disable enable export find
import login logout pause publish query refresh reject reopen restart resume search start stop sync unpublish validate verify`)
