package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// shapeResult applies a tool's output shaping: list truncation with
// paging hints, field picks and hint fields.
func shapeResult(result any, o *Output, args map[string]any) any {
	if o == nil {
		return result
	}
	var out any = result
	switch {
	case o.Limit > 0:
		out = shapeList(result, o, args)
	case len(o.Pick) > 0:
		out = pickFields(result, o.Pick)
	}
	if len(o.Hints) > 0 {
		m, ok := out.(map[string]any)
		if !ok {
			m = map[string]any{"result": out}
			out = m
		}
		env := &evalEnv{input: args}
		for _, h := range o.Hints {
			m[h.Name] = renderHint(h.Path, result, env)
		}
	}
	return out
}

// shapeList pages the list at ListPath: at most Limit items (from the
// offset in PageInput), each reduced to the picked fields, with the real
// total, whether more follow, how to get them, and an explicit note that
// the data is partial. When the upstream pages the list itself, the list
// it returned is the page and TotalPath gives the total; otherwise the
// list is all there is and is sliced here.
func shapeList(result any, o *Output, args map[string]any) any {
	v, ok := lookupPath(result, parsePath(o.ListPath))
	list, isList := v.([]any)
	if !ok || !isList {
		if len(o.Pick) > 0 {
			return pickFields(result, o.Pick)
		}
		return result
	}
	offset := 0
	if o.PageInput != "" {
		offset = max(0, intArg(args[o.PageInput]))
	}
	var page []any
	total := -1
	if o.UpstreamPages {
		page = list[:min(len(list), o.Limit)]
		if t, ok := lookupPath(result, parsePath(o.TotalPath)); ok && o.TotalPath != "" {
			total = intArg(t)
		}
	} else {
		start := min(offset, len(list))
		page, total = list[start:min(start+o.Limit, len(list))], len(list)
	}
	items := make([]any, 0, len(page))
	for _, it := range page {
		if len(o.Pick) > 0 {
			it = pickFields(it, o.Pick)
		}
		items = append(items, it)
	}
	end := offset + len(items)
	more := end < total || (total < 0 && len(list) >= o.Limit)
	out := map[string]any{"items": items, "hasMore": more}
	if total >= 0 {
		out["totalCount"] = total
	}
	of := ""
	if total >= 0 {
		of = fmt.Sprintf(" of %d", total)
	}
	switch {
	case len(items) == 0 && offset > 0:
		out["note"] = fmt.Sprintf("No items from offset %d on%s; start again with a smaller %s.", offset, of, o.PageInput)
	case more || offset > 0:
		out["note"] = fmt.Sprintf("Partial data: items %d to %d%s. Do not use this page for totals or counts.", offset+1, end, of)
	}
	if more {
		if o.PageInput != "" {
			out["nextPage"] = map[string]any{o.PageInput: end}
		} else {
			out["nextPage"] = "narrow the request (filters) to see the remaining items"
		}
	}
	return out
}

func intArg(v any) int {
	switch x := v.(type) {
	case json.Number:
		n, _ := x.Int64()
		return int(n)
	case float64:
		return int(x)
	case int:
		return x
	}
	return 0
}

// pickFields builds an object from name → path picks; missing paths are
// left out rather than reported as null.
func pickFields(v any, picks []Pick) any {
	out := make(map[string]any, len(picks))
	for _, p := range picks {
		if x, ok := lookupPath(v, parsePath(p.Path)); ok {
			out[p.Name] = x
		}
	}
	return out
}

// renderHint fills a hint template from ${result.PATH} and ${input.NAME}.
func renderHint(tmpl string, result any, env *evalEnv) string {
	e, err := compileExpr(tmpl)
	if err != nil {
		return tmpl
	}
	var out []byte
	for _, p := range e.parts {
		switch p.root {
		case "":
			out = append(out, p.text...)
		case "result":
			if v, ok := lookupPath(result, p.path); ok {
				out = append(out, scalarText(v)...)
			}
		default:
			if v, ok := env.ref(p); ok {
				out = append(out, scalarText(v)...)
			}
		}
	}
	return string(out)
}

// structuredResult returns v as structured content (objects as they are,
// anything else wrapped as {"result": v}) plus the same JSON as text.
func structuredResult(v any) *mcp.CallToolResult {
	if _, ok := v.(map[string]any); !ok {
		v = map[string]any{"result": v}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return textResult("The result could not be encoded as JSON: "+err.Error(), true)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
}
