package load

import (
	"slices"
	"strconv"
	"strings"
)

// The YAML half of the key scanner: block mappings and sequences, line by
// line by indentation, handing flow collections to the JSON scanner in its
// YAML mode. Block scalars are skipped; anchors, aliases, complex keys and
// multi-line quoted scalars are not understood (their keys are missed).

// yamlFrame is one open mapping key or sequence item in the YAML scan.
type yamlFrame struct {
	indent int
	key    string
	isKey  bool
	next   int // next sequence index under this key
}

// yamlScan is the state of one block scan.
type yamlScan struct {
	data  []byte
	want  func([]string) bool
	hits  []keyHit
	stack []yamlFrame
	// path holds the keys of stack, kept in step with it so that the path
	// handed to want is not rebuilt for every key.
	path []string
	flow jsonScanner
}

func scanYAMLKeys(data []byte, want func([]string) bool) []keyHit {
	s := &yamlScan{data: data, want: want}
	s.flow = jsonScanner{data: data, want: want, yaml: true}
	// One conversion up front: keys and values are then substrings of
	// text, not an allocation per line.
	text := string(data)
	blockIndent := -1 // inside a block scalar deeper than this
	for off := 0; off < len(text); {
		end := strings.IndexByte(text[off:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += off
		}
		lineOff := off
		off = end + 1
		line := text[lineOff:end]
		indent := len(line) - len(strings.TrimLeft(line, " "))
		trimmed := strings.TrimRight(line[indent:], "\r")
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if blockIndent >= 0 && indent > blockIndent {
			continue
		}
		blockIndent = -1
		if next, block := s.line(lineOff, indent, trimmed); block {
			blockIndent = indent
		} else if next > off {
			off = next
		}
	}
	return s.hits
}

// line handles one non-empty line whose text after the indent is trimmed.
// It returns where scanning resumes when a flow collection ran past the
// line, and whether a block scalar starts here.
func (s *yamlScan) line(lineOff, indent int, trimmed string) (int, bool) {
	isSeq := trimmed == "-" || strings.HasPrefix(trimmed, "- ")
	s.popTo(indent, isSeq)
	if isSeq {
		idx := 0
		if len(s.stack) > 0 {
			idx = s.stack[len(s.stack)-1].next
			s.stack[len(s.stack)-1].next++
		}
		s.push(yamlFrame{indent: indent, key: strconv.Itoa(idx)})
		rest := strings.TrimLeft(trimmed[1:], " ")
		indent += len(trimmed) - len(rest)
		trimmed = rest
	}
	if trimmed != "" && (trimmed[0] == '{' || trimmed[0] == '[') {
		return s.flowAt(lineOff + indent), false
	}
	key, val, ok := splitYAMLKey(trimmed)
	if !ok {
		return 0, false
	}
	s.push(yamlFrame{indent: indent, key: key, isKey: true})
	v := strings.TrimLeft(val, " ")
	voff := lineOff + indent + len(trimmed) - len(v)
	if strings.TrimSpace(v) == "" {
		voff = lineOff + indent + len(trimmed)
	}
	if p := s.path; s.want(p) {
		s.hits = append(s.hits, keyHit{path: slices.Clone(p), off: lineOff + indent, voff: voff, value: yamlScalar(val)})
	}
	if v != "" && (v[0] == '{' || v[0] == '[') {
		return s.flowAt(voff), false
	}
	return 0, v != "" && (v[0] == '|' || v[0] == '>')
}

// popTo closes the frames a line at indent ends; a sequence item at a
// key's own indent stays under that key.
func (s *yamlScan) popTo(indent int, isSeq bool) {
	n := len(s.stack)
	for n > 0 {
		top := s.stack[n-1]
		if top.indent > indent || (top.indent == indent && !(isSeq && top.isKey)) {
			n--
			continue
		}
		break
	}
	s.stack, s.path = s.stack[:n], s.path[:n]
}

func (s *yamlScan) push(f yamlFrame) {
	s.stack = append(s.stack, f)
	s.path = append(s.path, f.key)
}

// flowAt scans the flow collection at off under the current path and
// returns the offset just past it (0 when it could not be read, so that
// the block scan goes on with the next line and keeps none of its keys).
func (s *yamlScan) flowAt(off int) int {
	f := &s.flow
	f.failed = false
	f.stack = append(f.stack[:0], s.path...)
	f.hits = s.hits
	end := f.value(off, len(f.stack))
	if f.failed {
		return 0
	}
	s.hits = f.hits
	return end
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
