package plainjson

// Valid reports whether data is one JSON value with only white space
// around it, nested at most maxDepth deep, without the scanner of
// encoding/json (a per-byte state machine, about a third of the cost of
// reading a tools/call line). True means json.Valid is true; false means
// data is invalid or deeper than maxDepth, so a caller that must be exact
// asks json.Valid then. Strings may hold any bytes but control
// characters, as encoding/json's scanner allows.
func Valid(data []byte) bool {
	v := validator{s: data}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.s)
}

// validator reads s from i on.
type validator struct {
	s []byte
	i int
}

func (v *validator) space() { v.i = SkipSpace(v.s, v.i) }

func (v *validator) value(depth int) bool {
	if v.i >= len(v.s) {
		return false
	}
	switch c := v.s[v.i]; {
	case c == '{' || c == '[':
		return v.container(depth+1, c)
	case c == '"':
		return v.str()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		n := numberEnd(v.s, v.i)
		v.i = n
		return n >= 0
	}
	return false
}

func (v *validator) literal(word string) bool {
	if len(v.s)-v.i < len(word) || string(v.s[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

// container reads an object (open is '{') or an array.
func (v *validator) container(depth int, open byte) bool {
	if depth > maxDepth {
		return false
	}
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	v.i++
	v.space()
	if v.i < len(v.s) && v.s[v.i] == closing {
		v.i++
		return true
	}
	for {
		if open == '{' {
			if v.i >= len(v.s) || v.s[v.i] != '"' || !v.str() {
				return false
			}
			v.space()
			if v.i >= len(v.s) || v.s[v.i] != ':' {
				return false
			}
			v.i++
			v.space()
		}
		if !v.value(depth) {
			return false
		}
		v.space()
		if v.i >= len(v.s) {
			return false
		}
		switch v.s[v.i] {
		case ',':
			v.i++
			v.space()
		case closing:
			v.i++
			return true
		default:
			return false
		}
	}
}

// str reads the string at v.i, its escapes checked.
func (v *validator) str() bool {
	for i := v.i + 1; i < len(v.s); i++ {
		switch c := v.s[i]; {
		case c == '"':
			v.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			i++
			if i >= len(v.s) {
				return false
			}
			switch v.s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(v.s) {
					return false
				}
				for _, h := range v.s[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}
