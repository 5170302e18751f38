package ir

import "unicode/utf8"

// QuotedSize is the length of s as json.Marshal quotes it: HTML
// characters, control characters, invalid UTF-8 and U+2028/U+2029
// escaped. Sizes are counted, not encoded: encoding every tool to
// measure it was a tenth of a large generation.
func QuotedSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// compactSize is the length json.Marshal writes for raw, valid JSON
// text passed as a json.RawMessage: compacted (white space outside
// strings dropped), with <, >, & and U+2028/U+2029 escaped.
func compactSize(raw string) int {
	n, inString := 0, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inString && c == '\\':
			n += 2
			i++
		case c == '"':
			inString = !inString
			n++
		case !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
		case c == '<' || c == '>' || c == '&':
			n += 6
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			n += 6
			i += 2
		default:
			n++
		}
	}
	return n
}
