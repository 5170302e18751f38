package mapping

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// namePieces are what random operation ids, paths and prefixes are made
// of: words in camel and snake case, acronyms, digits, separators, CJK
// and other scripts, punctuation MCP tool names do not allow.
var namePieces = []string{"get", "Pet", "ById", "HTTP", "v2", "_", "-", ".", "/", "{petId}", " ", "部门列表", "ユーザー",
	"müller", "😀", "$", "#", "a", "Z", "9", "listCoreV1NamespacedPod", strings.Repeat("very_long_segment_", 5)}

func randomName(r *rand.Rand, n int) string {
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(namePieces[r.IntN(len(namePieces))])
	}
	return b.String()
}

// TestToolNamesRandomised: for seeded random operations (ids, paths,
// methods, an optional prefix), every derived tool name matches the MCP
// tool-name pattern within every model API's 64-byte limit, and the names
// are distinct.
func TestToolNamesRandomised(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 11))
	for i := range 500 {
		ops := make([]*load.Operation, r.IntN(8)+1)
		for k := range ops {
			ops[k] = &load.Operation{ID: randomName(r, 4), Method: []string{"GET", "POST", "DELETE", "COPY"}[r.IntN(4)], Path: "/" + randomName(r, 5)}
		}
		prefix := ""
		if r.IntN(2) == 0 {
			prefix = randomName(r, 3)
		}
		names := toolNames(ops, prefix)
		seen := map[string]bool{}
		for k, n := range names {
			if !toolNameRE.MatchString(n) {
				t.Fatalf("seed %d case %d: operation %q %s %q (prefix %q) gives tool name %q, which does not match %s", seed, i, ops[k].ID, ops[k].Method, ops[k].Path, prefix, n, toolNameRE)
			}
			if seen[n] {
				t.Fatalf("seed %d case %d: tool name %q given twice (prefix %q)", seed, i, n, prefix)
			}
			seen[n] = true
		}
	}
}
