package textkit

import (
	"encoding/json"
	"strings"
)

// ScalarText is a JSON value as text: a string as it is, a number in
// its digits, null as "", anything else as its JSON without quotes.
func ScalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}
