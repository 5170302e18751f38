package mapping

import (
	"sort"
	"strconv"
	"strings"

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
		byKey[opKey(info.call.Method, info.call.Path)] = info
	}
	srv.Responses = map[string]ir.OperationResponses{}
	schemas := map[any]string{} // many operations answer the same named schema
	for _, key := range usedOperations(srv) {
		info := byKey[key]
		if info == nil {
			continue
		}
		srv.Responses[key] = operationResponses(doc, info.op, schemas)
	}
}

// opKey names an operation as the call cases do: "METHOD /path".
func opKey(method, path string) string { return strings.ToUpper(method) + " " + path }

// usedOperations lists, sorted, the operations the tools call.
func usedOperations(srv *ir.Server) []string {
	seen := map[string]bool{}
	add := func(op *ir.Operation) { seen[opKey(op.Method, op.Path)] = true }
	for i := range srv.Tools {
		t := &srv.Tools[i]
		if t.Op != nil {
			add(t.Op)
		}
		for j := range t.Steps {
			add(&t.Steps[j].Op)
		}
		for _, a := range t.Actions {
			for j := range a.Steps {
				add(&a.Steps[j].Op)
			}
		}
	}
	if srv.Discovery != nil {
		for _, d := range srv.Discovery.Operations {
			add(d.Tool.Op)
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
func operationResponses(doc *load.Document, op *load.Operation, schemas map[any]string) ir.OperationResponses {
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
				out.Schema = responseSchema(doc, r.Schema, schemas)
			}
		case code >= 400 && code < 600:
			out.Errors = append(out.Errors, code)
		}
	}
	sort.Ints(out.Errors)
	return out
}

// responseSchema converts a response schema to JSON Schema text, once per
// named schema.
func responseSchema(doc *load.Document, s *load.Schema, memo map[any]string) string {
	var key any = s
	if s.Ref != "" {
		key = s.Ref
	}
	if text, ok := memo[key]; ok {
		return text
	}
	w := newSchemaWriter(doc, false, nil)
	root := w.convert(s, 0)
	if defs := w.finishDefs(); len(defs) > 0 {
		root["$defs"] = defs
	}
	text, _ := ir.JSON(root)
	memo[key] = text
	return text
}
