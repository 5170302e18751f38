package mapping

import (
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// The spec's and the override file's word on which inputs are secret:
// they fill Tool.Sensitive, which the runtime hides in call logs and
// removes from upstream error text. Names alone are judged at run time by
// oa2mcpimpl.IsSecretName, the one name rule.

// isSecretSchema reports whether a property schema declares a secret:
// format password, or writeOnly (sent, never returned).
func isSecretSchema(s map[string]any) bool {
	format, _ := s["format"].(string)
	return format == "password" || s["writeOnly"] == true
}

// secretProps lists the top-level properties of an input schema that
// declare a secret, sorted.
func secretProps(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	var out []string
	for name, p := range props {
		if ps, ok := p.(map[string]any); ok && isSecretSchema(ps) {
			out = append(out, name)
		}
	}
	return sortedUnique(out)
}

// setSensitive fills tool.Sensitive from its input schema and, for a
// tool of the override file, the inputs marked sensitive: true (by their
// final names).
func setSensitive(tool *ir.Tool, schema map[string]any, t *overrides.Tool) {
	names := secretProps(schema)
	if t != nil {
		for name, f := range t.Input {
			if f != nil && f.Sensitive {
				names = append(names, finalName(name, f))
			}
		}
	}
	tool.Sensitive = sortedUnique(names)
}
