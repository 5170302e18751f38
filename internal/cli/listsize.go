package cli

import (
	"fmt"
	"io"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// listSize says what a server's tools/list costs: "3 tools (and 1123
// operations for discovery), tools/list 4056 bytes ≈ 1014 tokens".
func listSize(srv *ir.Server) string {
	bytes := lint.ListBytes(srv)
	n := len(srv.Tools) + len(oa2mcpimpl.DiscoveryTools(&srv.ServerDef))
	text := fmt.Sprintf("%d tools", n)
	if srv.Discovery != nil {
		text += fmt.Sprintf(" (%d operations for discovery)", len(srv.Discovery.Operations))
	}
	return text + fmt.Sprintf(", tools/list %d bytes ≈ %d tokens", bytes, ir.EstimateTokens(bytes))
}

// noteLarge says, when it happened, that a default mapping was too large
// to list and what to do about it.
func noteLarge(w io.Writer, s *settings, srv *ir.Server) {
	l := srv.Large
	if l == nil {
		return
	}
	fmt.Fprintf(w, "note: the default mapping would list %d tools in %d bytes of tools/list (≈ %d tokens), more than %s; "+
		"the server serves its %d operations through discovery instead (%s). "+
		"To curate task tools: oa2mcp init --spec %s --out overrides.yaml, then generate with --overrides overrides.yaml; "+
		"--max-tools -1 --max-tokens -1 lists every operation as a tool (docs/discovery.md, \"Large APIs\")\n",
		l.Tools, l.ListBytes, ir.EstimateTokens(l.ListBytes), l.Bounds, len(srv.Discovery.Operations), listSize(srv), s.spec)
}

// printDefaultSize says what the spec's default mapping (no override
// file) lists, against which a draft is the curated alternative.
func printDefaultSize(w io.Writer, doc *load.Document) {
	srv, _ := mapping.Build(doc, mapping.Config{})
	tools, bytes := len(srv.Tools), ir.ListBytes(srv.Tools)
	if l := srv.Large; l != nil {
		tools, bytes = l.Tools, l.ListBytes
	}
	fmt.Fprintf(w, "without an override file: one tool per operation would be %d tools, tools/list %d bytes ≈ %d tokens", tools, bytes, ir.EstimateTokens(bytes))
	if l := srv.Large; l != nil {
		fmt.Fprintf(w, ", more than %s, so generate serves them through discovery (%s)", l.Bounds, listSize(srv))
	}
	fmt.Fprintln(w)
}
