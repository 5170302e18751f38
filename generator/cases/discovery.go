package cases

import (
	"encoding/json"

	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// discoveryCases are the cases of discovery mode: a search, a describe
// of the first operation, and for every operation that is not
// destructive (those ask the user first, which the runtime's own tests
// cover) a call through call_operation with arguments synthesised as for
// a tool of its own. So the proof calls every discoverable operation
// once, and the generated tests of a discovery server are never empty.
func discoveryCases(srv *ir.Server) ([]oa2mcptest.Case, []string) {
	d := srv.Discovery
	if d == nil || len(d.Operations) == 0 {
		return nil, nil
	}
	first := d.Operations[0].Tool.Name
	out := []oa2mcptest.Case{
		{Tool: d.Prefix + oa2mcpimpl.SearchToolName, Name: "search", Args: encodeArgs(map[string]any{"query": first})},
		{Tool: d.Prefix + oa2mcpimpl.DescribeToolName, Name: "describe " + first, Args: encodeArgs(map[string]any{"name": first}), WantText: []string{first}},
		{Tool: d.Prefix + oa2mcpimpl.CallToolName, Name: "unknown operation", Args: `{"name":"oa2mcp_no_such_operation"}`, WantError: true, WantKind: runtime.KindNotFound},
	}
	perOp := make([]oa2mcptest.Case, len(d.Operations))
	failed := make([]string, len(d.Operations))
	workers.ForEach(len(d.Operations), func(i int) {
		op := d.Operations[i].Tool
		if op.Destructive {
			return
		}
		t := &ir.Tool{Tool: *op}
		root, ok := decodeSchema(t.InputSchema)
		if !ok {
			failed[i] = op.Name
			return
		}
		b := &builder{srv: srv, t: t, root: root, synth: newSynth(root, false)}
		c, err := b.success("normal", nil, nil, false)
		if err != nil {
			failed[i] = op.Name
			return
		}
		perOp[i] = oa2mcptest.Case{Tool: d.Prefix + oa2mcpimpl.CallToolName, Name: "call " + op.Name,
			Args: encodeArgs(map[string]any{"name": op.Name, "arguments": json.RawMessage(c.Args)}), WantUpstream: true}
	})
	var bad []string
	for i := range perOp {
		switch {
		case failed[i] != "":
			bad = append(bad, failed[i])
		case perOp[i].Tool != "":
			out = append(out, perOp[i])
		}
	}
	return out, bad
}
