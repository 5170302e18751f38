package jsonschema

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ECMA-262 patterns are translated to Go's RE2 syntax where the two agree
// on meaning, and refused where they do not (lookaround, backreferences)
// or where the translation would be guesswork.

// ecmaSpace is ECMA-262's \s: WhiteSpace and LineTerminator. Go's \s is
// ASCII only.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ecmaToGo translates an ECMA-262 pattern (Unicode mode, as JSON Schema
// prescribes) to Go syntax.
func ecmaToGo(p string) (string, error) {
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			s, n, err := ecmaEscape(p[i:], inClass)
			if err != nil {
				return "", err
			}
			sb.WriteString(s)
			i += n
		case inClass:
			inClass = c != ']'
			if c == '[' {
				sb.WriteByte('\\') // Go would read [: as a POSIX class
			}
			sb.WriteByte(c)
			i++
		case c == '[':
			var n int
			n, inClass = ecmaClassStart(p[i:], &sb)
			i += n
		case c == '.':
			sb.WriteString(`[^\n\r\x{2028}\x{2029}]`)
			i++
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			n, err := ecmaGroup(p[i:], &sb)
			if err != nil {
				return "", err
			}
			i += n
		default:
			sb.WriteByte(c)
			i++
		}
	}
	if inClass {
		return "", errors.New("unterminated character class")
	}
	return sb.String(), nil
}

// ecmaClassStart opens a character class; ECMA's [] matches nothing and
// [^] anything, where Go would read the ] as a member.
func ecmaClassStart(p string, sb *strings.Builder) (int, bool) {
	for _, idiom := range []string{`[\s\S]`, `[\S\s]`, `[\d\D]`, `[\D\d]`, `[\w\W]`, `[\W\w]`} {
		// A class and its complement: any character, newlines included,
		// however ECMA-262 and Go define the class (Box's prompt
		// templates use [\s\S]*?).
		if strings.HasPrefix(p, idiom) {
			sb.WriteString(`[\x00-\x{10FFFF}]`)
			return len(idiom), false
		}
	}
	switch {
	case strings.HasPrefix(p, "[]"):
		sb.WriteString(`[^\x00-\x{10FFFF}]`)
		return 2, false
	case strings.HasPrefix(p, "[^]"):
		sb.WriteString(`[\x00-\x{10FFFF}]`)
		return 3, false
	case strings.HasPrefix(p, "[^"):
		sb.WriteString("[^")
		return 2, true
	}
	sb.WriteByte('[')
	return 1, true
}

// ecmaGroup translates the opening of a (?...) group.
func ecmaGroup(p string, sb *strings.Builder) (int, error) {
	switch {
	case strings.HasPrefix(p, "(?:"):
		sb.WriteString("(?:")
		return 3, nil
	case strings.HasPrefix(p, "(?="), strings.HasPrefix(p, "(?!"):
		return 0, errors.New("lookahead is not supported")
	case strings.HasPrefix(p, "(?<="), strings.HasPrefix(p, "(?<!"):
		return 0, errors.New("lookbehind is not supported")
	case strings.HasPrefix(p, "(?<"):
		sb.WriteString("(?P<")
		return 3, nil
	}
	return 0, errors.New("(? must start a group (?: or (?<name>; inline flags are not ECMA-262")
}

// ecmaEscape translates the escape at the start of p and returns the Go
// text and the bytes consumed.
func ecmaEscape(p string, inClass bool) (string, int, error) {
	if len(p) < 2 {
		return "", 0, errors.New("trailing backslash")
	}
	c := p[1]
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'v', 'f', 'r':
		return p[:2], 2, nil
	case 's', 'S':
		return classEscape(c == 'S', ecmaSpace, inClass, `\S`)
	case 'b':
		if inClass {
			return `\x08`, 2, nil // backspace inside a class
		}
		return p[:2], 2, nil
	case 'B':
		if !inClass {
			return p[:2], 2, nil
		}
	case '0':
		if len(p) == 2 || !isDigit(p[2]) {
			return `\x00`, 2, nil
		}
	case 'c':
		if len(p) > 2 && isASCIILetter(p[2]) {
			return fmt.Sprintf(`\x{%x}`, p[2]%32), 3, nil
		}
	case 'x':
		if len(p) > 3 && isHex(p[2]) && isHex(p[3]) {
			return `\x{` + p[2:4] + `}`, 4, nil
		}
	case 'u':
		return unicodeEscape(p)
	case 'p', 'P':
		return propertyEscape(p, inClass)
	}
	if c < utf8.RuneSelf && c >= ' ' && !isASCIILetter(c) && !isDigit(c) {
		// Escaped ASCII punctuation is the character itself: in Go, and
		// in ECMA-262 for its syntax characters (Annex B allows the rest,
		// as real-world patterns such as [\w\-\:] assume).
		return p[:2], 2, nil
	}
	r, _ := utf8.DecodeRuneInString(p[1:])
	return "", 0, fmt.Errorf(`\%c is not a supported escape (backreferences and Go-only escapes are refused)`, r)
}

