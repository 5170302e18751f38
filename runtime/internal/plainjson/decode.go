package plainjson

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds the nesting Decode follows; deeper documents are left
// to encoding/json (whose own bound is 10,000), so the recursion here
// stays shallow.
const maxDepth = 512

// Decode parses text, one JSON value with nothing but white space around
// it, into the values a json.Decoder with UseNumber gives: objects as
// map[string]any (the last of duplicate keys wins), arrays as []any
// (empty ones non-nil), numbers as json.Number, strings copied out of
// text (a value must not pin a large body). ok is false when text is
// anything else, or nests deeper than maxDepth: the caller then decodes
// it with encoding/json.
func Decode(text string) (v any, ok bool) {
	return decode(parser{s: text})
}

// DecodeOrdered is Decode with each object built by object from its
// members in document order, duplicate keys included, for callers that
// keep the order of keys.
func DecodeOrdered(text string, object func(keys []string, vals []any) any) (v any, ok bool) {
	return decode(parser{s: text, build: object})
}

func decode(p parser) (v any, ok bool) {
	p.space()
	if v, ok = p.value(0); !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(p.s)
}

// parser reads s from i on; build, when set, builds objects from their
// members in order instead of a map.
type parser struct {
	s     string
	i     int
	build func(keys []string, vals []any) any
}

func (p *parser) space() { p.i = SkipSpace(p.s, p.i) }

func (p *parser) value(depth int) (any, bool) {
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		n := numberEnd(p.s, p.i)
		if n < 0 {
			return nil, false
		}
		num := json.Number(strings.Clone(p.s[p.i:n]))
		p.i = n
		return num, true
	}
	return nil, false
}

func (p *parser) literal(word string) bool {
	if !strings.HasPrefix(p.s[p.i:], word) {
		return false
	}
	p.i += len(word)
	return true
}

// more reads what follows a member or element: a comma (more is true)
// or the closing byte (more is false); ok is false for anything else.
func (p *parser) more(closing byte) (more, ok bool) {
	p.space()
	if p.i >= len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		p.space()
		return true, true
	case closing:
		p.i++
		return false, true
	}
	return false, false
}

func (p *parser) object(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.i++ // {
	p.space()
	var m map[string]any
	var keys []string
	var vals []any
	done := func() any {
		if p.build != nil {
			return p.build(keys, vals)
		}
		return m
	}
	if p.build == nil {
		m = map[string]any{}
	}
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return done(), true
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		if p.build != nil {
			keys, vals = append(keys, k.(string)), append(vals, v)
		} else {
			m[k.(string)] = v
		}
		more, ok := p.more('}')
		if !ok {
			return nil, false
		}
		if !more {
			return done(), true
		}
	}
}

func (p *parser) array(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.i++ // [
	p.space()
	a := []any{}
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		more, ok := p.more(']')
		if !ok {
			return nil, false
		}
		if !more {
			return a, true
		}
	}
}

// str reads the string at p.i: sliced and copied when it has no escape
// and is valid UTF-8, else decoded by encoding/json (escapes, surrogate
// pairs, invalid bytes as U+FFFD), whose rules it then keeps.
func (p *parser) str() (any, bool) {
	start := p.i
	plain := true
	for i := start + 1; i < len(p.s); i++ {
		switch c := p.s[i]; {
		case c == '"':
			p.i = i + 1
			raw := p.s[start:p.i]
			if plain && utf8.ValidString(raw) {
				return strings.Clone(raw[1 : len(raw)-1]), true
			}
			var s string
			if json.Unmarshal([]byte(raw), &s) != nil {
				return nil, false
			}
			return s, true
		case c == '\\':
			plain = false
			i++
		case c < 0x20:
			return nil, false // invalid JSON: encoding/json says why
		}
	}
	return nil, false
}

// numberEnd is the index just past the JSON number at s[i], or -1 when
// none starts there: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func numberEnd[T string | []byte](s T, i int) int {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return -1
	}
	if i < len(s) && s[i] == '.' {
		j := digits(s, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits[T string | []byte](s T, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// validNumber reports whether s is one JSON number, as encoding/json
// requires of a json.Number it encodes.
func validNumber(s string) bool { return s != "" && numberEnd(s, 0) == len(s) }
