// Package discover builds the search index of discovery mode at
// generation time: which operation of an API holds which search term, and
// how strongly, from its name and operationId, summary, description, tags,
// path and parameter names. The generated server embeds the encoded index
// (runtime.Discovery.Index) and ranks operations with it, without network
// or model.
//
// The weights are BM25F: a term counts more in a name than in a
// description, more in a short field than in a long one, and with
// diminishing returns when repeated; rare terms count more than common
// ones.
package discover

import (
	"math"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Doc is one operation as the index reads it.
type Doc struct {
	// Name is the operation's name in discovery mode (a tool name).
	Name        string
	OperationID string
	Method      string
	// Path is the path template, e.g. "/pets/{petId}".
	Path string
	// Summary and Description are plain text.
	Summary     string
	Description string
	Tags        []string
	// Params are the input property names.
	Params     []string
	Deprecated bool
}

// Fields of a document, each with its own weight.
const (
	fieldName = iota
	fieldSummary
	fieldTags
	fieldPath
	fieldMethod
	fieldParams
	fieldDescription
	// fieldRelated holds the everyday words of the concepts the
	// operation names (see vocabulary.go).
	fieldRelated
	// fieldWordNet holds WordNet's related words of the words the
	// operation names (see vocabulary.go).
	fieldWordNet
	numFields
)

// fieldWeight is a field's weight and how much its length discounts it
// (BM25's b: 0 none, 1 fully).
type fieldWeight struct{ weight, b float64 }

// weights are the fields' weights: the name says most precisely what an
// operation does; descriptions are long and wander.
func weights() [numFields]fieldWeight {
	return [numFields]fieldWeight{
		fieldName:        {3.0, 0.5},
		fieldSummary:     {2.0, 0.5},
		fieldTags:        {1.2, 0},
		fieldPath:        {1.2, 0.3},
		fieldMethod:      {0.8, 0},
		fieldParams:      {0.4, 0.3},
		fieldDescription: {0.6, 0.75},
		fieldRelated:     {1.0, 0},
		fieldWordNet:     {wordnetWeight, 0},
	}
}

const (
	// wordnetWeight is the weight of WordNet's related words, below the
	// hand tables': a general resource gives a word's senses in every
	// domain, not only the API's. Index does not add them (measured, not
	// kept: docs/discovery.md, "Quality").
	wordnetWeight = 0.5
	// k1 is BM25's saturation: how fast repeats stop counting.
	k1 = 1.2
	// compoundCount is how much a joined neighbour pair ("replicaset"
	// from ReplicaSet) counts against a word of its own.
	compoundCount = 0.5
	// deprecatedFactor demotes deprecated operations.
	deprecatedFactor = 0.5
	// maxDescription bounds the description text indexed: later text is
	// examples and caveats more than purpose.
	maxDescription = 600
	// maxNameLen is the length of a name shortened to fit tool-name
	// limits.
	maxNameLen = 64
)

// Index returns the encoded search index of docs, which are in the order
// of runtime.Discovery.Operations.
func Index(docs []Doc) (string, error) {
	return indexWith(docs, handVocabulary())
}

// indexWith is Index adding the related words of v.
func indexWith(docs []Doc, v related) (string, error) {
	bags := make([]*bag, len(docs))
	workers.ForEach(len(docs), func(i int) { bags[i] = docBag(docs[i], v) })
	return oa2mcpimpl.EncodeSearchIndex(len(docs), weigh(bags))
}

// bag holds one document's term counts per field.
type bag struct {
	counts     [numFields]map[string]float64
	lengths    [numFields]float64
	deprecated bool
}

func newBag() *bag {
	b := &bag{}
	for f := range b.counts {
		b.counts[f] = map[string]float64{}
	}
	return b
}

// addText counts the terms of text in field f, with the compounds of
// neighbouring words within one identifier.
func (b *bag) addText(f int, text string, once bool) {
	for _, g := range oa2mcpimpl.SearchTermGroups(text) {
		for i, t := range g {
			b.add(f, t, 1, once)
			if i > 0 {
				b.add(f, g[i-1]+t, compoundCount, once)
			}
		}
	}
}

// add counts one term; once keeps a term's count at its largest, for
// fields that name a thing rather than talk about it.
func (b *bag) add(f int, term string, n float64, once bool) {
	if once {
		b.counts[f][term] = max(b.counts[f][term], n)
	} else {
		b.counts[f][term] += n
	}
	b.lengths[f] += n
}

// docBag reads one document into its fields, with the related words of
// v.
func docBag(d Doc, v related) *bag {
	b := newBag()
	if len(d.Name) < maxNameLen {
		// A shortened name ends in a cut word and a hash: noise.
		b.addText(fieldName, d.Name, true)
	}
	b.addText(fieldName, d.OperationID, true)
	summary, desc := d.Summary, d.Description
	if summary == "" {
		summary, desc = firstSentence(desc)
	}
	b.addText(fieldSummary, summary, false)
	b.addText(fieldDescription, oa2mcpimpl.Clip(desc, maxDescription), false)
	for _, t := range d.Tags {
		b.addText(fieldTags, t, true)
	}
	for _, seg := range strings.Split(d.Path, "/") {
		if strings.HasPrefix(seg, "{") {
			b.addText(fieldParams, seg, true)
		} else {
			b.addText(fieldPath, seg, true)
		}
	}
	for _, p := range d.Params {
		b.addText(fieldParams, p, true)
	}
	for _, v := range methodVerbs(d.Method, d.Path) {
		b.addText(fieldMethod, v, true)
	}
	b.addRelated(v)
	b.deprecated = d.Deprecated || mentionsDeprecation(d.Summary) || mentionsDeprecation(d.Description)
	return b
}

// methodVerbs are the verbs an HTTP method stands for: a request saying
// "create" or "list" finds an operation whose name does not say it.
func methodVerbs(method, path string) []string {
	item := strings.HasSuffix(strings.TrimRight(path, "/"), "}")
	switch strings.ToUpper(method) {
	case "GET", "HEAD":
		if item {
			return []string{"get"}
		}
		return []string{"get", "list"}
	case "POST":
		if item {
			return []string{"update"}
		}
		return []string{"create"}
	case "PUT":
		return []string{"update", "replace"}
	case "PATCH":
		return []string{"update", "patch"}
	case "DELETE":
		return []string{"delete"}
	}
	return nil
}

// mentionsDeprecation spots operations a spec deprecates in prose only
// ("deprecated: use the 'watch' parameter", "This endpoint is deprecated").
func mentionsDeprecation(text string) bool {
	head := strings.ToLower(oa2mcpimpl.Clip(text, 200))
	return strings.Contains(head, "deprecated")
}

// firstSentence splits text after its first sentence (by the shared
// sentence rule): an operation without a summary usually opens its
// description with one.
func firstSentence(text string) (string, string) {
	text = strings.TrimSpace(text)
	if i := oa2mcpimpl.SentenceEnd(text); i >= 0 && i < 200 {
		return text[:i+1], strings.TrimSpace(text[i+1:])
	}
	if len(text) <= 200 {
		return text, ""
	}
	return "", text
}

// weigh turns the documents' counts into BM25F term weights.
func weigh(bags []*bag) []oa2mcpimpl.IndexTerm {
	var avg [numFields]float64
	for _, b := range bags {
		for f := range avg {
			avg[f] += b.lengths[f]
		}
	}
	for f := range avg {
		avg[f] = max(avg[f]/float64(max(len(bags), 1)), 1)
	}
	// Each document's weights on every CPU (Kubernetes: 1,123
	// documents), then joined in document order.
	perDoc := make([]docWeights, len(bags))
	fw := weights()
	workers.ForEach(len(bags), func(op int) { perDoc[op] = bags[op].weights(fw, avg) })
	postings := map[string][]oa2mcpimpl.Posting{}
	for op, d := range perDoc {
		for i, t := range d.terms {
			postings[t] = append(postings[t], oa2mcpimpl.Posting{Op: op, Weight: d.weights[i]})
		}
	}
	return terms(postings, len(bags))
}

// docWeights are one document's terms, sorted, with their weights.
type docWeights struct {
	terms   []string
	weights []float64
}

// weights is b's BM25F weight of each of its terms, avg the fields'
// average lengths.
func (b *bag) weights(fw [numFields]fieldWeight, avg [numFields]float64) docWeights {
	d := docWeights{terms: b.terms()}
	d.weights = make([]float64, len(d.terms))
	for i, t := range d.terms {
		tf := 0.0
		for f := range fw {
			if c := b.counts[f][t]; c > 0 {
				tf += fw[f].weight * c / (1 - fw[f].b + fw[f].b*b.lengths[f]/avg[f])
			}
		}
		w := tf / (tf + k1)
		if b.deprecated {
			w *= deprecatedFactor
		}
		d.weights[i] = w
	}
	return d
}

// terms sorts the postings by term and adds each term's inverse
// document frequency.
func terms(postings map[string][]oa2mcpimpl.Posting, n int) []oa2mcpimpl.IndexTerm {
	names := make([]string, 0, len(postings))
	for t := range postings {
		names = append(names, t)
	}
	sort.Strings(names)
	out := make([]oa2mcpimpl.IndexTerm, 0, len(names))
	for _, t := range names {
		df := float64(len(postings[t]))
		idf := math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		out = append(out, oa2mcpimpl.IndexTerm{Term: t, IDF: idf, Postings: postings[t]})
	}
	return out
}

// terms lists a document's distinct terms, sorted.
func (b *bag) terms() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range b.counts {
		for t := range m {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}
