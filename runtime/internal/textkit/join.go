package textkit

import "strings"

// JoinList renders items as prose: "a", "a and b", "a, b and c".
func JoinList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
