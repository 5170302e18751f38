package lint

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// exampleWords: every match of exampleRE holds one of them, case aside.
var exampleWords = []string{"e.g.", "example", "such as", "format", "like", "yyyy", "iso", "rfc", "one of", "uuid", "url", "uri"}

// exampleRE finds an example or a format in prose.
var exampleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\be\.g\.|\bfor example\b|\bexample\b|\bsuch as\b|\bformat(ted)?\b|\blike ["'\x60]|\bYYYY|\bISO ?8601\b|\bRFC ?\d+|\bone of\b|\bUUID\b|\bURL\b|\bURI\b`)
})

// inputRoot is t's input schema decoded as the runtime decodes it; nil
// when it is no JSON object.
func inputRoot(t *ir.Tool) map[string]any {
	v, err := oa2mcpimpl.DecodeJSON(t.InputSchema)
	if err != nil {
		return nil
	}
	root, _ := v.(map[string]any)
	return root
}

// params runs the rules about a tool's input properties; root is the
// decoded input schema (inputRoot).
func (c *checker) params(t *ir.Tool, root map[string]any) {
	if root == nil {
		return
	}
	defs, _ := root["$defs"].(map[string]any)
	props, _ := root["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p, _ := props[n].(map[string]any)
		c.param(t.Name, n, p, resolve(p, defs))
	}
	req, _ := root["required"].([]any)
	if len(req) > c.cfg.MaxRequired {
		c.add("required-params", t.Name, "", fmt.Sprintf("the tool has %d required inputs, more than %d; each one tempts the model to invent a value", len(req), c.cfg.MaxRequired),
			"make inputs with sensible defaults optional (stating the default) and take identities from the caller, not from parameters")
	}
}

// param checks one top-level property; p is as written, r with a
// top-level $ref resolved.
// quoteName quotes an input's name in a message, so that a finding about
// an input called "description" is not read as one about the tool's
// description.
func quoteName(name string) string { return strconv.Quote(name) }

func (c *checker) param(tool, name string, p, r map[string]any) {
	desc, _ := p["description"].(string)
	if desc == "" {
		desc, _ = r["description"].(string)
	}
	desc = strings.TrimSpace(desc)
	typ, _ := r["type"].(string)
	switch {
	case desc == "":
		c.add("param-described", tool, name, fmt.Sprintf("input %s has no description", quoteName(name)), "describe what it means, its format and an example value")
	case needsExample(typ, r) && !hasExampleKey(p, r) && !c.matches(exampleRE(), exampleWords, desc):
		c.add("param-described", tool, name, fmt.Sprintf("the description of input %s gives neither a format nor an example value", quoteName(name)),
			"end the description with an example value (\"..., e.g. available\") or add examples or a format to the schema")
	}
	// CallerIdentity, memoised; an enum is a choice, never an identity.
	if len(enumOf(r)) == 0 && (c.matches(identityHeaderRE(), nil, strings.TrimSpace(name)) || c.matches(identityDescRE(), identityWords, desc)) {
		c.add("caller-identity", tool, name, fmt.Sprintf("input %s looks like the caller's own identity, which", quoteName(name))+" the model fills and so could set to anyone's",
			"bind it from the caller's verified token in the override file (input: {"+name+": {identity: sub}}), so the model never sees it")
	}
	enum := enumOf(r)
	if len(enum) > 0 && !explainsEnum(desc, enum) {
		c.add("enum-explained", tool, name, fmt.Sprintf("the values %s of input %s are not explained in its description", joinCapped(enum, 6), quoteName(name)),
			"say what each value means, e.g. \"available: can be ordered now; pending: reserved\"")
	}
}

// needsExample: scalars (and arrays of them) need a format or example;
// booleans and objects explain themselves through their shape.
func needsExample(typ string, r map[string]any) bool {
	switch typ {
	case "string", "integer", "number":
		return true
	case "array":
		items, _ := r["items"].(map[string]any)
		it, _ := items["type"].(string)
		return it == "string" || it == "integer" || it == "number"
	}
	return false
}

// hasExampleKey: the schema (or its items) gives examples, a default, a
// format, values or a pattern.
func hasExampleKey(p, r map[string]any) bool {
	for _, m := range []map[string]any{p, r} {
		for _, k := range []string{"examples", "example", "default", "format", "enum", "const", "pattern"} {
			if _, ok := m[k]; ok {
				return true
			}
		}
		if items, ok := m["items"].(map[string]any); ok {
			for _, k := range []string{"examples", "format", "enum", "pattern"} {
				if _, ok := items[k]; ok {
					return true
				}
			}
		}
	}
	return false
}

// enumOf returns the enum values of a property or of its items, as text;
// a number as the schema writes it (json.Number), which is how its
// description names it: 1000000, not 1e+06.
func enumOf(r map[string]any) []string {
	enum, _ := r["enum"].([]any)
	if len(enum) == 0 {
		if items, ok := r["items"].(map[string]any); ok {
			enum, _ = items["enum"].([]any)
		}
	}
	var out []string
	for _, v := range enum {
		if v != nil {
			out = append(out, fmt.Sprint(v))
		}
	}
	return out
}

// explainsEnum: every value appears in the description; long enums need
// only an explanation that they are a fixed set.
func explainsEnum(desc string, values []string) bool {
	if len(values) > 12 {
		return exampleRE().MatchString(desc)
	}
	low := strings.ToLower(desc)
	for _, v := range values {
		if !strings.Contains(low, strings.ToLower(v)) {
			return false
		}
	}
	return true
}

// resolve follows a top-level "$ref": "#/$defs/X" of a property.
func resolve(p map[string]any, defs map[string]any) map[string]any {
	for i := 0; i < 8; i++ {
		ref, _ := p["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return p
		}
		next, _ := defs[name].(map[string]any)
		if next == nil {
			return p
		}
		p = next
	}
	return p
}
