package plainjson

import (
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// Append appends v compactly, as a json.Encoder with SetEscapeHTML(html)
// writes it (without the newline): object keys sorted, a json.Number as
// written ("" as 0), nil maps and slices as null. ok is false, and dst
// unchanged, when v holds anything but plain values or an invalid
// json.Number (the caller then encodes it with encoding/json, which
// reports the error), or nests deeper than maxDepth.
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
	}
	return dst, false
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
