package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

func typeMatches(types uint8, value any) bool {
	switch x := value.(type) {
	case nil:
		return types&jtNull != 0
	case bool:
		return types&jtBoolean != 0
	case json.Number:
		if types&jtNumber != 0 {
			return true
		}
		return types&jtInteger != 0 && isInteger(x)
	case float64:
		return types&jtNumber != 0 || (types&jtInteger != 0 && x == math.Trunc(x) && !math.IsInf(x, 0))
	case string:
		return types&jtString != 0
	case []any:
		return types&jtArray != 0
	case map[string]any:
		return types&jtObject != 0
	}
	return false
}

// isInteger reports whether a JSON number has no fractional part; 1.0 and
// 1e3 count, as JSON Schema says.
func isInteger(n json.Number) bool {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		return true
	}
	if d := parseDecimal(s); d.ok {
		return d.exp >= 0 || d.mant == 0
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt()
}

func typeList(types uint8) string {
	var names []string
	for _, tn := range jsonTypeNames {
		if types&tn.bit != 0 && !(tn.bit == jtInteger && types&jtNumber != 0) {
			names = append(names, typeWithArticle(tn.name))
		}
	}
	return strings.Join(names, " or ")
}

func typeWithArticle(typeName string) string {
	if typeName == "null" {
		return "null"
	}
	return textkit.WithArticle(typeName)
}

// DescribeValue names the JSON type of a value for messages.
func DescribeValue(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case bool:
		return ShowValue(value) + " (a boolean)"
	case json.Number, float64:
		return ShowValue(value) + " (a number)"
	case string:
		return ShowValue(value) + " (a string)"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", value)
}

// ShowValue renders a value as short JSON for messages.
func ShowValue(value any) string {
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	if len(b) > maxShownValueSz {
		cut := maxShownValueSz
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func enumList(enum []any) string {
	var sb strings.Builder
	for i, e := range enum {
		if i == maxEnumListed {
			fmt.Fprintf(&sb, ", … (%d more)", len(enum)-i)
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(ShowValue(e))
	}
	return sb.String()
}

func enumContains(enum []any, value any) bool {
	for _, e := range enum {
		if jsonEqual(e, value) {
			return true
		}
	}
	return false
}

// jsonEqual compares decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	if x, ok := asNumber(a); ok {
		y, ok := asNumber(b)
		return ok && numbersEqual(x, y)
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	return false
}

// asNumber accepts both decodings of a JSON number, and the Go integers
// a schema built as a value (CompileValue) may hold.
func asNumber(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
	case int:
		return json.Number(strconv.Itoa(x)), true
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), true
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), true
	}
	return "", false
}

// numbersEqual compares exactly; distinct floats mean distinct values, so
// the exact comparison runs only on a tie.
func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, _ := strconv.ParseFloat(a.String(), 64)
	fb, _ := strconv.ParseFloat(b.String(), 64)
	if fa != fb {
		return false
	}
	ra, ok1 := new(big.Rat).SetString(a.String())
	rb, ok2 := new(big.Rat).SetString(b.String())
	return ok1 && ok2 && ra.Cmp(rb) == 0
}
