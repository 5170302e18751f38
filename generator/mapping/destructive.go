package mapping

import (
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// undoingWords are verbs of write operations that cancel, refund,
// reverse or delete: their effect cannot be taken back by calling the
// tool again, so such a tool is destructive whatever its HTTP method
// (POST /payments/{id}/refunds, POST /orders/{id}/cancel).
var undoingWords = []string{
	"cancel", "cancels", "cancellation", "cancellations", "refund", "refunds",
	"reverse", "reversal", "reversals", "revert", "void", "voids",
	"delete", "deletes", "remove", "removes", "revoke", "revokes",
	"terminate", "destroy", "purge", "erase", "wipe", "chargeback", "chargebacks",
}

// undoingOperation reports a write operation whose operationId or path
// names one of the undoing verbs.
func undoingOperation(op *runtime.Operation) bool {
	if op == nil || readOnlyMethod(op.Method) {
		return false
	}
	for _, w := range append(splitWords(op.OperationID), splitWords(strings.ReplaceAll(op.Path, "/", " "))...) {
		if slices.Contains(undoingWords, strings.ToLower(w)) {
			return true
		}
	}
	return false
}

// readOnlyMethod: safe HTTP methods.
func readOnlyMethod(m string) bool {
	switch strings.ToUpper(m) {
	case "GET", "HEAD", "OPTIONS", "TRACE", "QUERY":
		return true
	}
	return false
}

// plainWriteWords are verbs of writes that add or change data without
// taking anything back: a POST or PATCH named by one of them is not
// destructive by default, and needs no word from the file.
var plainWriteWords = []string{
	"create", "creates", "add", "adds", "new", "post", "send", "sends", "submit", "start",
	"update", "updates", "set", "patch", "edit", "modify", "upload", "register", "book",
	"place", "make", "open", "save", "put", "replace", "search", "query", "find", "list",
	"get", "check", "validate", "estimate", "preview", "calculate", "login", "token",
}

// checkDestructive warns about a task tool whose write operation the
// generator cannot classify: neither an undoing verb (destructive) nor a
// plain creating or changing one, and the file does not say. The tool is
// then marked as HTTP says (POST and PATCH: not destructive), which may
// be wrong for an operation like POST /payments/{id}/captures.
func (tb *taskBuilder) checkDestructive(tool *ir.Tool, t *overrides.Tool, path string) {
	if t.Annotations != nil && t.Annotations.Destructive != nil || tool.Destructive {
		return
	}
	for _, op := range tool.Operations() {
		if op.Method != "POST" && op.Method != "PATCH" || undoingOperation(op) || plainWrite(op) {
			continue
		}
		tb.problems.Warnf(tb.ov.Pos(path), "say what it does with annotations: {destructive: true} or {destructive: false}",
			"tool %q calls %s %s, which oa2mcp cannot tell apart from an operation that takes something back; it is marked not destructive", t.Name, op.Method, op.Path)
		return
	}
}

// plainWrite reports an operation whose operationId starts with, or
// whose last path segment is, a plain creating or changing verb, or that
// posts to a collection (POST /payments, POST /v1/customers: a create).
// POST /payments/{id}/captures is none of these.
func plainWrite(op *runtime.Operation) bool {
	words := splitWords(op.OperationID)
	if len(words) > 0 && slices.Contains(plainWriteWords, strings.ToLower(words[0])) {
		return true
	}
	path, _, _ := strings.Cut(op.Path, "?")
	segs := strings.Split(strings.Trim(path, "/"), "/")
	last := segs[len(segs)-1]
	if strings.HasPrefix(last, "{") {
		return false
	}
	return slices.Contains(plainWriteWords, strings.ToLower(last)) || len(segs) == 1 || !strings.HasPrefix(segs[len(segs)-2], "{")
}
