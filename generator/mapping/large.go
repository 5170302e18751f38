package mapping

import (
	"fmt"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Large APIs: a default mapping lists one tool per operation, and past a
// point clients refuse the list (OpenAI accepts at most 128 tools per
// request) or it crowds out the conversation (every listed byte is sent
// on every turn). Past either bound the operations are served through
// discovery instead, so a large API works before anyone curates it
// (docs/discovery.md, "Large APIs").

// Default bounds of a default mapping's tools/list.
const (
	// DefaultMaxTools is OpenAI's limit of tools per request, the
	// tightest of the major clients'.
	DefaultMaxTools = 128
	// DefaultMaxListTokens is the tools/list estimate
	// (ir.EstimateTokens) oa2mcp lint calls an error: a quarter of a
	// 200k context, sent again on every turn.
	DefaultMaxListTokens = 50000
)

// Bounds limit what a default mapping may list; past either, its
// operations are served through discovery.
type Bounds struct {
	// Tools is the most tools; 0 means DefaultMaxTools, negative no bound.
	Tools int
	// ListTokens is the largest tools/list token estimate; 0 means
	// DefaultMaxListTokens, negative no bound.
	ListTokens int
}

// withDefaults fills the zero fields.
func (b Bounds) withDefaults() Bounds {
	if b.Tools == 0 {
		b.Tools = DefaultMaxTools
	}
	if b.ListTokens == 0 {
		b.ListTokens = DefaultMaxListTokens
	}
	return b
}

// exceeds reports whether a list of tools and bytes is past the bounds.
func (b Bounds) exceeds(tools, bytes int) bool {
	b = b.withDefaults()
	return (b.Tools > 0 && tools > b.Tools) || (b.ListTokens > 0 && ir.EstimateTokens(bytes) > b.ListTokens)
}

// boundedDefault reports whether the unused operations become tools only
// while they fit the bounds: a default mapping nobody asked for. An
// override file's select.unused: keep asks for one tool each, whatever
// their number.
func boundedDefault(ov *overrides.File) bool {
	return ov == nil || ov.Select.Unused == ""
}

// mapUnused maps the operations no task tool uses: discovery when asked
// for, or when the default tools would exceed the bounds; one tool each
// otherwise (or nothing, as keepUnused says).
func mapUnused(srv *ir.Server, doc *load.Document, infos []*opInfo, used map[*opInfo]bool, cfg Config, problems *diag.List) {
	if discoverUnused(cfg) {
		srv.Discovery = discovery(infos, used, srv.Tools, toolPrefix(cfg), doc.Tags, nil, problems)
		return
	}
	if !keepUnused(cfg.Overrides) {
		return
	}
	var scratch diag.List
	built := builtTools{}
	tools := defaultTools(infos, used, srv.Tools, toolPrefix(cfg), built, &scratch)
	all := append(append([]ir.Tool(nil), srv.Tools...), tools...)
	if n := ir.ListBytes(all); boundedDefault(cfg.Overrides) && cfg.Bounds.exceeds(len(all), n) {
		srv.Discovery = discovery(infos, used, srv.Tools, toolPrefix(cfg), doc.Tags, built, problems)
		if srv.Discovery != nil {
			srv.Large = &ir.LargeAPI{Tools: len(all), ListBytes: n, Bounds: boundsText(cfg.Bounds)}
			srv.Instructions += " " + largeInstructions(srv)
			return
		}
	}
	*problems = append(*problems, scratch...)
	srv.Tools = append(srv.Tools, tools...)
}

// boundsText says the bounds in words: "128 tools or 50000 tokens".
func boundsText(b Bounds) string {
	b = b.withDefaults()
	switch {
	case b.Tools > 0 && b.ListTokens > 0:
		return fmt.Sprintf("%d tools or %d tokens", b.Tools, b.ListTokens)
	case b.Tools > 0:
		return fmt.Sprintf("%d tools", b.Tools)
	}
	return fmt.Sprintf("%d tokens", b.ListTokens)
}

// largeInstructions tells the model how this server serves its API: by
// search and by area, not as tools of their own.
func largeInstructions(srv *ir.Server) string {
	p := srv.Discovery.Prefix
	return fmt.Sprintf("The API's %d operations are too many to list as tools (more than %s): find one with %s (by plain words, or by area: call it without a query for the areas), "+
		"see its inputs with %s, and run it with %s. The server's operator can add task tools for the everyday jobs (oa2mcp init, then an override file).",
		len(srv.Discovery.Operations), srv.Large.Bounds, p+oa2mcpimpl.SearchToolName, p+oa2mcpimpl.DescribeToolName, p+oa2mcpimpl.CallToolName)
}

// Unbounded are bounds that never apply: one tool per operation,
// however many (--max-tools -1 --max-tokens -1).
func Unbounded() Bounds { return Bounds{Tools: -1, ListTokens: -1} }
