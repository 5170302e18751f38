package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime"

// Rules the generator shares with the runtime whose code still lives in
// package runtime (discovery, media types, handles, identity, error
// kinds). The generator calls them here, so that they can leave the user
// API without the generator changing.

// The discovery tools' names.
const (
	SearchToolName   = runtime.SearchToolName
	DescribeToolName = runtime.DescribeToolName
	CallToolName     = runtime.CallToolName
)

// IndexTerm is one term of the discovery search index.
type IndexTerm = runtime.IndexTerm

// Posting is one operation's weight for an IndexTerm.
type Posting = runtime.Posting

// Searcher ranks a server's discoverable operations for a query.
type Searcher = runtime.Searcher

// SearchHit is one ranked operation.
type SearchHit = runtime.SearchHit

// EncodeSearchIndex encodes the discovery index the generator builds.
func EncodeSearchIndex(ops int, terms []IndexTerm) (string, error) {
	return runtime.EncodeSearchIndex(ops, terms)
}

// NewSearcher returns the searcher a server would build from d.
func NewSearcher(d *runtime.Discovery) (*Searcher, error) { return runtime.NewSearcher(d) }

// SearchTerms splits text into the search index's terms.
func SearchTerms(text string) []string { return runtime.SearchTerms(text) }

// SearchTermGroups is SearchTerms keeping each word's variants together.
func SearchTermGroups(text string) [][]string { return runtime.SearchTermGroups(text) }

// Singular is the search index's singular form of a word.
func Singular(w string) string { return runtime.Singular(w) }

// DiscoveryTools returns the discovery tools a server with def serves.
func DiscoveryTools(def *runtime.ServerDef) []*runtime.Tool { return runtime.DiscoveryTools(def) }

// CheckResource reports why a resource declaration cannot be served by
// its tool (the rule NewServer binds with); nil when it can.
func CheckResource(r *runtime.Resource, t *runtime.Tool) error { return runtime.CheckResource(r, t) }

// AreaKey is the folded name by which discovery finds an area.
func AreaKey(name string) string { return runtime.AreaKey(name) }

// MediaBase is a media type without parameters, lower-cased.
func MediaBase(mt string) string { return runtime.MediaBase(mt) }

// IsJSONMedia reports whether a media type carries JSON.
func IsJSONMedia(mt string) bool { return runtime.IsJSONMedia(mt) }

// SequenceMedia names the sequence form of a media type, if any.
func SequenceMedia(mt string) string { return runtime.SequenceMedia(mt) }

// HandleExample is an example handle with prefix, well formed.
func HandleExample(prefix string) string { return runtime.HandleExample(prefix) }

// StdioCallerSetting names the environment settings that carry the
// caller's identity claims over stdio.
func StdioCallerSetting(envPrefix string, claims []string) string {
	return runtime.StdioCallerSetting(envPrefix, claims)
}

// ErrorKindForStatus is the error kind of an upstream's non-2xx status.
func ErrorKindForStatus(code int) string { return runtime.ErrorKindForStatus(code) }
