package jsonschema

import (
	"fmt"
	"slices"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

func (v *Validator) evalObject(n *Node, obj map[string]any, p *valuePath, depth int) {
	for _, r := range n.required {
		if _, ok := obj[r]; !ok && v.report() {
			v.add(v.child(p, r, -1), "is required but missing%s", exampleHint(n.properties[r]))
		}
	}
	if n.minProps >= 0 && len(obj) < n.minProps && v.report() {
		v.add(p, "must have at least %d properties; got %d", n.minProps, len(obj))
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps && v.report() {
		v.add(p, "must have at most %d properties; got %d", n.maxProps, len(obj))
	}
	v.evalDependencies(n, obj, p, depth)
	if v.stop() || n.properties == nil && n.patternProps == nil && n.additional == nil && n.propertyNames == nil {
		return
	}
	// Visit keys in a stable order so messages do not flicker between
	// calls; the buffer keeps small objects off the heap.
	var buf [32]string
	keys := buf[:0]
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v.evalProperty(n, k, obj[k], p, depth); v.stop() {
			return
		}
	}
}

// evalProperty checks one property against properties, patternProperties,
// additionalProperties and propertyNames.
func (v *Validator) evalProperty(n *Node, k string, val any, p *valuePath, depth int) {
	seg := v.child(p, k, -1)
	sub, declared := n.properties[k]
	if declared {
		v.eval(sub, val, seg, depth+1)
	}
	for _, pp := range n.patternProps {
		if pp.re.MatchString(k) {
			declared = true
			v.eval(pp.node, val, seg, depth+1)
		}
	}
	if !declared && n.additional != nil {
		if n.additional.alwaysFalse {
			if v.report() {
				v.add(seg, "is not an allowed property%s", n.allowedHint(k))
			}
		} else {
			v.eval(n.additional, val, seg, depth+1)
		}
	}
	if n.propertyNames != nil {
		if !v.matches(n.propertyNames, k, depth) && v.report() {
			v.add(p, "must not have the property name %q (the name %s)", k, firstProblem(n.propertyNames, k, depth))
		}
	}
}

func (v *Validator) evalDependencies(n *Node, obj map[string]any, p *valuePath, depth int) {
	for _, d := range n.depRequired {
		if _, present := obj[d.prop]; !present {
			continue
		}
		for _, name := range d.names {
			if _, ok := obj[name]; !ok && v.report() {
				v.add(v.child(p, name, -1), "is required when %q is present", d.prop)
			}
		}
	}
	for _, d := range n.depSchemas {
		if _, present := obj[d.prop]; present {
			v.eval(d.node, obj, p, depth+1)
		}
	}
}

// allowedHint suggests the closest declared property and lists them all.
func (n *Node) allowedHint(k string) string {
	if len(n.propNames) == 0 {
		return "; this tool takes no such input"
	}
	hint := ""
	if best := textkit.Suggest(k, n.propNames); best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	list := n.propNames
	suffix := ""
	if len(list) > 20 {
		list, suffix = list[:20], ", …"
	}
	return fmt.Sprintf("%s; allowed properties are %s%s", hint, textkit.QuoteAll(list), suffix)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
