package mapping

import (
	"strings"
	"unicode"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// textCache memoises plainText for one Build: big specs repeat the same
// parameter descriptions on hundreds of operations. A nil cache is valid
// and caches nothing.
type textCache map[string]string

func (c textCache) plain(s string) string {
	if c == nil {
		return oa2mcpimpl.PlainText(s)
	}
	if out, ok := c[s]; ok {
		return out
	}
	out := oa2mcpimpl.PlainText(s)
	c[s] = out
	return out
}

// sentence makes s a sentence: capitalised first letter, final period.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	s = string(r)
	switch s[len(s)-1] {
	case '.', '!', '?', ':':
		return s
	}
	return s + "."
}

// humanize turns a snake name into words: "get_pet_by_id" → "Get pet by id".
func humanize(snake string) string {
	s := strings.ReplaceAll(snake, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// choices is a fix that lists the valid names ("use one of: a, b"), or,
// when there are none, what to do instead: a message never ends in an
// empty list.
func choices(lead string, names []string, none string) string {
	if len(names) == 0 {
		return none
	}
	return lead + ": " + strings.Join(names, ", ")
}
