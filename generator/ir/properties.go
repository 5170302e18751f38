package ir

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// PropertyNames lists, sorted, the top-level property names of a
// schema's text (an input schema): empty for none, nil when the text is
// not an object schema encoding/json can read.
func PropertyNames(schema string) []string {
	// The members of the schema and of its properties, read without
	// decoding their values; a key "properties" spelt otherwise or
	// repeated goes to encoding/json, which matches it case-insensitively
	// and merges repeats.
	if keys, vals, ok := oa2mcpimpl.JSONMembers([]byte(schema)); ok {
		var props []byte
		exact := true
		for i, k := range keys {
			switch {
			case k == "properties" && props == nil:
				props = vals[i]
			case strings.EqualFold(k, "properties"):
				exact = false
			}
		}
		names, _, ok := oa2mcpimpl.JSONMembers(props)
		switch {
		case exact && ok && len(names) > 0:
			sort.Strings(names)
			return slices.Compact(names)
		case exact && (ok || props == nil):
			return []string{}
		}
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil {
		return nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
