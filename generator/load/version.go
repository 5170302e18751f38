package load

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
)

// versionInfo is what the sniffer learns before choosing a parser.
type versionInfo struct {
	version string
	swagger bool
	pos     Position
}

// sniffVersion finds the "openapi" or "swagger" field without a full parse.
// JSON is read with encoding/json because YAML parsers reject some valid
// JSON (Twilio's surrogate-pair escapes); YAML is scanned line by line for a
// top-level key so that a multi-megabyte file is not parsed twice.
func (l *loader) sniffVersion(data []byte) (versionInfo, bool) {
	var info versionInfo
	var found bool
	if looksJSON(data) {
		info, found = sniffJSON(data)
	} else {
		info, found = sniffYAML(data)
	}
	info.pos.File = l.path
	if !found {
		if p, ok := syntaxProblem(l.path, data); ok {
			l.probs = append(l.probs, p)
			return info, false
		}
		l.probs.Errorf(Position{File: l.path, Line: 1, Column: 1},
			`add "openapi: 3.1.0" (or "swagger: \"2.0\"") at the top level`,
			"no openapi or swagger version field found; this is not an OpenAPI document")
		return info, false
	}
	switch {
	case info.version == "2.0":
		info.swagger = true
	case minorVersion(info.version) != "":
	default:
		l.probs.Errorf(info.pos, "convert the spec to OpenAPI 3.2, 3.1, 3.0 or Swagger 2.0",
			"unsupported OpenAPI version %q", info.version)
		return info, false
	}
	return info, true
}

// minorVersion is "3.0", "3.1" or "3.2" for a supported OpenAPI 3 version
// string ("3.1", "3.1.0", "3.2.1"), else "".
func minorVersion(v string) string {
	for _, m := range []string{"3.0", "3.1", "3.2"} {
		if v == m || strings.HasPrefix(v, m+".") {
			return m
		}
	}
	return ""
}

// atLeast31 reports whether an OpenAPI 3 version is 3.1 or later, where
// schemas are JSON Schema 2020-12 ($id, $anchor).
func atLeast31(v string) bool {
	m := minorVersion(v)
	return m == "3.1" || m == "3.2"
}

func looksJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(t) > 0 && t[0] == '{'
}

// sniffJSON finds a top-level version key with the key scanner, which
// walks a multi-megabyte file several times faster than encoding/json's
// tokenizer (and Kubernetes puts "swagger" last). Malformed JSON is left to
// syntaxProblem, before or after kin's attempt.
func sniffJSON(data []byte) (versionInfo, bool) {
	hits := scanKeys(data, true, func(p []string) bool {
		return len(p) == 1 && (p[0] == "openapi" || p[0] == "swagger")
	})
	if len(hits) == 0 {
		return versionInfo{}, false
	}
	h := hits[0]
	var v any
	if err := json.Unmarshal(data[h.voff:h.vend], &v); err != nil {
		return versionInfo{}, false
	}
	line, col := lineCol(data, h.off)
	return versionInfo{version: scalarString(v), pos: Position{Line: line, Column: col}}, true
}

// versionKeys are the spellings of a top-level version key in YAML.
var versionKeys = [][]byte{
	[]byte("openapi:"), []byte(`"openapi":`), []byte(`'openapi':`),
	[]byte("swagger:"), []byte(`"swagger":`), []byte(`'swagger':`),
}

// sniffYAML looks for a column-0 "openapi:" or "swagger:" line. Only lines
// starting with a character some spelling starts with are compared, since
// the key may come last (Stripe's is on line 10282).
func sniffYAML(data []byte) (versionInfo, bool) {
	line := 0
	for len(data) > 0 {
		line++
		var cur []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			cur, data = data[:i], data[i+1:]
		} else {
			cur, data = data, nil
		}
		if len(cur) == 0 || bytes.IndexByte([]byte("os\"'\xef"), cur[0]) < 0 {
			continue
		}
		cur = bytes.TrimPrefix(cur, []byte("\ufeff"))
		for _, k := range versionKeys {
			if rest, ok := bytes.CutPrefix(cur, k); ok {
				return versionInfo{version: yamlScalar(string(rest)), pos: Position{Line: line, Column: 1}}, true
			}
		}
	}
	return versionInfo{}, false
}

// yamlScalar reads a one-line YAML scalar: trims comments and quotes.
func yamlScalar(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') {
		if j := strings.IndexByte(s[1:], s[0]); j >= 0 {
			return s[1 : j+1]
		}
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func scalarString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return ""
}

// lineCol converts a byte offset to a 1-based line and rune column.
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + len([]rune(string(data[start:off])))
}

// problemAt is a small helper for error problems.
func problemAt(pos Position, msg, fix string) diag.Problem {
	return diag.Problem{Pos: pos, Severity: diag.Error, Message: msg, Fix: fix}
}
