package search

import "strings"

// Names of the discovery tools, after Discovery.Prefix: the server serves
// them, the generator documents them and keeps API tools off them.
const (
	SearchToolName   = "search_operations"
	DescribeToolName = "describe_operation"
	CallToolName     = "call_operation"
)

// AreaKey folds an area name for lookups: areas whose keys are equal
// are one area (the generator merges them).
func AreaKey(name string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '_', '.', '/':
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(name)))
}
