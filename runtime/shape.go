package runtime

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/expr"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
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
// offset, or page number, in PageInput), each reduced to the picked
// fields, with the real total, whether more follow, how to get them, and
// an explicit note that the data is partial. When the upstream pages the
// list itself, the list it returned is the page and TotalPath gives the
// total; otherwise the list is all there is and is sliced here (and a
// TotalPath larger than the list says the upstream cut it short).
func shapeList(result any, o *Output, args map[string]any) any {
	v, ok := expr.LookupPath(result, expr.ParsePath(o.ListPath))
	list, isList := v.([]any)
	if !ok || !isList {
		if len(o.Pick) > 0 {
			return pickFields(result, o.Pick)
		}
		return result
	}
	pg := pageOf(o, args)
	upstreamTotal := -1
	if t, ok := expr.LookupPath(result, expr.ParsePath(o.TotalPath)); ok && o.TotalPath != "" {
		upstreamTotal = intArg(t)
	}
	var page []any
	total, reachable := upstreamTotal, -1
	if o.UpstreamPages {
		page = list[:min(len(list), o.Limit)]
	} else {
		start := min(pg.offset, len(list))
		page = list[start:min(start+o.Limit, len(list))]
		total, reachable = max(len(list), upstreamTotal), len(list)
	}
	items := make([]any, 0, len(page))
	for _, it := range page {
		if len(o.Pick) > 0 {
			it = pickFields(it, o.Pick)
		}
		items = append(items, it)
	}
	end := pg.offset + len(items)
	more := end < total || (total < 0 && len(list) >= o.Limit)
	out := map[string]any{"items": items, "hasMore": more}
	if total >= 0 {
		out["totalCount"] = total
	}
	out["note"] = pageNote(o, pg, len(items), end, total, reachable)
	if out["note"] == "" {
		delete(out, "note")
	}
	switch {
	case !more:
	case reachable >= 0 && end >= reachable:
		// The rest is beyond what the upstream returned: no page of this
		// tool holds it, as the note says.
	case o.PageInput != "" && o.PageNumbers:
		out["nextPage"] = map[string]any{o.PageInput: pg.number + 1}
	case o.PageInput != "":
		out["nextPage"] = map[string]any{o.PageInput: end}
	default:
		out["nextPage"] = "narrow the request (filters) to see the remaining items"
	}
	return out
}

// pagePos is the page a call asks for: its offset in items and, with
// page numbers, its number (from 1; 0 without page numbers).
type pagePos struct {
	offset, number int
}

// pageOf reads the page input: an offset in items, or with PageNumbers a
// page number from 1 (absent or below 1: the first page).
func pageOf(o *Output, args map[string]any) pagePos {
	n := 0
	if o.PageInput != "" {
		n = intArg(args[o.PageInput])
	}
	if o.PageNumbers {
		n = max(1, n)
		return pagePos{offset: (n - 1) * o.Limit, number: n}
	}
	return pagePos{offset: max(0, n)}
}

// pageNote says which part of the list a page is, and what to do when it
// is empty or the rest cannot be reached.
func pageNote(o *Output, pg pagePos, items, end, total, reachable int) string {
	of := ""
	if total >= 0 {
		of = fmt.Sprintf(" of %d", total)
	}
	where := fmt.Sprintf("offset %d", pg.offset)
	if o.PageNumbers {
		where = fmt.Sprintf("page %d", pg.number)
	}
	switch {
	case items == 0 && pg.offset > 0:
		return fmt.Sprintf("No items from %s on%s; start again with a smaller %s.", where, of, o.PageInput)
	case reachable >= 0 && total > reachable && end >= reachable:
		return fmt.Sprintf("Partial data: items %d to %d%s. The API returned only the first %d; the other %d cannot be reached with this tool, so narrow the request (filters) to see them. Do not use this page for totals or counts.",
			pg.offset+1, end, of, reachable, total-reachable)
	case end < total || pg.offset > 0 || (total < 0 && items >= o.Limit):
		return fmt.Sprintf("Partial data: items %d to %d%s. Do not use this page for totals or counts.", pg.offset+1, end, of)
	}
	return ""
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
		if x, ok := expr.LookupPath(v, expr.ParsePath(p.Path)); ok {
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
		switch p.Root {
		case "":
			out = append(out, p.Text...)
		case "result":
			if v, ok := expr.LookupPath(result, p.Path); ok {
				out = append(out, textkit.ScalarText(v)...)
			}
		default:
			if v, ok := env.ref(p); ok {
				out = append(out, textkit.ScalarText(v)...)
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
