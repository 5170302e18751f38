package discover_test

import (
	"fmt"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// unbounded lists every operation as a tool, however many.
var unbounded = mapping.Unbounded()

// TestCorpusDefaultMappingBounded maps every corpus spec without an
// override file, as it was (one tool per operation, whatever their
// number) and as it is (discovery past the bounds), and logs both
// tools/lists: after, none exceeds the default bounds and every
// operation stays a tool or becomes a discoverable operation.
func TestCorpusDefaultMappingBounded(t *testing.T) {
	for _, e := range testenv.Corpus() {
		doc := loadCorpus(t, e)
		before := build(t, doc, mapping.Config{Name: e.Name, Bounds: unbounded})
		after := build(t, doc, mapping.Config{Name: e.Name})
		nb, na := lint.ListBytes(before), lint.ListBytes(after)
		listed := len(after.Tools)
		if after.Discovery != nil {
			listed += 3
		}
		t.Logf("%-20s before %4d tools %8d bytes ≈ %6d tokens; after %3d tools %6d bytes ≈ %5d tokens%s",
			e.Name, len(before.Tools), nb, ir.EstimateTokens(nb), listed, na, ir.EstimateTokens(na), discoveryNote(after))
		if listed > mapping.DefaultMaxTools || ir.EstimateTokens(na) > mapping.DefaultMaxListTokens {
			t.Errorf("%s: default mapping lists %d tools, ≈ %d tokens; want at most %d and %d", e.Name, listed, ir.EstimateTokens(na), mapping.DefaultMaxTools, mapping.DefaultMaxListTokens)
		}
		if miss := unreachable(before, after); len(miss) > 0 {
			t.Errorf("%s: %d operations are neither tools nor discoverable, e.g. %v", e.Name, len(miss), miss[:min(3, len(miss))])
		}
	}
}

// discoveryNote says how many operations discovery serves.
func discoveryNote(srv *ir.Server) string {
	if srv.Discovery == nil {
		return ""
	}
	return fmt.Sprintf(" (discovery of %d operations)", len(srv.Discovery.Operations))
}

// unreachable lists the tools of before whose operation after neither
// lists nor serves through discovery, by "METHOD path".
func unreachable(before, after *ir.Server) []string {
	have := map[string]bool{}
	for _, t := range after.Tools {
		if t.Op != nil {
			have[t.Op.Method+" "+t.Op.Path] = true
		}
	}
	if after.Discovery != nil {
		for _, op := range after.Discovery.Operations {
			have[op.Tool.Op.Method+" "+op.Tool.Op.Path] = true
		}
	}
	var out []string
	for _, t := range before.Tools {
		if k := t.Op.Method + " " + t.Op.Path; !have[k] {
			out = append(out, k)
		}
	}
	return out
}
