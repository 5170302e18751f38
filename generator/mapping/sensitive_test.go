package mapping

import (
	"fmt"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// TestSensitiveFromSpec: seeded random body properties, some declared
// format: password or writeOnly; the default tool's Sensitive list is
// exactly the declared ones, whatever they are called.
func TestSensitiveFromSpec(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 4))
	for i := 0; i < 50; i++ {
		props := map[string]*load.Schema{}
		var order, want []string
		for j := 0; j < 1+r.IntN(6); j++ {
			name := fmt.Sprintf("field%d_%d", i, j)
			s := &load.Schema{Type: "string"}
			switch r.IntN(3) {
			case 0:
				s.Format = "password"
				want = append(want, name)
			case 1:
				s.WriteOnly = true
				want = append(want, name)
			}
			props[name] = s
			order = append(order, name)
		}
		doc := &load.Document{Title: "S", Operations: []*load.Operation{{ID: "send", Method: "POST", Path: "/send",
			RequestBody: &load.RequestBody{Required: true, MediaType: "application/json",
				Schema: &load.Schema{Type: "object", PropertyOrder: order, Properties: props}}}}}
		srv, probs := Build(doc, Config{})
		if probs.HasErrors() {
			t.Fatalf("seed %d: %v", seed, probs.Error())
		}
		sort.Strings(want)
		got := srv.Tools[0].Sensitive
		if len(want) == 0 && len(got) == 0 {
			continue
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: Sensitive = %v, want %v (properties %v)", seed, got, want, order)
		}
	}
}
