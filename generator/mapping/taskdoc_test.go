package mapping

import (
	"fmt"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestTaskDocListsEveryOperation builds seeded random task tools (steps,
// actions, repeated and id-less operations) and checks that the doc
// comment lists each operation the tool calls exactly once, with its
// method, path and operationId, in the order the tool first calls it.
func TestTaskDocListsEveryOperation(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH"}
	for round := range 200 {
		pool := make([]runtime.Operation, 1+r.IntN(5))
		for i := range pool {
			pool[i] = runtime.Operation{Method: methods[r.IntN(len(methods))], Path: fmt.Sprintf("/r%d/{id}", i)}
			if r.IntN(3) > 0 {
				pool[i].OperationID = fmt.Sprintf("op%d", i)
			}
		}
		pick := func() runtime.Step { return runtime.Step{Op: pool[r.IntN(len(pool))]} }
		var tool ir.Tool
		for range r.IntN(4) {
			tool.Steps = append(tool.Steps, pick())
		}
		for a := range r.IntN(3) {
			act := runtime.Action{Name: fmt.Sprint("a", a)}
			for range 1 + r.IntN(3) {
				act.Steps = append(act.Steps, pick())
			}
			tool.Actions = append(tool.Actions, act)
		}
		doc := strings.Join(taskDoc(&tool), "\n")
		var want []string
		for _, op := range tool.Operations() {
			line := "  - " + op.Method + " " + op.Path
			if op.OperationID != "" {
				line += " (operationId " + op.OperationID + ")"
			}
			if !strings.Contains(strings.Join(want, "\n")+"\n", line+"\n") {
				want = append(want, line)
			}
		}
		got := strings.Split(doc, "\n")[2:]
		if doc == "" || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d round %d: doc\n%s\nwant the operations\n%s", seed, round, doc, strings.Join(want, "\n"))
		}
	}
}
