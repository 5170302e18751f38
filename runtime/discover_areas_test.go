package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// areaSpec is discoverySpec with two areas: "Items" (all three
// operations) and "Danger zone" (the delete).
func areaSpec() *ServerDef {
	def := discoverySpec("")
	def.Discovery.Areas = []DiscoveryArea{
		{Name: "Danger zone", Description: "What cannot be undone.", Operations: []int{0}},
		{Name: "Items", Description: "The shop's items.", Operations: []int{0, 1, 2}},
	}
	return def
}

// hitNames are the operation names of a search result.
func hitNames(r discResult) []string {
	var out []string
	ops, _ := r.data["operations"].([]any)
	for _, o := range ops {
		out = append(out, o.(map[string]any)["name"].(string))
	}
	return out
}

// TestDiscoveryBrowse: without a query the search tool lists the areas
// with their descriptions and sizes; with an area, its operations (in
// pages, or those matching a query); an unknown area is an error naming
// the closest ones.
func TestDiscoveryBrowse(t *testing.T) {
	u := newDiscoveryUpstream(t)
	cs := discoveryClient(t, newDiscoveryServer(t, areaSpec(), u, Options{}), "", nil)
	r := callDiscovery(t, cs, "search_operations", map[string]any{})
	areas, _ := r.data["areas"].([]any)
	if r.isError || len(areas) != 2 || fmt.Sprint(areas[1]) != "map[description:The shop's items. name:Items operations:3]" {
		t.Fatalf("areas: %s", r.text)
	}
	// A strict-mode client fills every field: null means not given.
	if r := callDiscovery(t, cs, "search_operations", map[string]any{"query": nil, "area": nil, "limit": nil, "offset": nil}); r.isError || len(r.data["areas"].([]any)) != 2 {
		t.Errorf("all null: want the areas, got %s", r.text)
	}
	r = callDiscovery(t, cs, "search_operations", map[string]any{"area": "items"})
	if got := strings.Join(hitNames(r), " "); got != "delete_item get_item list_items" || r.data["area"] != "Items" || r.data["total"] != 3.0 {
		t.Errorf("browse items: %s", r.text)
	}
	r = callDiscovery(t, cs, "search_operations", map[string]any{"area": "Items", "limit": 2})
	if got := strings.Join(hitNames(r), " "); got != "delete_item get_item" || r.data["next"] != 2.0 {
		t.Errorf("first page: %s", r.text)
	}
	r = callDiscovery(t, cs, "search_operations", map[string]any{"area": "Items", "limit": 2, "offset": 2})
	if got := strings.Join(hitNames(r), " "); got != "list_items" || r.data["next"] != nil {
		t.Errorf("last page: %s", r.text)
	}
	r = callDiscovery(t, cs, "search_operations", map[string]any{"area": "danger-zone", "query": "get an item"})
	if got := hitNames(r); len(got) > 1 || (len(got) == 1 && got[0] != "delete_item") {
		t.Errorf("search within an area found another area's operation: %s", r.text)
	}
	callDiscovery(t, cs, "search_operations", map[string]any{"area": "Itemz"}).wantError(t, "unknown area", KindNotFound, `no area "Itemz"`, "Items")
	if hits := u.requests(); len(hits) != 0 {
		t.Errorf("browsing called the upstream: %v", hits)
	}
}

// TestDiscoveryAreasChecked: an area naming no operation is refused when
// the server starts, not when a model browses it.
func TestDiscoveryAreasChecked(t *testing.T) {
	def := areaSpec()
	def.Discovery.Areas[0].Operations = []int{3}
	if _, err := NewServer(def, Options{BaseURL: "http://127.0.0.1:9"}); err == nil || !strings.Contains(err.Error(), "Danger zone") {
		t.Fatalf("want an error naming the area, got %v", err)
	}
}

// TestDiscoveryBrowseSeeded pages through random areas of random sizes
// with random page sizes: every page holds at most limit operations, and
// following next from offset 0 yields each operation of the area once,
// in order, whatever the sizes. A failure names the seed and the area.
func TestDiscoveryBrowseSeeded(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 0xa7ea))
	u := newDiscoveryUpstream(t)
	for round := range 6 {
		def := discoverySpec("")
		n := 1 + r.IntN(120)
		ops := make([]*Discoverable, n)
		for i := range ops {
			c := *def.Discovery.Operations[1].Tool
			c.Name = fmt.Sprintf("op_%03d", i)
			ops[i] = &Discoverable{Tool: &c}
		}
		def.Discovery.Operations, def.Discovery.Index = ops, testIndex(ops)
		areas := 1 + r.IntN(5)
		def.Discovery.Areas = make([]DiscoveryArea, areas)
		for a := range def.Discovery.Areas {
			def.Discovery.Areas[a].Name = fmt.Sprintf("area %d", a)
		}
		for i := range ops {
			a := &def.Discovery.Areas[r.IntN(areas)]
			a.Operations = append(a.Operations, i)
		}
		cs := discoveryClient(t, newDiscoveryServer(t, def, u, Options{}), "", nil)
		for _, a := range def.Discovery.Areas {
			limit := 1 + r.IntN(maxSearchLimit)
			var got []string
			offset := 0
			for pages := 0; pages <= len(a.Operations)+1; pages++ {
				res := callDiscovery(t, cs, "search_operations", map[string]any{"area": a.Name, "limit": limit, "offset": offset})
				names := hitNames(res)
				if res.isError || len(names) > limit {
					t.Fatalf("seed %d round %d %s (limit %d, offset %d): %s", seed, round, a.Name, limit, offset, res.text)
				}
				got = append(got, names...)
				next, _ := res.data["next"].(float64)
				if next == 0 {
					break
				}
				offset = int(next)
			}
			var want []string
			for _, i := range a.Operations {
				want = append(want, ops[i].Tool.Name)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Fatalf("seed %d round %d %s (%d operations, limit %d): paging gave %v, want %v", seed, round, a.Name, len(a.Operations), limit, got, want)
			}
		}
	}
}
