package ovgen

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// TestShortLifetimeProof: the proof of a file whose handles live one
// minute passes on every run, however the cases of the tools that run
// in parallel on its one server interleave (each case moves its clock
// on by 30 s).
func TestShortLifetimeProof(t *testing.T) {
	cats := loadCatalogs(t)
	var p *plan
	for seed := int64(1); p == nil && seed < 500; seed++ {
		g := &gen{cat: cats[int(seed)%len(cats)], rng: rand.New(rand.NewSource(seed))}
		if c := g.newPlan(); c.handles != nil && c.typoTool == nil {
			p = c
		}
	}
	if p == nil {
		t.Fatal("no seed below 500 draws handles: widen the generator")
	}
	p.handles.lifetime, p.handles.expiry = "1m", "fixed"
	// Many takers, so that many cases run beside each handle's.
	for i := range 12 {
		c := *p.handles.taker
		c.name = fmt.Sprintf("ht_more%d", i)
		p.tools = append(p.tools, &c)
	}
	ov, probs := overrides.Decode("short.yaml", []byte(p.yaml()))
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	for run := range 6 {
		if _, probs := generator.Model(p.cat.doc, generator.Config{Name: "short", Overrides: ov}); probs.HasErrors() {
			t.Fatalf("run %d of the proof of %s:\n%s\nfailed: %v", run, p.cat.spec, p.yaml(), probs.Errors())
		}
	}
}
