package mapping

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/discover"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// The areas of discovery mode, for a model to browse the API when its
// searches miss: the spec's tags, with their descriptions, and for an
// operation without tags the first segment of its path that names a
// resource ("/v1/customers/{id}" is in "customers").

// maxAreaText bounds an area's description in the areas list.
const maxAreaText = 160

// numberSegment matches path segments of digits, dots and dashes
// ("2010-04-01", "2.0").
var numberSegment = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d[\d.-]*$`) })

// versionSegment reports path segments (lower case) that name no
// resource: versions (IsVersionWord), numbers and dates, "api", "rest".
func versionSegment(seg string) bool {
	return IsVersionWord(seg) || numberSegment().MatchString(seg) || seg == "api" || seg == "rest"
}

// areas groups the operations (docs, in operation order) by area, sorted
// by their folded names (oa2mcpimpl.AreaKey).
func areas(docs []discover.Doc, tagText map[string]string) []runtime.DiscoveryArea {
	byName := map[string]*runtime.DiscoveryArea{}
	var names []string
	for i, d := range docs {
		in := d.Tags
		if len(in) == 0 {
			in = []string{pathArea(d.Path)}
		}
		for _, name := range in {
			// Names the server cannot tell apart ("Alerts", a tag, and
			// "alerts", a path) are one area, named as first seen.
			key := oa2mcpimpl.AreaKey(name)
			a := byName[key]
			if a == nil {
				a = &runtime.DiscoveryArea{Name: name, Description: oa2mcpimpl.Clip(oa2mcpimpl.PlainText(tagText[name]), maxAreaText)}
				byName[key] = a
				names = append(names, key)
			} else if a.Description == "" {
				a.Description = oa2mcpimpl.Clip(oa2mcpimpl.PlainText(tagText[name]), maxAreaText)
			}
			if n := len(a.Operations); n == 0 || a.Operations[n-1] != i {
				a.Operations = append(a.Operations, i)
			}
		}
	}
	sort.Strings(names)
	out := make([]runtime.DiscoveryArea, len(names))
	for i, n := range names {
		out[i] = *byName[n]
	}
	return out
}

// pathArea is the first path segment that names a resource, without a
// file extension ("Calls.json" is "Calls"); "other" when none does.
func pathArea(path string) string {
	for _, seg := range strings.Split(path, "/") {
		if seg == "" || strings.Contains(seg, "{") || versionSegment(strings.ToLower(seg)) {
			continue
		}
		if i := strings.LastIndex(seg, "."); i > 0 {
			seg = seg[:i]
		}
		return seg
	}
	return "other"
}
