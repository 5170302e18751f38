package load

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"
)

// This file is a cheap, approximate key scanner over raw spec text. It
// serves what kin-openapi cannot do cheaply: positions (openapi2 tracks
// none, and kin's origin tracking for OpenAPI 3 almost doubles its load
// time), and the raw-text fix-ups that must happen before kin parses a file
// ($id-based refs, tuple items). It understands JSON fully, and YAML block
// mappings and sequences with flow collections ({...}, [...]) in them.

// keyHit is one mapping key found by the scanner.
type keyHit struct {
	path []string // keys and sequence indexes leading to this key, inclusive
	off  int      // byte offset of the key
	voff int      // byte offset of the value (for JSON: its first byte)
	// vend is the end offset of the value when the scanner read all of it
	// (JSON and YAML flow collections); 0 for YAML block values.
	vend  int
	value string // scalar value on the same line (YAML) or string (JSON)
}

// lineIndex maps byte offsets to 1-based line and rune column.
type lineIndex struct {
	data   []byte
	starts []int
}

func newLineIndex(data []byte) *lineIndex {
	starts := make([]int, 1, 1+len(data)/32)
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

// scanKeys reports every key for which want returns true. want must not
// keep the slice it is given: the scanner reuses it (each hit gets a copy),
// which saves an allocation per key on multi-megabyte specs.
func scanKeys(data []byte, isJSON bool, want func(path []string) bool) []keyHit {
	if isJSON {
		s := &jsonScanner{data: data, want: want}
		s.value(s.skipWS(0), 0)
		return s.hits
	}
	return scanYAMLKeys(data, want)
}

// maxScanDepth bounds recursion on hostile input.
const maxScanDepth = 512

// jsonScanner reads JSON, or with yaml set a YAML flow collection, which
// is JSON plus plain and single-quoted scalars and comments.
type jsonScanner struct {
	data []byte
	want func([]string) bool
	hits []keyHit
	// stack holds the current path; a value at depth d has path stack[:d].
	stack []string
	yaml  bool
	// failed records that the input was not understood; JSON scanning then
	// stops, a YAML flow collection is given up.
	failed bool
}

// fail stops the scan: every caller returns the end of the data.
func (s *jsonScanner) fail() int {
	s.failed = true
	return len(s.data)
}

func (s *jsonScanner) skipWS(i int) int {
	for i < len(s.data) {
		switch s.data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		case '#':
			if !s.yaml || i > 0 && !isSpace(s.data[i-1]) {
				return i
			}
			for i < len(s.data) && s.data[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// str returns the end of the quoted string starting at i and its raw
// content (escapes are rare in keys and left as is; a doubled single
// quote in YAML is undone).
func (s *jsonScanner) str(i int) (int, string) {
	j := s.strEnd(i)
	if j < 0 {
		return s.fail(), ""
	}
	raw := s.data[i+1 : j]
	if s.data[i] == '\'' && bytes.Contains(raw, []byte("''")) {
		return j + 1, string(bytes.ReplaceAll(raw, []byte("''"), []byte("'")))
	}
	return j + 1, string(raw)
}

// strEnd finds the closing quote of the string at i, or -1. It jumps from
// quote to quote with IndexByte: long descriptions are most of a spec.
func (s *jsonScanner) strEnd(i int) int {
	q := s.data[i]
	for j := i + 1; j < len(s.data); {
		k := bytes.IndexByte(s.data[j:], q)
		if k < 0 {
			return -1
		}
		j += k
		switch {
		case q == '"' && escaped(s.data[i+1:j]):
			j++
		case q == '\'' && j+1 < len(s.data) && s.data[j+1] == '\'':
			j += 2
		default:
			return j
		}
	}
	return -1
}

// escaped reports whether b ends in an odd number of backslashes, which
// escape the quote after it.
func escaped(b []byte) bool {
	n := 0
	for n < len(b) && b[len(b)-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}

// skipStr returns the end of the string value at i, without copying it.
func (s *jsonScanner) skipStr(i int) int {
	if j := s.strEnd(i); j >= 0 {
		return j + 1
	}
	return s.fail()
}

// push sets the path element at depth and returns the path to it.
func (s *jsonScanner) push(depth int, key string) []string {
	if depth < len(s.stack) {
		s.stack[depth] = key
	} else {
		s.stack = append(s.stack, key)
	}
	return s.stack[:depth+1]
}

// value scans the value at i, at the given depth, and returns the offset
// just past it.
func (s *jsonScanner) value(i, depth int) int {
	if i >= len(s.data) || depth > maxScanDepth || s.failed {
		return s.fail()
	}
	switch s.data[i] {
	case '{':
		return s.object(i, depth)
	case '[':
		return s.array(i, depth)
	case '"':
		return s.skipStr(i)
	case '\'':
		if s.yaml {
			return s.skipStr(i)
		}
	}
	j, _ := s.scalar(i, false)
	if j == i {
		return s.fail()
	}
	return j
}

func (s *jsonScanner) array(i, depth int) int {
	j := s.skipWS(i + 1)
	for n := 0; j < len(s.data) && s.data[j] != ']'; n++ {
		s.push(depth, strconv.Itoa(n))
		j = s.skipWS(s.value(j, depth+1))
		if j < len(s.data) && s.data[j] == ',' {
			j = s.skipWS(j + 1)
		} else if j < len(s.data) && s.data[j] != ']' {
			return s.fail()
		}
	}
	if j >= len(s.data) {
		return s.fail()
	}
	return j + 1
}

// scalar reads an unquoted scalar (a JSON number or literal, a YAML plain
// scalar) and returns its end and trimmed text. A key ends at ": ".
func (s *jsonScanner) scalar(i int, key bool) (int, string) {
	j := i
	for ; j < len(s.data); j++ {
		c := s.data[j]
		if !s.yaml {
			if c == ',' || c == '}' || c == ']' || isSpace(c) {
				break
			}
			continue
		}
		if c == ',' || c == '}' || c == ']' || c == '\n' ||
			c == '#' && j > i && isSpace(s.data[j-1]) ||
			key && c == ':' && (j+1 == len(s.data) || isSpace(s.data[j+1]) || bytes.IndexByte([]byte(",}]"), s.data[j+1]) >= 0) {
			break
		}
	}
	return j, string(bytes.TrimRight(s.data[i:j], " \t\r"))
}

// key reads a mapping key at i and returns its end and text.
func (s *jsonScanner) key(i int) (int, string, bool) {
	switch c := s.data[i]; {
	case c == '"', c == '\'' && s.yaml:
		end, k := s.str(i)
		return end, k, !s.failed
	case s.yaml && bytes.IndexByte([]byte("{[]}:,"), c) < 0:
		end, k := s.scalar(i, true)
		return end, k, k != ""
	}
	return i, "", false
}

func (s *jsonScanner) object(i, depth int) int {
	j := s.skipWS(i + 1)
	for j < len(s.data) && s.data[j] != '}' {
		kend, key, ok := s.key(j)
		colon := s.skipWS(kend)
		if !ok || colon >= len(s.data) || s.data[colon] != ':' {
			return s.fail()
		}
		v := s.skipWS(colon + 1)
		s.push(depth, key)
		end := v
		if v < len(s.data) && (!s.yaml || s.data[v] != ',' && s.data[v] != '}') {
			end = s.value(v, depth+1)
		}
		if p := s.stack[:depth+1]; !s.failed && s.want(p) {
			s.hits = append(s.hits, s.hit(p, j, v, end))
		}
		j = s.skipWS(end)
		if j < len(s.data) && s.data[j] == ',' {
			j = s.skipWS(j + 1)
		} else if j < len(s.data) && s.data[j] != '}' {
			return s.fail()
		}
	}
	if j >= len(s.data) {
		return s.fail()
	}
	return j + 1
}

// hit records the key at off whose value spans [v, end).
func (s *jsonScanner) hit(p []string, off, v, end int) keyHit {
	h := keyHit{path: slices.Clone(p), off: off, voff: v, vend: end}
	switch {
	case v >= end:
	case s.data[v] == '"' || s.data[v] == '\'' && s.yaml:
		_, h.value = s.str(v)
	case s.yaml && s.data[v] != '{' && s.data[v] != '[':
		_, h.value = s.scalar(v, false)
	}
	return h
}
