package mapping

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// resourceDoc has a GET by id, a GET with an enum, and a DELETE.
func resourceDoc() *load.Document {
	str := &load.Schema{Type: "string"}
	status := &load.Schema{Type: "string", Enum: []any{"available", "sold"}}
	ok := []*load.Response{{Status: "200", MediaType: "application/json", Schema: &load.Schema{Type: "object"}}}
	return &load.Document{Title: "Pets", Servers: []string{"https://api.example"}, Operations: []*load.Operation{
		{ID: "getPet", Method: "GET", Path: "/pets/{petId}", Responses: ok,
			Parameters: []*load.Parameter{{Name: "petId", In: "path", Required: true, Schema: str}}},
		{ID: "petsByStatus", Method: "GET", Path: "/status/{status}", Responses: ok,
			Parameters: []*load.Parameter{{Name: "status", In: "path", Required: true, Schema: status}}},
		{ID: "deletePet", Method: "DELETE", Path: "/pets/{petId}",
			Parameters: []*load.Parameter{{Name: "petId", In: "path", Required: true, Schema: str}}},
	}}
}

// TestResourcesSeeded: random resources: entries (operations that exist
// or not, GET or not; templates with or without a scheme, variables that
// are inputs or not, operators, duplicates). Each entry gives exactly one
// outcome: a resource the runtime then binds, or problems at its own
// line with a fix; never both, never neither.
func TestResourcesSeeded(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2164))
	served, refused := 0, 0
	for i := range 200 {
		yaml := randomResources(r)
		ov, probs := overrides.Decode("overrides.yaml", []byte(yaml))
		if probs.HasErrors() {
			t.Fatalf("seed %d, case %d: the file does not decode: %v\n%s", seed, i, probs, yaml)
		}
		srv, probs := Build(resourceDoc(), Config{Overrides: ov})
		if msg := checkResourceOutcomes(ov, srv.Resources, probs, srv); msg != "" {
			t.Fatalf("seed %d, case %d: %s\n%s", seed, i, msg, yaml)
		}
		served, refused = served+len(srv.Resources), refused+len(probs.Errors())
	}
	if served < 20 || refused < 20 {
		t.Fatalf("seed %d: %d resources served and %d problems: the generator draws too few of one kind", seed, served, refused)
	}
}

// checkResourceOutcomes is the invariant of TestResourcesSeeded.
func checkResourceOutcomes(ov *overrides.File, got []runtime.Resource, probs diag.List, srv *ir.Server) string {
	errLines := map[int]bool{}
	for _, p := range probs {
		if p.Severity != diag.Error {
			continue
		}
		if p.Pos.Line == 0 || p.Pos.File != "overrides.yaml" || p.Fix == "" {
			return "a problem without file:line or fix: " + p.String()
		}
		errLines[entryOf(ov, p.Pos.Line)] = true
	}
	if len(got)+len(errLines) != len(ov.Resources) {
		return fmt.Sprintf("%d entries gave %d resources and errors on %d entries: %v", len(ov.Resources), len(got), len(errLines), probs)
	}
	if len(got) == 0 {
		return ""
	}
	def := srv.ServerDef
	for i := range srv.Tools {
		def.Tools = append(def.Tools, &srv.Tools[i].Tool)
	}
	_, err := runtime.NewServer(&def, runtime.Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
	if err != nil {
		return "the generator accepted what the runtime refuses: " + err.Error()
	}
	return ""
}

// entryOf is the index of the resources: entry a line belongs to.
func entryOf(ov *overrides.File, line int) int {
	idx := -1
	for i := range ov.Resources {
		if ov.Pos(fmt.Sprintf("resources[%d]", i)).Line <= line {
			idx = i
		}
	}
	return idx
}

// randomResources writes an override file of 1-4 random resources.
func randomResources(r *rand.Rand) string {
	ops := []string{"getPet", "getPet", "petsByStatus", "deletePet", "nosuch"}
	schemes := []string{"pets://", "pets://", "", "p s://", "x:/"}
	vars := []string{"{petId}", "{status}", "{other}", "{+petId}", "{petId", "", "{petId}{status}"}
	var b strings.Builder
	b.WriteString("version: 1\nresources:\n")
	for range 1 + r.IntN(4) {
		tmpl := schemes[r.IntN(len(schemes))] + []string{"pets/", "status/", "a/b/"}[r.IntN(3)] + vars[r.IntN(len(vars))]
		fmt.Fprintf(&b, "  - operation: %s\n    uri_template: %q\n", ops[r.IntN(len(ops))], tmpl)
	}
	return b.String()
}
