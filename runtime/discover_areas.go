package runtime

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Browsing by area: when a search misses (the request's words are not
// the API's), the model can walk the API instead, in two calls:
// search_operations without a query lists the areas (the spec's tags
// with their descriptions, else its paths' first segments), and with an
// area the operations of that area. The areas are built at generation
// time (DiscoveryArea), so browsing costs no index work.

// browseLimit is how many operations of an area one browse returns when
// the call gives no limit.
const browseLimit = 20

// DiscoveryArea is one area of the API for browsing: a tag, or for
// operations without tags the first segment of their path.
type DiscoveryArea struct {
	// Name is the tag's name (or path segment), as the model passes it.
	Name string
	// Description is the tag's description, clipped; may be empty.
	Description string
	// Operations are indexes into Discovery.Operations, ascending.
	Operations []int
}

// areaHit is one area in search_operations' result.
type areaHit struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Operations  int    `json:"operations"`
}

// checkAreas finds area entries that point at no operation.
func checkAreas(def *Discovery) error {
	for _, a := range def.Areas {
		for _, i := range a.Operations {
			if i < 0 || i >= len(def.Operations) {
				return fmt.Errorf("discovery area %q names operation %d of %d", a.Name, i, len(def.Operations))
			}
		}
	}
	return nil
}

// areas lists every area with its size.
func (d *discovery) areas() []areaHit {
	out := make([]areaHit, 0, len(d.def.Areas))
	for _, a := range d.def.Areas {
		out = append(out, areaHit{Name: a.Name, Description: a.Description, Operations: len(a.Operations)})
	}
	return out
}

// area finds an area by name, ignoring case and the difference between
// spaces, dashes and underscores ("Core V1" finds "core_v1"); nil when
// none matches.
func (d *discovery) area(name string) *DiscoveryArea {
	key := search.AreaKey(name)
	for i := range d.def.Areas {
		if search.AreaKey(d.def.Areas[i].Name) == key {
			return &d.def.Areas[i]
		}
	}
	return nil
}

// unknownArea is the error for an area name that names none: the closest
// names, so the model can retry at once.
func (d *discovery) unknownArea(name string) error {
	names := make([]string, 0, len(d.def.Areas))
	for _, a := range d.def.Areas {
		names = append(names, a.Name)
	}
	sort.SliceStable(names, func(i, j int) bool {
		return textkit.EditDistance(search.AreaKey(name), search.AreaKey(names[i])) < textkit.EditDistance(search.AreaKey(name), search.AreaKey(names[j]))
	})
	if len(names) > maxSuggestions {
		names = names[:maxSuggestions]
	}
	msg := fmt.Sprintf("no area %q", name)
	if len(names) > 0 {
		msg += "; closest: " + strings.Join(names, ", ")
	}
	return &ToolError{Kind: KindNotFound, Message: msg + ". Call " + d.name(search.SearchToolName) + " without query and area for every area."}
}

// browse fills out with the operations of area a from offset on, at
// most limit; with a query, those of the area that match it, best first.
func (d *discovery) browse(out *searchResult, a *DiscoveryArea, query string, offset, limit int) error {
	out.Area = a.Name
	ops := a.Operations
	if query != "" {
		sr, err := d.search()
		if err != nil {
			return err
		}
		in := make(map[*Discoverable]bool, len(ops))
		for _, i := range ops {
			in[d.def.Operations[i]] = true
		}
		for _, h := range sr.Search(query, len(d.def.Operations)) {
			if in[h.Operation] && len(out.Operations) < limit {
				out.Operations = append(out.Operations, hitOf(h.Operation))
			}
		}
		return nil
	}
	out.Total = len(ops)
	for _, i := range ops[min(offset, len(ops)):min(offset+limit, len(ops))] {
		out.Operations = append(out.Operations, hitOf(d.def.Operations[i]))
	}
	if end := offset + limit; end < len(ops) {
		out.Next = end
	}
	return nil
}
