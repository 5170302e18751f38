package plainjson

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Append appends v compactly, as a json.Encoder with SetEscapeHTML(html)
// writes it (without the newline): object keys sorted, a json.Number as
// written ("" as 0), nil maps and slices as null. Besides what
// encoding/json decodes into an any, it takes the values a schema is
// built from in Go: []string, int, int64, uint64 and float64 (written
// as encoding/json writes them). ok is false, and dst unchanged, when v
// holds anything else, an invalid json.Number or a float that is not
// finite (the caller then encodes it with encoding/json, which reports
// the error), or nests deeper than maxDepth.
func Append(dst []byte, v any, html bool) (out []byte, ok bool) {
	n := len(dst)
	if out, ok = appendValue(dst, v, html, 0); !ok {
		return dst[:n], false
	}
	return out, true
}

func appendValue(dst []byte, v any, html bool, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return AppendString(dst, x, html), true
	case bool:
		if x {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case json.Number:
		if x == "" {
			return append(dst, '0'), true
		}
		if !validNumber(string(x)) {
			return dst, false
		}
		return append(dst, x...), true
	case map[string]any:
		return appendObject(dst, x, html, depth+1)
	case []any:
		return appendArray(dst, x, html, depth+1)
	case []string:
		return appendStrings(dst, x, html), true
	case int:
		return strconv.AppendInt(dst, int64(x), 10), true
	case int64:
		return strconv.AppendInt(dst, x, 10), true
	case uint64:
		return strconv.AppendUint(dst, x, 10), true
	case float64:
		return appendFloat(dst, x)
	}
	return dst, false
}

func appendStrings(dst []byte, a []string, html bool) []byte {
	if a == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s, html)
	}
	return append(dst, ']')
}

// appendFloat writes f as encoding/json does (as ECMAScript prints a
// number): plain decimals, exponents below 1e-6 and from 1e21 on, with
// no padding in the exponent.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return dst, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1]
		dst = dst[:n-1]
	}
	return dst, true
}

func appendObject(dst []byte, m map[string]any, html bool, depth int) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	if depth > maxDepth {
		return dst, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(AppendString(dst, k, html), ':')
		var ok bool
		if dst, ok = appendValue(dst, m[k], html, depth); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

func appendArray(dst []byte, a []any, html bool, depth int) ([]byte, bool) {
	if a == nil {
		return append(dst, "null"...), true
	}
	if depth > maxDepth {
		return dst, false
	}
	dst = append(dst, '[')
	for i, e := range a {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendValue(dst, e, html, depth); !ok {
			return dst, false
		}
	}
	return append(dst, ']'), true
}

// AppendString appends s as a JSON string exactly as encoding/json
// writes it: \b \f \n \r \t and the quote and backslash escaped by name,
// other control bytes as \u00XX, with html also <, > and & as \u00XX,
// U+2028 and U+2029 as \u2028 and \u2029, invalid UTF-8 as \ufffd.
func AppendString(dst []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!html || b != '<' && b != '>' && b != '&') {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(append(dst, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(append(dst, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}
