package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// completion/complete for the variables of resource templates: the enum
// values and examples of the tool input each variable fills, those that
// start with what was typed (case-insensitive), in schema order, at most
// maxCompletions. The capability is declared only when some variable has
// values to offer. The runtime serves no prompts, so a prompt reference,
// like any reference the server does not know, completes to nothing.

// maxCompletions is the protocol's bound on values per answer.
const maxCompletions = 100

// varSchema is what a template variable needs of its tool input.
type varSchema struct {
	typ    string // JSON Schema type, "" when not a single one
	values []string
}

// inputProperties reads the top-level properties of an input schema and
// its required list.
func inputProperties(schema string) (map[string]*varSchema, []string, error) {
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
	out := make(map[string]*varSchema, len(s.Properties))
	for name, p := range s.Properties {
		vs := &varSchema{}
		vs.typ, _ = p.Type.(string)
		seen := map[string]bool{}
		for _, v := range append(append(p.Enum, p.Examples...), p.Example) {
			if t := scalarText(v); isScalar(v) && !seen[t] {
				seen[t] = true
				vs.values = append(vs.values, t)
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

// value is a variable's text as the tool input takes it: a number or
// boolean when the input is one and the text reads as one, else the text
// (which the tool's validation then judges).
func (vs *varSchema) value(text string) any {
	switch vs.typ {
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

// complete answers completion/complete.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var values []string
	if p.Ref != nil && p.Ref.Type == "ref/resource" {
		for _, r := range s.resources {
			if r.spec.URITemplate == p.Ref.URI {
				if v := r.vars[p.Argument.Name]; v != nil {
					values = v.values
				}
			}
		}
	}
	return &mcp.CompleteResult{Completion: completion(values, p.Argument.Value)}, nil
}

// completion is the answer for the values starting with prefix.
func completion(values []string, prefix string) mcp.CompletionResultDetails {
	out := []string{}
	total := 0
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			total++
			if len(out) < maxCompletions {
				out = append(out, v)
			}
		}
	}
	return mcp.CompletionResultDetails{Values: out, Total: total, HasMore: total > len(out)}
}

// specCompletes reports whether spec declares a template variable with
// values to complete, before anything is bound (the SDK declares the
// capability from the options it is created with).
func specCompletes(spec *ServerDef, written []*Tool) bool {
	tools := map[string]*Tool{}
	for _, t := range append(append([]*Tool(nil), spec.Tools...), written...) {
		tools[t.Name] = t
	}
	for _, r := range spec.Resources {
		t, err := parseURITemplate(r.URITemplate)
		if err != nil || tools[r.Tool] == nil {
			continue
		}
		props, _, err := inputProperties(tools[r.Tool].InputSchema)
		if err != nil {
			continue
		}
		for _, v := range t.vars {
			if p := props[v]; p != nil && len(p.values) > 0 {
				return true
			}
		}
	}
	return false
}
