package load

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file is a cheap, approximate key scanner over raw spec text. It
// serves what kin-openapi cannot: positions in Swagger 2.0 files (openapi2
// has no origin tracking), and the raw-text fix-ups that must happen before
// kin parses a file ($id-based refs, tuple items). It understands JSON fully
// and YAML block mappings and sequences; YAML flow collections are skipped.

// keyHit is one mapping key found by the scanner.
type keyHit struct {
	path  []string // keys and sequence indexes leading to this key, inclusive
	off   int      // byte offset of the key
	voff  int      // byte offset of the value (for JSON: its first byte)
	vend  int      // JSON only: end offset of the value
	value string   // scalar value on the same line (YAML) or string (JSON)
}

// lineIndex maps byte offsets to 1-based line and rune column.
type lineIndex struct {
	data   []byte
	starts []int
}

func newLineIndex(data []byte) *lineIndex {
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return &lineIndex{data: data, starts: starts}
}

func (li *lineIndex) pos(off int) (int, int) {
	i := sort.Search(len(li.starts), func(k int) bool { return li.starts[k] > off }) - 1
	if i < 0 {
		i = 0
	}
	end := min(off, len(li.data))
	return i + 1, 1 + utf8.RuneCount(li.data[li.starts[i]:end])
}

// scanKeys reports every key for which want returns true.
func scanKeys(data []byte, isJSON bool, want func(path []string) bool) []keyHit {
	if isJSON {
		s := &jsonScanner{data: data, want: want}
		s.value(s.skipWS(0), nil, 0)
		return s.hits
	}
	return scanYAMLKeys(data, want)
}

// maxScanDepth bounds recursion on hostile input.
const maxScanDepth = 512

type jsonScanner struct {
	data []byte
	want func([]string) bool
	hits []keyHit
}

func (s *jsonScanner) skipWS(i int) int {
	for i < len(s.data) && (s.data[i] == ' ' || s.data[i] == '\t' || s.data[i] == '\n' || s.data[i] == '\r') {
		i++
	}
	return i
}

// str returns the end of the string starting at i (at the quote) and its
// raw content (escapes are rare in keys and left as is).
func (s *jsonScanner) str(i int) (int, string) {
	j := i + 1
	for j < len(s.data) {
		switch s.data[j] {
		case '\\':
			j += 2
			continue
		case '"':
			return j + 1, string(s.data[i+1 : j])
		}
		j++
	}
	return len(s.data), ""
}

// value scans the value at i and returns the offset just past it.
func (s *jsonScanner) value(i int, path []string, depth int) int {
	if i >= len(s.data) || depth > maxScanDepth {
		return len(s.data)
	}
	switch s.data[i] {
	case '{':
		return s.object(i, path, depth)
	case '[':
		j := s.skipWS(i + 1)
		for n := 0; j < len(s.data) && s.data[j] != ']'; n++ {
			j = s.skipWS(s.value(j, append(path, strconv.Itoa(n)), depth+1))
			if j < len(s.data) && s.data[j] == ',' {
				j = s.skipWS(j + 1)
			} else if j < len(s.data) && s.data[j] != ']' {
				return len(s.data)
			}
		}
		return j + 1
	case '"':
		j, _ := s.str(i)
		return j
	}
	j := i
	for j < len(s.data) && bytes.IndexByte([]byte(",}] \t\r\n"), s.data[j]) < 0 {
		j++
	}
	if j == i {
		return len(s.data)
	}
	return j
}

func (s *jsonScanner) object(i int, path []string, depth int) int {
	j := s.skipWS(i + 1)
	for j < len(s.data) && s.data[j] == '"' {
		kend, key := s.str(j)
		colon := s.skipWS(kend)
		if colon >= len(s.data) || s.data[colon] != ':' {
			return len(s.data)
		}
		v := s.skipWS(colon + 1)
		p := append(path[:len(path):len(path)], key)
		end := s.value(v, p, depth+1)
		if s.want(p) {
			h := keyHit{path: p, off: j, voff: v, vend: end}
			if v < len(s.data) && s.data[v] == '"' {
				_, h.value = s.str(v)
			}
			s.hits = append(s.hits, h)
		}
		j = s.skipWS(end)
		if j < len(s.data) && s.data[j] == ',' {
			j = s.skipWS(j + 1)
		}
	}
	if j < len(s.data) && s.data[j] == '}' {
		return j + 1
	}
	return len(s.data)
}

// yamlFrame is one open mapping key or sequence item in the YAML scan.
type yamlFrame struct {
	indent int
	key    string
	isKey  bool
	next   int // next sequence index under this key
}

func scanYAMLKeys(data []byte, want func([]string) bool) []keyHit {
	var hits []keyHit
	var stack []yamlFrame
	blockIndent := -1 // inside a block scalar deeper than this
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := string(data[off:end])
		lineOff := off
		off = end + 1
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		trimmed = strings.TrimRight(trimmed, "\r")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if blockIndent >= 0 && indent > blockIndent {
			continue
		}
		blockIndent = -1
		isSeq := trimmed == "-" || strings.HasPrefix(trimmed, "- ")
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.indent > indent || (top.indent == indent && !(isSeq && top.isKey)) {
				stack = stack[:len(stack)-1]
				continue
			}
			break
		}
		if isSeq {
			idx := 0
			if len(stack) > 0 {
				idx = stack[len(stack)-1].next
				stack[len(stack)-1].next++
			}
			stack = append(stack, yamlFrame{indent: indent, key: strconv.Itoa(idx)})
			rest := strings.TrimLeft(trimmed[1:], " ")
			indent += len(trimmed) - len(rest)
			trimmed = rest
		}
		key, val, ok := splitYAMLKey(trimmed)
		if !ok {
			continue
		}
		stack = append(stack, yamlFrame{indent: indent, key: key, isKey: true})
		if v := strings.TrimSpace(val); v != "" && (v[0] == '|' || v[0] == '>') {
			blockIndent = indent
		}
		path := make([]string, len(stack))
		for i, f := range stack {
			path[i] = f.key
		}
		if want(path) {
			voff := lineOff + len(line) - len(strings.TrimLeft(val, " "))
			if strings.TrimSpace(val) == "" {
				voff = lineOff + len(line)
			}
			hits = append(hits, keyHit{path: path, off: lineOff + indent, voff: voff, value: yamlScalar(val)})
		}
	}
	return hits
}

// splitYAMLKey splits "key: value" (key possibly quoted).
func splitYAMLKey(s string) (string, string, bool) {
	if s == "" || strings.IndexByte("{[&*!|>%@`", s[0]) >= 0 {
		return "", "", false
	}
	if s[0] == '"' || s[0] == '\'' {
		j := strings.IndexByte(s[1:], s[0])
		if j < 0 {
			return "", "", false
		}
		key, rest := s[1:j+1], s[j+2:]
		rest = strings.TrimLeft(rest, " ")
		if !strings.HasPrefix(rest, ":") {
			return "", "", false
		}
		return key, rest[1:], true
	}
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t') {
			return strings.TrimSpace(s[:i]), s[i+1:], true
		}
		if s[i] == ' ' && i+1 < len(s) && s[i+1] == '#' {
			return "", "", false
		}
	}
	return "", "", false
}
