package jsonschema

import (
	"strconv"
	"strings"
)

// lookupPointer follows an RFC 6901 JSON pointer through decoded JSON.
func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = UnescapeToken(tok)
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// EscapeToken writes tok as one RFC 6901 JSON pointer token: ~ as ~0,
// / as ~1. The rule is written once, here: the validator, the runtime's
// schema rewrite and the generator's loader all use it.
func EscapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// UnescapeToken reads one JSON pointer token: ~1 as /, then ~0 as ~
// (in that order, so "~01" is "~1").
func UnescapeToken(tok string) string {
	if strings.IndexByte(tok, '~') < 0 {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// pointerText shows a JSON pointer in a message; the root's is empty.
func pointerText(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}