// classEscape renders a set given by its members: as a class outside
// one, as members inside one (where a negated set cannot be expressed).
func classEscape(negate bool, members string, inClass bool, name string) (string, int, error) {
	switch {
	case inClass && negate:
		return "", 0, fmt.Errorf(`%s inside a character class is not supported`, name)
	case inClass:
		return members, 2, nil
	case negate:
		return "[^" + members + "]", 2, nil
	}
	return "[" + members + "]", 2, nil
}

// unicodeEscape translates \uXXXX (joining a surrogate pair) and \u{X...}.
func unicodeEscape(p string) (string, int, error) {
	r, n := rune(-1), 0
	if strings.HasPrefix(p, `\u{`) {
		if end := strings.IndexByte(p, '}'); end > 3 {
			if v, err := strconv.ParseUint(p[3:end], 16, 32); err == nil {
				r, n = rune(v), end+1
			}
		}
	} else if v, ok := hex4(p[2:]); ok {
		r, n = v, 6
		if lo, ok := hex4(strings.TrimPrefix(p[6:], `\u`)); ok && strings.HasPrefix(p[6:], `\u`) && r >= 0xD800 && r < 0xDC00 && lo >= 0xDC00 && lo < 0xE000 {
			r, n = (r-0xD800)<<10+(lo-0xDC00)+0x10000, 12
		}
	}
	if r < 0 || r > unicode.MaxRune || r >= 0xD800 && r < 0xE000 {
		return "", 0, errors.New(`\u must name a Unicode scalar value`)
	}
	return fmt.Sprintf(`\x{%x}`, r), n, nil
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 || !isHex(s[0]) || !isHex(s[1]) || !isHex(s[2]) || !isHex(s[3]) {
		return 0, false
	}
	v, _ := strconv.ParseUint(s[:4], 16, 32)
	return rune(v), true
}

// propertyEscape translates \p{...} and \P{...}: general categories by
// any ECMA-262 name, scripts as Script=Name.
func propertyEscape(p string, inClass bool) (string, int, error) {
	end := strings.IndexByte(p, '}')
	if len(p) < 4 || p[2] != '{' || end < 0 {
		return "", 0, errors.New(`\p must be written \p{Name}`)
	}
	name, negate, n := p[3:end], p[1] == 'P', end+1
	switch name {
	case "Any":
		s, _, err := classEscape(negate, `\x00-\x{10FFFF}`, inClass, `\P{Any}`)
		return s, n, err
	case "ASCII":
		s, _, err := classEscape(negate, `\x00-\x7f`, inClass, `\P{ASCII}`)
		return s, n, err
	}
	goName, ok := ecmaPropertyName(name)
	if !ok {
		return "", 0, fmt.Errorf(`the Unicode property %q is not supported`, name)
	}
	return `\` + p[1:2] + "{" + goName + "}", n, nil
}

// ecmaPropertyName maps an ECMA-262 property name to Go's.
func ecmaPropertyName(name string) (string, bool) {
	key, value, hasKey := strings.Cut(name, "=")
	if !hasKey {
		key, value = "General_Category", name
	}
	switch key {
	case "General_Category", "gc":
		short := generalCategories[value]
		if short == "" {
			if _, ok := unicode.Categories[value]; ok && len(value) <= 2 && value != "C" {
				short = value
			}
		}
		_, ok := unicode.Categories[short]
		return short, ok
	case "Script", "sc":
		_, ok := unicode.Scripts[value]
		return value, ok
	}
	return "", false
}

// generalCategories maps ECMA-262's long names and aliases of Unicode
// general categories to the short names Go knows. "Other" (C) is left
// out: Go's C lacks the unassigned code points.
var generalCategories = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}

func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isHex(c byte) bool         { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
