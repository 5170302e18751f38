package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestShapeList: every way a list is paged gives the right slice, total,
// hasMore, nextPage and note, and never a nextPage the tool cannot serve.
func TestShapeList(t *testing.T) {
	nums := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = json.Number(strings.Repeat("1", i+1)[:1])
		}
		return out
	}
	for _, c := range []struct {
		name     string
		o        Output
		result   any
		args     map[string]any
		want     string // items count, totalCount, hasMore, nextPage as JSON
		wantNote string
	}{
		{"offset, server pages: middle", Output{Limit: 3, PageInput: "offset"}, nums(7), map[string]any{"offset": json.Number("3")},
			`3 7 true {"offset":6}`, "items 4 to 6 of 7"},
		{"offset, server pages: past the end", Output{Limit: 3, PageInput: "offset"}, nums(7), map[string]any{"offset": json.Number("9")},
			`0 7 false null`, "No items from offset 9 on of 7"},
		{"offset, upstream pages with total", Output{Limit: 3, PageInput: "offset", UpstreamPages: true, ListPath: "items", TotalPath: "total"},
			map[string]any{"items": nums(3), "total": json.Number("7")}, map[string]any{"offset": json.Number("3")}, `3 7 true {"offset":6}`, "items 4 to 6 of 7"},
		{"page numbers, upstream pages: page 2 of 3", Output{Limit: 3, PageInput: "page", PageNumbers: true, UpstreamPages: true, ListPath: "items", TotalPath: "total"},
			map[string]any{"items": nums(3), "total": json.Number("7")}, map[string]any{"page": json.Number("2")}, `3 7 true {"page":3}`, "items 4 to 6 of 7"},
		{"page numbers, upstream pages: last page", Output{Limit: 3, PageInput: "page", PageNumbers: true, UpstreamPages: true, ListPath: "items", TotalPath: "total"},
			map[string]any{"items": nums(1), "total": json.Number("7")}, map[string]any{"page": json.Number("3")}, `1 7 false null`, "items 7 to 7 of 7"},
		{"page numbers, absent is page 1", Output{Limit: 3, PageInput: "page", PageNumbers: true, UpstreamPages: true, ListPath: "items", TotalPath: "total"},
			map[string]any{"items": nums(3), "total": json.Number("7")}, map[string]any{}, `3 7 true {"page":2}`, "items 1 to 3 of 7"},
		{"page numbers, server pages", Output{Limit: 3, PageInput: "page", PageNumbers: true}, nums(7), map[string]any{"page": json.Number("2")},
			`3 7 true {"page":3}`, "items 4 to 6 of 7"},
		{"upstream cut the list short", Output{Limit: 3, PageInput: "offset", ListPath: "items", TotalPath: "total"},
			map[string]any{"items": nums(5), "total": json.Number("7")}, map[string]any{"offset": json.Number("3")}, `2 7 true null`, "the other 2 cannot be reached"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := shapeList(c.result, &c.o, c.args).(map[string]any)
			next, _ := json.Marshal(out["nextPage"])
			got := strings.Join([]string{itoa(len(out["items"].([]any))), itoa(intArg(out["totalCount"])), boolText(out["hasMore"]), string(next)}, " ")
			if got != c.want {
				t.Errorf("got %s, want %s (%v)", got, c.want, out)
			}
			if note, _ := out["note"].(string); !strings.Contains(note, c.wantNote) {
				t.Errorf("note %q lacks %q", note, c.wantNote)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func boolText(v any) string { b, _ := json.Marshal(v); return string(b) }
