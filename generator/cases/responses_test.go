package cases

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// bodyWorld is a random set of response schemas sharing definitions,
// some of them broken (a reference that does not resolve, an $id below
// the root), some roots broken themselves or referring into their own
// properties (which a shared document cannot resolve).
type bodyWorld struct {
	defs    map[string]any
	broken  map[string]bool // definitions that cannot compile
	schemas []string
	// reach[i] are the definitions schema i refers to directly.
	reach [][]string
	// selfBroken[i]: schema i cannot compile whatever it reaches.
	selfBroken []bool
}

func newBodyWorld(seed uint64) *bodyWorld {
	rng := rand.New(rand.NewPCG(seed, 7))
	w := &bodyWorld{defs: map[string]any{}, broken: map[string]bool{}}
	n := 1 + rng.IntN(8)
	name := func(i int) string { return fmt.Sprintf("D%d", i) }
	for i := range n {
		props := map[string]any{"id": map[string]any{"type": "string"}}
		// References only to later definitions: no cycles, so each
		// definition's brokenness is that of what it reaches.
		for j := i + 1; j < n; j++ {
			if rng.IntN(3) == 0 {
				props["p"+name(j)] = map[string]any{"$ref": "#/$defs/" + name(j)}
			}
		}
		switch rng.IntN(6) {
		case 0:
			props["bad"] = map[string]any{"$ref": "#/$defs/Missing"}
			w.broken[name(i)] = true
		case 1:
			props["bad"] = map[string]any{"$id": "https://example.com/x", "type": "string"}
			w.broken[name(i)] = true
		}
		w.defs[name(i)] = map[string]any{"type": "object", "properties": props}
	}
	for i := n - 1; i >= 0; i-- { // brokenness flows back along references
		for j := i + 1; j < n; j++ {
			if _, ok := mapOf(mapOf(w.defs[name(i)])["properties"])["p"+name(j)]; ok && w.broken[name(j)] {
				w.broken[name(i)] = true
			}
		}
	}
	for range 1 + rng.IntN(10) {
		props := map[string]any{"n": map[string]any{"type": "integer"}}
		var reach []string
		for j := range n {
			if rng.IntN(3) == 0 {
				props["r"+name(j)] = map[string]any{"$ref": "#/$defs/" + name(j)}
				reach = append(reach, name(j))
			}
		}
		self := false
		switch rng.IntN(8) {
		case 0:
			// Compiles alone but not in the shared document; the
			// synthesiser follows only references to definitions.
			props["own"] = map[string]any{"$ref": "#/properties/n"}
			self = true
		case 1:
			props["bad"] = map[string]any{"$ref": "#/nowhere"}
			self = true
		}
		text, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
		w.schemas = append(w.schemas, string(text))
		w.reach = append(w.reach, reach)
		w.selfBroken = append(w.selfBroken, self)
	}
	return w
}

// check synthesises every schema with one bodySynth, in order, and
// compares each with synthBody alone and with what the world says is
// broken; it returns the first difference.
func (w *bodyWorld) check() error {
	bs := &bodySynth{defs: w.defs}
	for i, s := range w.schemas {
		got, gotOK := bs.body(s)
		want, wantOK := synthBody(s, w.defs)
		if got != want || gotOK != wantOK {
			return fmt.Errorf("schema %d: shared gives %q %v, alone %q %v", i, got, gotOK, want, wantOK)
		}
		broken := w.selfBroken[i] || slices.ContainsFunc(w.reach[i], func(d string) bool { return w.broken[d] })
		if gotOK == broken {
			return fmt.Errorf("schema %d: synthesised %v, but broken is %v", i, gotOK, broken)
		}
	}
	return nil
}

// TestSharedBodiesMatchAlone: sharing compiled definitions among the
// response bodies changes no body and no verdict, whatever the order of
// broken and sound schemas: a broken definition fails exactly the
// schemas that reach it.
func TestSharedBodiesMatchAlone(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		w := newBodyWorld(seed)
		err := w.check()
		if err == nil {
			continue
		}
		// Minimise: drop schemas while the check still fails.
		for i := 0; i < len(w.schemas); {
			v := *w
			v.schemas = slices.Delete(slices.Clone(w.schemas), i, i+1)
			v.reach = slices.Delete(slices.Clone(w.reach), i, i+1)
			v.selfBroken = slices.Delete(slices.Clone(w.selfBroken), i, i+1)
			if e := v.check(); e != nil {
				*w, err = v, e
				continue
			}
			i++
		}
		defs, _ := json.Marshal(w.defs)
		t.Fatalf("seed %d: %v\ndefs: %s\nschemas: %q", seed, err, defs, w.schemas)
	}
}

// TestSynthBodiesMatchAlone: the concurrent workers of synthBodies, each
// with its own shared synthesiser, give every schema the body it gets
// alone ("{}" where that fails).
func TestSynthBodiesMatchAlone(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		w := newBodyWorld(seed)
		defs, _ := json.Marshal(w.defs)
		srv := &ir.Server{ResponseDefs: string(defs), Responses: map[string]ir.OperationResponses{}}
		for i, s := range w.schemas {
			srv.Responses[fmt.Sprintf("GET /r%02d", i)] = ir.OperationResponses{Status: 200, MediaType: "application/json", Schema: s}
		}
		decoded := responseDefs(srv)
		got := synthBodies(srv, decoded)
		for i, s := range w.schemas {
			want, ok := synthBody(s, decoded)
			if !ok {
				want = "{}"
			}
			if got[s] != want {
				t.Fatalf("seed %d: schema %d %s: body %q, alone %q", seed, i, s, got[s], want)
			}
		}
	}
}
