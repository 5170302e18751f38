package mapping

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestUndoingWritesAreDestructive: for random operations (method, an
// operationId or a path naming a verb in camelCase, snake_case or as a
// path segment), the tool is destructive exactly when the method is
// DELETE or PUT, or the method writes and the verb undoes something; a
// read is never destructive, whatever its name.
func TestUndoingWritesAreDestructive(t *testing.T) {
	verbs := append(slices.Clone(undoingWords), "create", "update", "get", "list", "capture", "send", "approve", "archive")
	nouns := []string{"payment", "order", "Refund", "subscription", "items"}
	methods := []string{"GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"}
	for seed := uint64(1); seed <= 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 9))
		verb, noun, method := verbs[r.IntN(len(verbs))], nouns[r.IntN(len(nouns))], methods[r.IntN(len(methods))]
		op := &runtime.Operation{Method: method, Path: "/" + strings.ToLower(noun) + "s/{id}"}
		switch r.IntN(3) {
		case 0:
			op.OperationID = verb + strings.ToUpper(noun[:1]) + noun[1:]
		case 1:
			op.OperationID = noun + "_" + verb
		default:
			op.Path += "/" + verb
		}
		var tool ir.Tool
		setAnnotations(&tool, op)
		undoing := slices.Contains(undoingWords, verb) || strings.EqualFold(noun, "refund") && op.Method != ""
		want := method == "DELETE" || method == "PUT" || !readOnlyMethod(method) && undoing
		if tool.Destructive != want || tool.ReadOnly && tool.Destructive {
			t.Fatalf("seed %d: %s %s (operationId %q): destructive %v, want %v", seed, method, op.Path, op.OperationID, tool.Destructive, want)
		}
	}
}
