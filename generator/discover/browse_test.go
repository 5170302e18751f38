package discover_test

import (
	"path/filepath"
	"testing"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// browsePage is one page of an area's operations, as search_operations
// returns it when browsing (its default limit).
const browsePage = 20

// browseOutcome is how browsing fares on the requests search misses.
type browseOutcome struct {
	// misses are the requests without a wanted operation in the top 5;
	// onPage those whose wanted operation is on the first page of its
	// area (browsed with the request's words); hinted those of onPage
	// whose area is also an area of one of the top 5 hits, so a model
	// reading the misses knows where to browse.
	misses, onPage, hinted int
}

// browseMisses replays the misses at 5 of the requests keep selects as
// the two calls a model makes: the areas, then one area with the query.
func (es *evalSpec) browseMisses(keep func(evalRequest) bool) browseOutcome {
	var out browseOutcome
	areasOf := map[*runtime.Discoverable][]int{}
	for a, area := range es.def.Areas {
		for _, i := range area.Operations {
			op := es.def.Operations[i]
			areasOf[op] = append(areasOf[op], a)
		}
	}
	for _, req := range es.set.Requests {
		if !keep(req) {
			continue
		}
		top := es.searcher.Search(req.Query, 5)
		hit := false
		hintAreas := map[int]bool{}
		for _, h := range top {
			hit = hit || contains(req.Want, h.Operation.Tool.Op.OperationID)
			for _, a := range areasOf[h.Operation] {
				hintAreas[a] = true
			}
		}
		if hit {
			continue
		}
		out.misses++
		page, hinted := false, false
		for _, op := range es.def.Operations {
			if !contains(req.Want, op.Tool.Op.OperationID) {
				continue
			}
			for _, a := range areasOf[op] {
				if es.onFirstPage(a, req.Query, op) {
					page = true
					hinted = hinted || hintAreas[a]
				}
			}
		}
		if page {
			out.onPage++
		}
		if hinted {
			out.hinted++
		}
	}
	return out
}

// onFirstPage reports whether browsing area a with query (area plus
// query, as search_operations does) shows op on the first page: among
// the area's matches, else in the area's own order when few match.
func (es *evalSpec) onFirstPage(a int, query string, op *runtime.Discoverable) bool {
	in := map[*runtime.Discoverable]bool{}
	for _, i := range es.def.Areas[a].Operations {
		in[es.def.Operations[i]] = true
	}
	if len(in) <= browsePage {
		return true
	}
	n := 0
	for _, h := range es.searcher.Search(query, len(es.def.Operations)) {
		if in[h.Operation] {
			if h.Operation == op {
				return true
			}
			if n++; n == browsePage {
				return false
			}
		}
	}
	return false
}

// TestBrowseRecoversMisses measures browsing by area on the held-out
// set's misses at 5, per half (counts only: no request of the frozen
// half is printed): how many a model finds on the first page of the
// right area, and how many of those the top 5 hits point to the area
// of. It fails when browsing recovers none of the tuning half's misses.
func TestBrowseRecoversMisses(t *testing.T) {
	root := testenv.RepoRoot(t)
	all, err := buildSet(t, filepath.Join(root, "testdata", "discovery", "requests"), testenv.CorpusDir(t), 6)
	if err != nil {
		t.Fatal(err)
	}
	for _, half := range []struct {
		name string
		keep func(evalRequest) bool
	}{{"tuning", func(r evalRequest) bool { return !frozen(r) }}, {"frozen", frozen}} {
		var total browseOutcome
		for _, es := range all {
			o := es.browseMisses(half.keep)
			t.Logf("%s %-13s %3d areas  misses@5 %2d  on the area's first page %2d  area hinted by the hits %2d", half.name, es.name, len(es.def.Areas), o.misses, o.onPage, o.hinted)
			total.misses += o.misses
			total.onPage += o.onPage
			total.hinted += o.hinted
		}
		t.Logf("%s all  misses@5 %d  found by browsing the right area %d (%.2f)  with the area hinted by the hits %d (%.2f)", half.name, total.misses, total.onPage,
			float64(total.onPage)/float64(max(total.misses, 1)), total.hinted, float64(total.hinted)/float64(max(total.misses, 1)))
		if half.name == "tuning" && total.misses > 0 && total.onPage == 0 {
			t.Errorf("browsing recovers none of the tuning half's %d misses", total.misses)
		}
	}
}
