// Package quality checks a server's tools/list against the rules every
// generated tool must pass: names that every model API accepts, unique;
// a title and a description; an object input schema that forbids
// unknown properties, describes every property, follows the portable
// profile and compiles as JSON Schema 2020-12.
package quality

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Tool is the part of an MCP tool the checks read.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Check returns one message per violation, sorted.
func Check(tools []Tool) []string {
	var issues []string
	seen := map[string]bool{}
	for _, t := range tools {
		add := func(format string, args ...any) {
			issues = append(issues, t.Name+": "+fmt.Sprintf(format, args...))
		}
		if !nameRE.MatchString(t.Name) {
			add("name does not match %s", nameRE)
		}
		if seen[t.Name] {
			add("duplicate name")
		}
		seen[t.Name] = true
		if strings.TrimSpace(t.Title) == "" {
			add("no title")
		}
		if strings.TrimSpace(t.Description) == "" {
			add("no description")
		}
		for _, msg := range checkSchema(t.InputSchema) {
			add("%s", msg)
		}
	}
	sort.Strings(issues)
	return issues
}

func checkSchema(raw json.RawMessage) []string {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{"input schema is not a JSON object: " + err.Error()}
	}
	var out []string
	if root["type"] != "object" {
		out = append(out, "input schema root is not type object")
	}
	if root["additionalProperties"] != false {
		out = append(out, "input schema lacks additionalProperties: false")
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not"} {
		if v, ok := root[k]; ok && !wholeObjectCheck(v) {
			out = append(out, "input schema has "+k+" at the root")
		}
	}
	props, _ := root["properties"].(map[string]any)
	for name, p := range props {
		pm, _ := p.(map[string]any)
		if d, _ := pm["description"].(string); strings.TrimSpace(d) == "" {
			out = append(out, fmt.Sprintf("property %q has no description", name))
		}
	}
	out = append(out, portable(root, "")...)
	if err := compile(raw); err != nil {
		out = append(out, "input schema does not compile as JSON Schema 2020-12: "+err.Error())
	}
	return out
}

// checkKeys are the keywords of a whole-object check: which inputs go
// together (required lists), conditions between them, and combinations of
// such checks; none of them describes a property.
var checkKeys = map[string]bool{"required": true, "if": true, "then": true, "else": true,
	"anyOf": true, "oneOf": true, "allOf": true, "not": true, "description": true}

// wholeObjectCheck reports whether a root combinator only checks the
// object as a whole (a body's "give a or b", an if/then/else the
// generator moved to the input's root), never a union of shapes: those
// are what clients cannot read at the root.
func wholeObjectCheck(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, a := range x {
			if !wholeObjectCheck(a) {
				return false
			}
		}
		return len(x) > 0
	case map[string]any:
		for k, sub := range x {
			if !checkKeys[k] {
				return false
			}
			// A condition and its branches may name properties: they
			// still check the object the root's properties describe.
			if k == "if" || k == "then" || k == "else" {
				continue
			}
			if k != "required" && k != "description" && !wholeObjectCheck(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// portable walks a schema for constructs strict clients refuse: type
// arrays and arrays without items.
func portable(v any, path string) []string {
	var out []string
	switch n := v.(type) {
	case map[string]any:
		if _, isArr := n["type"].([]any); isArr {
			out = append(out, "type array at "+pathOrRoot(path))
		}
		if n["type"] == "array" {
			if _, ok := n["items"]; !ok {
				out = append(out, "array without items at "+pathOrRoot(path))
			}
		}
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue
			}
			out = append(out, portable(n[k], path+"/"+k)...)
		}
	case []any:
		for i, x := range n {
			out = append(out, portable(x, fmt.Sprintf("%s/%d", path, i))...)
		}
	}
	return out
}

func pathOrRoot(p string) string {
	if p == "" {
		return "the root"
	}
	return p
}

func compile(raw json.RawMessage) error {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("tool.json")
	return err
}
