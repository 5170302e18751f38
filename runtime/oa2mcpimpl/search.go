package oa2mcpimpl

import (
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/internal/discoverytools"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// The discovery search engine (runtime/internal/search): the generator
// builds the index with it, and ranks held-out requests with the searcher
// a server builds.

// IndexTerm is one term of the discovery search index.
type IndexTerm = search.IndexTerm

// Posting is one operation's weight for an IndexTerm.
type Posting = search.Posting

// Searcher ranks a server's discoverable operations for a query.
type Searcher = search.Searcher[*runtime.Discoverable]

// SearchHit is one ranked operation.
type SearchHit = search.Hit[*runtime.Discoverable]

// EncodeSearchIndex encodes the discovery index the generator builds.
func EncodeSearchIndex(ops int, terms []IndexTerm) (string, error) {
	return search.EncodeSearchIndex(ops, terms)
}

// NewSearcher returns the searcher a server builds from d: ranking reads
// each operation's operationId (else its tool name), method and path, as
// in runtime's newSearcher.
func NewSearcher(d *runtime.Discovery) (*Searcher, error) {
	return search.New(d.Index, d.Operations, func(op *runtime.Discoverable) search.Op {
		name := op.Tool.Op.OperationID
		if name == "" {
			name = op.Tool.Name
		}
		return search.Op{Name: name, Method: op.Tool.Op.Method, Path: op.Tool.Op.Path}
	})
}

// SearchTerms splits text into the search index's terms.
func SearchTerms(text string) []string { return search.SearchTerms(text) }

// SearchTermGroups is SearchTerms keeping each word's variants together.
func SearchTermGroups(text string) [][]string { return search.SearchTermGroups(text) }

// Singular is the search index's singular form of a word.
func Singular(w string) string { return search.Singular(w) }

// DiscoveryTools returns the discovery tools a server with def serves, as
// tools/list shows them (without handlers); nil without discovery. Tools
// that size a server's list (oa2mcp lint) count them. The fields are
// converted as in runtime's discoveryTool.
func DiscoveryTools(def *runtime.ServerDef) []*runtime.Tool {
	if def == nil || def.Discovery == nil {
		return nil
	}
	l := discoverytools.Listing{Prefix: def.Discovery.Prefix, Title: def.Title, Topics: def.Discovery.Topics, Operations: len(def.Discovery.Operations)}
	var out []*runtime.Tool
	for _, d := range discoverytools.All(l) {
		out = append(out, &runtime.Tool{Name: d.Name, Title: d.Title, Description: d.Description,
			InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
			ReadOnly: d.ReadOnly, Idempotent: d.Idempotent, OpenWorld: d.OpenWorld, Destructive: d.Destructive})
	}
	return out
}
