package jsonschema

import (
	"net/netip"
	"strings"
	"unicode/utf8"
)

// Formats. The validator asserts the formats below, each exactly as the
// test suite's optional/format file says; any other format is an
// annotation, as draft 2020-12 prescribes by default, and
// Schema.UnassertedFormats lists it.

// assertedFormats describes each asserted format for messages.
var assertedFormats = map[string]string{
	"date":      "a date formatted YYYY-MM-DD, e.g. 2026-01-31",
	"date-time": "an RFC 3339 date-time, e.g. 2026-01-31T09:30:00Z",
	"email":     "an email address, e.g. user@example.com",
	"uuid":      "a UUID, e.g. 123e4567-e89b-12d3-a456-426614174000",
	"uri":       "an absolute URI, e.g. https://example.com/path",
	"ipv4":      "an IPv4 address, e.g. 192.0.2.1",
	"ipv6":      "an IPv6 address, e.g. 2001:db8::1",
}

// formatExamples are the example values in assertedFormats.
var formatExamples = map[string]string{
	"date": "2026-01-31", "date-time": "2026-01-31T09:30:00Z", "email": "user@example.com",
	"uuid": "123e4567-e89b-12d3-a456-426614174000", "uri": "https://example.com/path",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
}

// checkFormat returns a description of the expected format when s does not
// have it, or "" when it does or the format is not asserted.
func checkFormat(format, s string) string {
	var ok bool
	switch format {
	case "date":
		ok = isDate(s)
	case "date-time":
		ok = isDateTime(s)
	case "email":
		ok = isEmail(s)
	case "uuid":
		ok = isUUID(s)
	case "uri":
		ok = isURI(s)
	case "ipv4":
		ok = isIPv4(s)
	case "ipv6":
		ok = isIPv6(s)
	default:
		return ""
	}
	if ok {
		return ""
	}
	return assertedFormats[format]
}

// digits2 reads two ASCII digits.
func digits2(s string) (int, bool) {
	if len(s) < 2 || !isDigit(s[0]) || !isDigit(s[1]) {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

// isDate checks an RFC 3339 full-date: YYYY-MM-DD with a real day.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	hi, ok1 := digits2(s[0:])
	lo, ok2 := digits2(s[2:])
	month, ok3 := digits2(s[5:])
	day, ok4 := digits2(s[8:])
	if !ok1 || !ok2 || !ok3 || !ok4 || month < 1 || month > 12 || day < 1 {
		return false
	}
	year := hi*100 + lo
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// isDateTime checks an RFC 3339 date-time; T and Z may be lower case.
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isFullTime(s[11:])
}

// isFullTime checks HH:MM:SS[.frac](Z|±HH:MM); second 60 is a leap second
// and must fall on 23:59 UTC.
func isFullTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits2(s)
	m, ok2 := digits2(s[3:])
	sec, ok3 := digits2(s[6:])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	offset, ok := timeOffset(rest)
	if !ok {
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-offset)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

// timeOffset reads Z or ±HH:MM as minutes east of UTC.
func timeOffset(s string) (int, bool) {
	if s == "Z" || s == "z" {
		return 0, true
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, false
	}
	h, ok1 := digits2(s[1:])
	m, ok2 := digits2(s[4:])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	if s[0] == '-' {
		return -(h*60 + m), true
	}
	return h*60 + m, true
}

// isUUID checks the RFC 4122 text form: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// isIPv6 accepts RFC 4291 text, without a zone.
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") || strings.Contains(s, "%") {
		return false
	}
	_, err := netip.ParseAddr(s)
	return err == nil
}

// isEmail checks an RFC 5321 Mailbox: Local-part "@" (Domain /
// address-literal).
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !isDotString(local) && !isQuotedString(local) {
		return false
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		return isAddressLiteral(domain[1 : len(domain)-1])
	}
	return isDomain(domain)
}

// isDotString: Atom *("." Atom).
func isDotString(s string) bool {
	for atom := range strings.SplitSeq(s, ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			c := atom[i]
			if !isASCIILetter(c) && !isDigit(c) && strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) < 0 {
				return false
			}
		}
	}
	return true
}

// isQuotedString: DQUOTE *(qtextSMTP / quoted-pairSMTP) DQUOTE.
func isQuotedString(s string) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i++; i >= len(s)-1 || s[i] < 32 || s[i] > 126 {
				return false
			}
		case c == '"' || c < 32 || c > 126:
			return false
		}
	}
	return true
}

// isDomain: sub-domain *("." sub-domain), each a letter or digit, then
// letters, digits and inner hyphens.
func isDomain(s string) bool {
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isASCIILetter(c) && !isDigit(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

// isAddressLiteral: IPv4, "IPv6:" IPv6, or a tagged general literal.
func isAddressLiteral(s string) bool {
	if v6, ok := strings.CutPrefix(s, "IPv6:"); ok {
		return isIPv6(v6)
	}
	if tag, content, ok := strings.Cut(s, ":"); ok {
		if !isDomain(tag) || strings.Contains(tag, ".") || content == "" {
			return false
		}
		for i := 0; i < len(content); i++ {
			if c := content[i]; c < 33 || c > 126 || c == '[' || c == '\\' || c == ']' {
				return false
			}
		}
		return true
	}
	return isIPv4(s)
}

// isURI checks an RFC 3986 URI: scheme ":" hier-part [ "?" query ]
// [ "#" fragment ].
func isURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return false
	}
	rest, fragment, hasFragment := strings.Cut(s[colon+1:], "#")
	if hasFragment && !uriChars(fragment, ":@/?") {
		return false
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && !uriChars(query, ":@/?") {
		return false
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if slash := strings.IndexByte(auth, '/'); slash >= 0 {
			auth, path = auth[:slash], auth[slash:]
		}
		return isAuthority(auth) && uriChars(path, ":@/")
	}
	return uriChars(rest, ":@/")
}

// isScheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && (i == 0 || !isDigit(c) && c != '+' && c != '-' && c != '.') {
			return false
		}
	}
	return true
}

// isAuthority: [ userinfo "@" ] host [ ":" port ].
func isAuthority(s string) bool {
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		if !uriChars(s[:at], ":") {
			return false
		}
		s = s[at+1:]
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || !isIPLiteral(s[1:end]) {
			return false
		}
		host, port = "", s[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port = port[1:]
		}
	} else if colon := strings.IndexByte(s, ':'); colon >= 0 {
		host, port = s[:colon], s[colon+1:]
	}
	if !uriChars(host, "") {
		return false
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// isIPLiteral: IPv6address / IPvFuture.
func isIPLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		ver, rest, ok := strings.Cut(s[1:], ".")
		if !ok || ver == "" || rest == "" || strings.IndexFunc(ver, func(r rune) bool { return r > 127 || !isHex(byte(r)) }) >= 0 {
			return false
		}
		return !strings.Contains(rest, "%") && uriChars(rest, ":")
	}
	return isIPv6(s)
}

// uriChars reports whether s holds only unreserved characters,
// sub-delims, percent-encoded octets and the extra characters.
func uriChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case isASCIILetter(c) || isDigit(c) || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case c < utf8.RuneSelf && strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}
