package jsonschema

import (
	"fmt"
	"strconv"
	"strings"
)

func (x violation) text() string {
	if x.path == "" {
		return "the arguments " + x.msg
	}
	return strconv.Quote(x.path) + " " + x.msg
}

// exampleHint renders " (example: V)" from a property's schema, or "".
func exampleHint(n *Node) string {
	if ex, ok := exampleFor(n, 0); ok {
		return " (example: " + ShowValue(ex) + ")"
	}
	return ""
}

func exampleFor(n *Node, depth int) (any, bool) {
	if n == nil || depth > 8 {
		return nil, false
	}
	switch {
	case n.hasExample:
		return n.example, true
	case n.hasDefault:
		return n.defaultVal, true
	case n.hasConst:
		return n.constVal, true
	case len(n.enum) > 0:
		return n.enum[0], true
	case n.ref != nil:
		return exampleFor(n.ref, depth+1)
	}
	if ex, ok := formatExamples[n.format]; ok {
		return ex, true
	}
	return nil, false
}

// Problems returns the texts of the first limit violations, each naming
// its path under root ("the response", say).
func (v *Validator) Problems(root string, limit int) []string {
	var out []string
	for i, x := range v.out {
		if i == limit {
			break
		}
		out = append(out, x.textIn(root))
	}
	return out
}

// Message renders the violations as one isError text.
func Message(v *Validator) string {
	if len(v.out) == 1 && v.extra == 0 {
		return "Invalid arguments: " + v.out[0].text() + ". Fix the value and call again."
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Invalid arguments (%d problems):", len(v.out)+v.extra)
	for _, x := range v.out {
		sb.WriteString("\n- ")
		sb.WriteString(x.text())
	}
	if v.extra > 0 {
		fmt.Fprintf(&sb, "\n- … and %d more", v.extra)
	}
	sb.WriteString("\nFix these values and call again.")
	return sb.String()
}

// ApplyDefaults fills missing optional top-level properties that declare a
// default, so the upstream sees the documented behaviour.
func ApplyDefaults(n *Node, args map[string]any) {
	for _, name := range n.propNames {
		p := n.properties[name]
		if !p.hasDefault {
			continue
		}
		if _, ok := args[name]; !ok {
			args[name] = p.defaultVal
		}
	}
}

// textIn is text with root naming the value at the empty path.
func (x violation) textIn(root string) string {
	if x.path == "" {
		return root + " " + x.msg
	}
	return strconv.Quote(x.path) + " " + x.msg
}
