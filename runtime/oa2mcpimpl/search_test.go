package oa2mcpimpl

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/internal/discoverytools"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestDiscoveryToolsCarryEveryField: for random servers, the tools the
// generator counts carry every field of the tools the runtime serves
// (discoverytools.Def), so that oa2mcp lint sizes the list a client sees.
func TestDiscoveryToolsCarryEveryField(t *testing.T) {
	if DiscoveryTools(&runtime.ServerDef{}) != nil || DiscoveryTools(nil) != nil {
		t.Fatal("a server without discovery has discovery tools")
	}
	seed := testseed.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	words := []string{"", "Shop", "Stripe API", "petstore", "Ünïcode api", "a_b"}
	for i := 0; i < 50; i++ {
		def := &runtime.ServerDef{Title: words[rng.IntN(len(words))], Discovery: &runtime.Discovery{
			Prefix: words[rng.IntN(len(words))], Topics: words[rng.IntN(len(words))],
			Operations: make([]*runtime.Discoverable, rng.IntN(2000))}}
		want := discoverytools.All(discoverytools.Listing{Prefix: def.Discovery.Prefix, Title: def.Title,
			Topics: def.Discovery.Topics, Operations: len(def.Discovery.Operations)})
		got := DiscoveryTools(def)
		if len(got) != len(want) {
			t.Fatalf("seed %d, server %+v: %d tools, want %d", seed, def.Discovery, len(got), len(want))
		}
		for k := range want {
			w, g := reflect.ValueOf(want[k]), reflect.ValueOf(got[k]).Elem()
			for f := 0; f < w.NumField(); f++ {
				name := w.Type().Field(f).Name
				if gv := g.FieldByName(name); !gv.IsValid() || !reflect.DeepEqual(gv.Interface(), w.Field(f).Interface()) {
					t.Fatalf("seed %d, title %q prefix %q: tool %s: field %s is %v, want %v", seed, def.Title,
						def.Discovery.Prefix, want[k].Name, name, gv, w.Field(f))
				}
			}
			if got[k].Handler != nil {
				t.Errorf("tool %s has a handler", got[k].Name)
			}
		}
	}
}
