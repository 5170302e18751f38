package mapping

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// randomLargeDoc is an API with more operations than the default
// bounds list: parameters of every place and kind, bodies with nested
// objects, arrays and shared definitions, long descriptions.
func randomLargeDoc(seed uint64) *load.Document {
	r := rand.New(rand.NewPCG(seed, 21))
	doc := &load.Document{Title: "Large", Schemas: map[string]*load.Schema{
		"Item": {Type: "object", PropertyOrder: []string{"id", "tags"}, Properties: map[string]*load.Schema{
			"id": {Type: "string", Description: "The item's id."}, "tags": {Type: "array", Items: &load.Schema{Type: "string"}}}},
		"Kind": {Type: "string", Enum: []any{"a", "b", "c"}},
	}}
	methods := []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	for i := range 130 + r.IntN(60) {
		res := fmt.Sprintf("res%d", i/5)
		op := &load.Operation{Method: methods[r.IntN(len(methods))], Path: "/" + res + "/{id}/" + fmt.Sprint(i),
			Summary: fmt.Sprintf("Operation %d on %s.", i, res), Description: "Does a thing. It takes a while, e.g. minutes."}
		if r.IntN(3) > 0 {
			op.ID = fmt.Sprintf("op%s%d", res, i)
		}
		op.Parameters = append(op.Parameters, &load.Parameter{Name: "id", In: "path", Required: true, Schema: &load.Schema{Type: "string"}})
		for j := range r.IntN(4) {
			s := []*load.Schema{{Type: "integer", Minimum: ptr(0.0)}, {Ref: "Kind"}, {Type: "array", Items: &load.Schema{Type: "string"}},
				{Type: "string", Format: "password"}}[r.IntN(4)]
			op.Parameters = append(op.Parameters, &load.Parameter{Name: fmt.Sprintf("q%d", j), In: []string{"query", "header"}[r.IntN(2)],
				Style: "form", Explode: true, Schema: s})
		}
		if op.Method != "GET" && op.Method != "DELETE" && r.IntN(2) == 0 {
			op.RequestBody = &load.RequestBody{Required: r.IntN(2) == 0, MediaType: "application/json", Schema: &load.Schema{
				Type: "object", PropertyOrder: []string{"item", "note"}, Required: []string{"item"},
				Properties: map[string]*load.Schema{"item": {Ref: "Item"}, "note": {Type: "string", MaxLength: ptr(uint64(200))}}}}
		}
		op.Responses = []*load.Response{{Status: "200", MediaType: "application/json", Schema: &load.Schema{Ref: "Item"}}}
		doc.Operations = append(doc.Operations, op)
	}
	return doc
}

func ptr[T any](v T) *T { return &v }

// TestLargeDefaultServesTheToolsItSized: a default mapping too large to
// list serves each operation through discovery exactly as --discover
// builds it, though it reuses the tools it built to size the list
// (seeds 1-12, half of them with a tool prefix).
func TestLargeDefaultServesTheToolsItSized(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		// With a tool prefix the sized tools are named otherwise than the
		// operations discovery serves, so none may be reused.
		cfg := Config{}
		if seed%2 == 0 {
			cfg.ToolPrefix = "big"
		}
		large, probs := Build(randomLargeDoc(seed), cfg)
		if probs.HasErrors() {
			t.Fatalf("seed %d: %v", seed, probs)
		}
		cfg.Discover = true
		direct, _ := Build(randomLargeDoc(seed), cfg)
		if large.Discovery == nil || direct.Discovery == nil {
			t.Fatalf("seed %d: no discovery (default %v, --discover %v)", seed, large.Discovery != nil, direct.Discovery != nil)
		}
		for i, op := range large.Discovery.Operations {
			if i >= len(direct.Discovery.Operations) || !reflect.DeepEqual(op, direct.Discovery.Operations[i]) {
				t.Fatalf("seed %d: operation %d (%s) differs from the one --discover builds", seed, i, op.Tool.Name)
			}
		}
		if !reflect.DeepEqual(large.Discovery, direct.Discovery) {
			t.Fatalf("seed %d: the discovery definitions differ", seed)
		}
	}
}
