package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/goccy/go-yaml/parser"

	"github.com/oa2mcp/oa2mcp/generator/diag"
)

// Syntax errors and decode errors, reported where the user has to look:
// JSON as JSON (a truncated file too), an unclosed YAML flow collection at
// its opening bracket rather than wherever the parser gave up, and a value
// of the wrong kind in the words of the OpenAPI document, never in the
// Go types the decoder fills.

var goccyPosRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(\d+):(\d+)\]`) })

// syntaxProblem checks data for JSON or YAML syntax errors and returns the
// first one with its position. A document starting with "{" is checked as
// JSON only, whatever its name: the YAML parser can loop on broken JSON,
// and a YAML flow mapping with a syntax error is rare.
func syntaxProblem(file string, data []byte) (diag.Problem, bool) {
	if !looksJSON(data) {
		return yamlSyntaxProblem(file, data)
	}
	var v any
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&v); err != nil {
		return jsonSyntaxProblem(file, data, err), true
	}
	return diag.Problem{}, false
}

// jsonSyntaxProblem places a JSON decoding error.
func jsonSyntaxProblem(file string, data []byte, err error) diag.Problem {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, max(int(se.Offset)-1, 0)) // Offset is just past the culprit
		return problemAt(Position{File: file, Line: line, Column: col}, "invalid JSON: "+strings.TrimPrefix(se.Error(), "json: "), "fix the JSON syntax")
	}
	end := len(bytes.TrimRight(data, " \t\r\n"))
	line, col := lineCol(data, end)
	pos := Position{File: file, Line: line, Column: col}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		msg := "invalid JSON: the file ends in the middle of the document"
		if open, ok := innermostOpen(data); ok {
			oline, ocol := lineCol(data, open)
			msg += fmt.Sprintf(" (the %q at %d:%d is never closed)", data[open], oline, ocol)
		}
		return problemAt(pos, msg, "the file may be cut short: fetch or save it again")
	}
	return problemAt(pos, "invalid JSON: "+strings.TrimPrefix(err.Error(), "json: "), "fix the JSON syntax")
}

// innermostOpen finds the innermost JSON bracket left open at the end of
// data, skipping strings.
func innermostOpen(data []byte) (int, bool) {
	var stack []int
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '{', '[':
			stack = append(stack, i)
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	if len(stack) == 0 {
		return 0, false
	}
	return stack[len(stack)-1], true
}

// yamlSyntaxProblem runs the YAML parser and places its first error.
func yamlSyntaxProblem(file string, data []byte) (diag.Problem, bool) {
	_, err := parser.ParseBytes(data, 0)
	if err == nil {
		return diag.Problem{}, false
	}
	type tokenError interface {
		GetMessage() string
	}
	var te tokenError
	if !errors.As(err, &te) {
		return problemAt(Position{File: file}, "invalid YAML: "+err.Error(), "fix the YAML syntax"), true
	}
	pos := Position{File: file}
	if m := goccyPosRe().FindStringSubmatch(err.Error()); m != nil {
		pos.Line, _ = strconv.Atoi(m[1])
		pos.Column, _ = strconv.Atoi(m[2])
	}
	msg := te.GetMessage()
	li := newLineIndex(data)
	at := li.offset(pos.Line, pos.Column)
	switch {
	case strings.ContainsAny(msg, "]}") || strings.Contains(msg, "flow"):
		// The parser reports where it gave up, which may be hundreds of
		// lines below the bracket that was never closed.
		if open, ok := unclosedFlow(data, at); ok {
			line, col := li.pos(open)
			text := fmt.Sprintf("invalid YAML: this %q is never closed", data[open])
			if line != pos.Line || col != pos.Column {
				text += fmt.Sprintf(" (the parser stopped at %d:%d: %s)", pos.Line, pos.Column, msg)
			}
			return problemAt(Position{File: file, Line: line, Column: col}, text, fmt.Sprintf("add the closing %q", closing(data[open]))), true
		}
	case strings.Contains(msg, "mapping value is not allowed"):
		// Reported at the start of the scalar before the stray colon.
		if colon, ok := strayColon(data, at); ok {
			pos.Line, pos.Column = li.pos(colon)
			return problemAt(pos, "invalid YAML: "+msg+" (check the indentation, or quote a value that holds \": \")", "fix the YAML syntax"), true
		}
	}
	return problemAt(pos, "invalid YAML: "+msg, "fix the YAML syntax"), true
}

// closing is the bracket that closes open.
func closing(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}

// offset converts a 1-based line and rune column back to a byte offset.
func (li *lineIndex) offset(line, col int) int {
	if line < 1 || line > len(li.starts) {
		return len(li.data)
	}
	off := li.starts[line-1]
	for i := 1; i < col && off < len(li.data) && li.data[off] != '\n'; i++ {
		_, size := utf8.DecodeRune(li.data[off:])
		off += size
	}
	return off
}

// unclosedFlow finds the innermost YAML flow collection ("[" or "{")
// still open at offset upto (the byte there included). A bracket opens one only where a value
// starts: first on a line, after "- ", or after "key: "; quoted scalars,
// comments and block scalars are skipped.
func unclosedFlow(data []byte, upto int) (int, bool) {
	var stack []int
	blockIndent := -1
	for off := 0; off < len(data) && off <= upto; {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data) - off
		}
		line := data[off : off+end]
		lineOff := off
		off += end + 1
		indent := len(line) - len(bytes.TrimLeft(line, " "))
		body := bytes.TrimRight(line[indent:], "\r")
		if len(stack) == 0 && blockIndent >= 0 && (len(body) == 0 || indent > blockIndent) {
			continue
		}
		blockIndent = -1
		if len(stack) == 0 {
			start, block := flowStart(body)
			if block {
				blockIndent = indent
			}
			if start < 0 {
				continue
			}
			stack = scanFlow(data, lineOff+indent+start, min(lineOff+indent+len(body), upto+1), stack)
			continue
		}
		stack = scanFlow(data, lineOff, min(lineOff+len(line), upto+1), stack)
	}
	if len(stack) == 0 {
		return 0, false
	}
	return stack[len(stack)-1], true
}

// flowStart returns where a flow collection starts in a block line's
// text (-1 for none) and whether a block scalar starts on it.
func flowStart(body []byte) (int, bool) {
	s := string(body)
	start := 0
	for strings.HasPrefix(s[start:], "- ") {
		start += 2
		for start < len(s) && s[start] == ' ' {
			start++
		}
	}
	rest := s[start:]
	if _, v, ok := splitYAMLKey(rest); ok {
		trimmed := strings.TrimLeft(v, " ")
		start += len(rest) - len(trimmed)
		rest = trimmed
	}
	switch {
	case rest == "":
		return -1, false
	case rest[0] == '[' || rest[0] == '{':
		return start, false
	case rest[0] == '|' || rest[0] == '>':
		return -1, true
	}
	return -1, false
}

// scanFlow moves through data[from:to] inside flow context, pushing and
// popping brackets; quoted scalars and comments are skipped.
func scanFlow(data []byte, from, to int, stack []int) []int {
	for i := from; i < to; i++ {
		switch c := data[i]; c {
		case '[', '{':
			stack = append(stack, i)
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 {
				return stack // the rest of the line is outside flow context
			}
		case '"', '\'':
			if startsScalar(data, from, i) {
				i = skipQuoted(data, i, to)
			}
		case '#':
			if i == 0 || isSpace(data[i-1]) {
				for i < to && data[i] != '\n' {
					i++
				}
			}
		}
	}
	return stack
}

// startsScalar reports whether the quote at i opens a quoted scalar: it
// follows a bracket, a comma, a colon or nothing on the line. Elsewhere it
// is part of a plain scalar ("it's").
func startsScalar(data []byte, from, i int) bool {
	for j := i - 1; j >= from; j-- {
		switch data[j] {
		case ' ', '\t':
			continue
		case '[', '{', ',', ':', '\n':
			return true
		}
		return false
	}
	return true
}

// skipQuoted returns the offset of the closing quote of the scalar
// opened at i (or to when it is not closed before to).
func skipQuoted(data []byte, i, to int) int {
	q := data[i]
	for j := i + 1; j < to; j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case data[j] == q && q == '\'' && j+1 < to && data[j+1] == '\'':
			j++
		case data[j] == q:
			return j
		}
	}
	return to
}

// strayColon finds the first ": " (or ":" at a line end) from off on,
// where a plain scalar cannot hold one.
func strayColon(data []byte, off int) (int, bool) {
	for i := off; i < len(data); i++ {
		if data[i] == ':' && (i+1 == len(data) || isSpace(data[i+1])) {
			return i, true
		}
	}
	return 0, false
}
