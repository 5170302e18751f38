package plainjson

// Members lists the members of data, one JSON object with only white
// space around it, in document order with repeated keys kept: each key
// as encoding/json decodes it, each value the bytes of its JSON text (a
// slice of data). ok is false when data is anything else, or nests
// deeper than maxDepth; a caller that must be exact then asks
// encoding/json. This is what splits a large document into pieces that
// decode independently.
func Members(data []byte) (keys []string, values [][]byte, ok bool) {
	v := validator{s: data}
	v.space()
	if v.i >= len(v.s) || v.s[v.i] != '{' {
		return nil, nil, false
	}
	v.i++
	v.space()
	if v.i < len(v.s) && v.s[v.i] == '}' {
		v.i++
		return keys, values, v.end()
	}
	for {
		key, ok := v.key()
		if !ok {
			return nil, nil, false
		}
		start := v.i
		if !v.value(1) {
			return nil, nil, false
		}
		keys, values = append(keys, key), append(values, data[start:v.i])
		v.space()
		if v.i >= len(v.s) {
			return nil, nil, false
		}
		switch v.s[v.i] {
		case ',':
			v.i++
			v.space()
		case '}':
			v.i++
			return keys, values, v.end()
		default:
			return nil, nil, false
		}
	}
}

// key reads a member's name and its colon, decoded as Decode does.
func (v *validator) key() (string, bool) {
	start := v.i
	if v.i >= len(v.s) || v.s[v.i] != '"' || !v.str() {
		return "", false
	}
	p := parser{s: string(v.s[start:v.i])}
	key, ok := p.str()
	v.space()
	if !ok || v.i >= len(v.s) || v.s[v.i] != ':' {
		return "", false
	}
	v.i++
	v.space()
	return key.(string), true
}

// end reports whether only white space follows.
func (v *validator) end() bool {
	v.space()
	return v.i == len(v.s)
}
