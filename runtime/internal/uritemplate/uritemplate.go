// Package uritemplate holds the URI templates of tools served as
// resources (level-1 templates whose variables are one clean path segment
// each) and the rule binding a template to its tool's inputs, which the
// runtime serves with and the generator checks override files with.
package uritemplate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Template is a parsed level-1 URI template: literals and {var}s,
// alternating; a variable matches one non-empty path segment.
type Template struct {
	literals []string // len(vars)+1
	Vars     []string
}

// Parse parses "scheme://a/{x}/b{y}": a scheme, literals
// without '{' '}' or spaces, and simple variables (letters, digits, '_'),
// each used once and separated by a literal.
func Parse(t string) (*Template, error) {
	if i := strings.Index(t, "://"); i <= 0 || !validScheme(t[:i]) {
		return nil, errors.New("the URI template must start with a scheme such as petstore://")
	}
	ut := &Template{}
	rest := t
	for {
		open := strings.IndexByte(rest, '{')
		lit := rest
		if open >= 0 {
			lit = rest[:open]
		}
		if strings.ContainsAny(lit, "} \t\r\n") {
			return nil, fmt.Errorf("%q has a stray '}' or a space", t)
		}
		if len(ut.Vars) > 0 && open == 0 {
			return nil, fmt.Errorf("%q has two variables side by side; put a literal such as '/' between them", t)
		}
		ut.literals = append(ut.literals, lit)
		if open < 0 {
			return ut, nil
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, fmt.Errorf("%q has an unclosed '{'", t)
		}
		name := rest[open+1 : open+end]
		if !validVarName(name) {
			return nil, fmt.Errorf("%q: {%s} is not a simple variable (letters, digits and '_'; no operators such as + # / ?)", t, name)
		}
		for _, v := range ut.Vars {
			if v == name {
				return nil, fmt.Errorf("%q uses {%s} twice", t, name)
			}
		}
		ut.Vars = append(ut.Vars, name)
		rest = rest[open+end+1:]
	}
}

func validScheme(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return s != ""
}

func validVarName(s string) bool {
	for _, r := range s {
		if !(r == '_' || r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return s != ""
}

// Match returns the decoded variables of uri, or false. A variable is
// the text up to the next literal: it must be non-empty, hold no '/',
// '?', '#' or '\', decode (percent-encoding) to valid text without
// control characters, slashes or backslashes, and not be "." or "..".
func (ut *Template) Match(uri string) (map[string]string, bool) {
	rest, ok := strings.CutPrefix(uri, ut.literals[0])
	if !ok {
		return nil, false
	}
	vals := make(map[string]string, len(ut.Vars))
	for i, name := range ut.Vars {
		next := ut.literals[i+1]
		var raw string
		if next == "" {
			raw, rest = rest, ""
		} else {
			j := strings.Index(rest, next)
			if j < 0 {
				return nil, false
			}
			raw, rest = rest[:j], rest[j+len(next):]
		}
		v, ok := cleanSegment(raw)
		if !ok {
			return nil, false
		}
		vals[name] = v
	}
	return vals, rest == ""
}

// cleanSegment decodes one variable's text; false for anything that is
// no single clean path segment.
func cleanSegment(raw string) (string, bool) {
	if raw == "" || strings.ContainsAny(raw, "/?#\\") {
		return "", false
	}
	v, err := url.PathUnescape(raw)
	if err != nil || v == "." || v == ".." || strings.ContainsAny(v, "/\\") {
		return "", false
	}
	for _, r := range v {
		if r == unicode.ReplacementChar || unicode.IsControl(r) {
			return "", false
		}
	}
	return v, true
}

// Var is what a template variable needs of its tool input.
type Var struct {
	Type   string // JSON Schema type, "" when not a single one
	Values []string
}

// InputProperties reads the top-level properties of an input schema and
// its required list.
func InputProperties(schema string) (map[string]*Var, []string, error) {
	var s struct {
		Properties map[string]struct {
			Type     any   `json:"type"`
			Enum     []any `json:"enum"`
			Examples []any `json:"examples"`
			Example  any   `json:"example"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		return nil, nil, fmt.Errorf("input schema: %w", err)
	}
	out := make(map[string]*Var, len(s.Properties))
	for name, p := range s.Properties {
		vs := &Var{}
		vs.Type, _ = p.Type.(string)
		seen := map[string]bool{}
		for _, v := range append(append(p.Enum, p.Examples...), p.Example) {
			if t := textkit.ScalarText(v); isScalar(v) && !seen[t] {
				seen[t] = true
				vs.Values = append(vs.Values, t)
			}
		}
		out[name] = vs
	}
	return out, s.Required, nil
}

// isScalar reports a string, number or boolean: what a URI variable
// can carry.
func isScalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

// Value is a variable's text as the tool input takes it: a number or
// boolean when the input is one and the text reads as one, else the text
// (which the tool's validation then judges).
func (vs *Var) Value(text string) any {
	switch vs.Type {
	case "integer", "number":
		if isJSONNumber(text) {
			return json.Number(text)
		}
	case "boolean":
		if text == "true" || text == "false" {
			return text == "true"
		}
	}
	return text
}

// isJSONNumber reports text that is a JSON number.
func isJSONNumber(text string) bool {
	var n json.Number
	return json.Unmarshal([]byte(text), &n) == nil && text != "" && text[0] != '"'
}

// Tool is what binding reads of the tool a resource reads through.
type Tool struct {
	Name, InputSchema string
	// Asks is whether the tool asks the user anything before it runs
	// (Tool.Asks or Tool.Confirm).
	Asks bool
}

// Bind reports why a resource with template uriTemplate cannot be served
// by tool t, or gives the template and each variable's input: the
// template parses, the tool asks nobody anything, and it has an input
// property for every variable and a variable for every required input.
// NewServer binds with it; the generator checks override files with it
// (oa2mcpimpl.CheckResource).
func Bind(uriTemplate string, t Tool) (*Template, map[string]*Var, error) {
	tmpl, err := Parse(uriTemplate)
	if err != nil {
		return nil, nil, err
	}
	if t.Asks {
		return nil, nil, fmt.Errorf("tool %q asks the user before it runs, which a resource read cannot", t.Name)
	}
	props, required, err := InputProperties(t.InputSchema)
	if err != nil {
		return nil, nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	vars := map[string]*Var{}
	for _, v := range tmpl.Vars {
		p, ok := props[v]
		if !ok {
			return nil, nil, fmt.Errorf("variable {%s} is no input of tool %q", v, t.Name)
		}
		vars[v] = p
	}
	for _, name := range required {
		if vars[name] == nil {
			return nil, nil, fmt.Errorf("tool %q requires %q, which the template has no variable for", t.Name, name)
		}
	}
	return tmpl, vars, nil
}
