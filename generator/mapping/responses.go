package mapping

import (
	"sort"
	"strconv"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
)

// recordResponses fills srv.Responses with what every operation the
// tools call answers, as the spec declares it: the call cases synthesise
// upstream responses from it, and the generator's proof runs each tool
// against them.
func recordResponses(doc *load.Document, srv *ir.Server, infos []*opInfo) {
	byKey := map[string]*opInfo{}
	for _, info := range infos {
		byKey[info.call.Key()] = info
	}
	srv.Responses = map[string]ir.OperationResponses{}
	rw := &responseWriter{w: newSchemaWriter(doc, false, textCache{}), memo: map[any]string{}}
	for _, key := range usedOperations(srv) {
		info := byKey[key]
		if info == nil {
			continue
		}
		srv.Responses[key] = rw.operationResponses(info.op)
	}
	if defs := rw.w.finishDefs(); len(defs) > 0 {
		srv.ResponseDefs, _ = ir.CompactJSON(defs)
	}
}

// usedOperations lists, sorted, the operations the tools call, by
// Operation.Key.
func usedOperations(srv *ir.Server) []string {
	seen := map[string]bool{}
	for i := range srv.Tools {
		for _, op := range srv.Tools[i].Operations() {
			seen[op.Key()] = true
		}
	}
	if srv.Discovery != nil {
		for _, d := range srv.Discovery.Operations {
			seen[d.Tool.Op.Key()] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// operationResponses reads an operation's success response (the first
// 2xx) and its declared error statuses.
func (rw *responseWriter) operationResponses(op *load.Operation) ir.OperationResponses {
	out := ir.OperationResponses{Status: 200}
	found := false
	for _, r := range op.Responses {
		code, err := strconv.Atoi(r.Status)
		switch {
		case err != nil:
			continue
		case code >= 200 && code < 300 && !found:
			found = true
			out.Status, out.MediaType = code, r.MediaType
			if r.Schema != nil {
				out.Schema = rw.schema(r.Schema)
			}
		case code >= 400 && code < 600:
			out.Errors = append(out.Errors, code)
		}
	}
	sort.Ints(out.Errors)
	return out
}

// responseWriter converts the response schemas of one server. Many
// operations answer the same named schema, so each is converted once,
// and the named schemas they reach become one set of definitions for
// all of them (ir.Server.ResponseDefs), not a copy per response: Stripe's
// responses reach the same definitions hundreds of times.
type responseWriter struct {
	w    *schemaWriter
	memo map[any]string
}

// schema converts a response schema to compact JSON Schema text whose
// references point into ResponseDefs; only the call cases read it.
func (rw *responseWriter) schema(s *load.Schema) string {
	var key any = s
	if s.Ref != "" {
		key = s.Ref
	}
	if text, ok := rw.memo[key]; ok {
		return text
	}
	text, _ := ir.CompactJSON(rw.w.convert(s, 0))
	rw.memo[key] = text
	return text
}
