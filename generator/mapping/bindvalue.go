package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Structured bindings: a map or list in step args: that holds ${...}
// references builds the argument's value from its parts, checked part by
// part against the argument's schema. A reference written inside a
// constant would otherwise reach the API as literal text.

// bindTarget is the value a binding (or a part of one) fills: label names
// it in messages ("amount.value"), schema is its JSON schema (refs into
// the operation's defs), required says whether the operation needs it,
// pos is its key path in the override file.
type bindTarget struct {
	label    string
	schema   map[string]any
	required bool
	pos      string
}

// holdsReference reports whether a map or list holds a ${...} reference
// at any depth (a plain string is an expression, not a structure).
func holdsReference(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.Contains(k, "${") || refInside(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if refInside(e) {
				return true
			}
		}
	}
	return false
}

// refInside reports a part of a structure that is or holds a reference.
func refInside(v any) bool {
	if s, ok := v.(string); ok {
		return strings.Contains(s, "${")
	}
	return holdsReference(v)
}

// structuredBinding converts one part of a bound value: a map becomes an
// object of field bindings, a list an array of element bindings, a
// string an expression, anything else a constant. Every part is checked
// against its schema, and the inputs a required part reads are required.
func (tb *taskBuilder) structuredBinding(in *taskInput, info *opInfo, s *overrides.Step, v any, t bindTarget, scope stepScope, after map[string]bool) (ir.Binding, bool) {
	target := resolveDef(t.schema, info.defs)
	switch x := v.(type) {
	case map[string]any:
		if !holdsReference(x) {
			return tb.constPart(info, s, x, t)
		}
		if typ := schemaType(target); typ != "" && typ != "object" {
			tb.problems.Errorf(tb.ov.Pos(t.pos), "bind "+describeSchema(target)+" here, e.g. ${input."+lastLabel(t.label)+"}",
				"%s.%s is %s, not an object: a map cannot build it", s.Operation, t.label, describeSchema(target))
			return ir.Binding{}, false
		}
		return tb.objectBinding(in, info, s, x, t, target, scope, after)
	case []any:
		if !holdsReference(x) {
			return tb.constPart(info, s, x, t)
		}
		if typ := schemaType(target); typ != "" && typ != "array" {
			tb.problems.Errorf(tb.ov.Pos(t.pos), "bind "+describeSchema(target)+" here",
				"%s.%s is %s, not an array: a list cannot build it", s.Operation, t.label, describeSchema(target))
			return ir.Binding{}, false
		}
		items, _ := target["items"].(map[string]any)
		out := ir.Binding{}
		ok := true
		for i, e := range x {
			sub := bindTarget{label: fmt.Sprintf("%s[%d]", t.label, i), schema: items, required: t.required, pos: fmt.Sprintf("%s[%d]", t.pos, i)}
			b, good := tb.structuredBinding(in, info, s, e, sub, scope, after)
			ok = ok && good
			out.Items = append(out.Items, b)
		}
		return out, ok
	}
	expr, err := overrides.ParseExpr(v)
	if err != nil {
		tb.problems.Errorf(tb.ov.Pos(t.pos), "fix the expression", "%v", err)
		return ir.Binding{}, false
	}
	if len(expr.Refs) == 0 {
		return tb.constPart(info, s, v, t)
	}
	for _, ref := range expr.Refs {
		tb.checkRef(in, info, s, t, ref, expr.Whole, scope, after)
	}
	return ir.Binding{Expr: expr.Template}, true
}

// objectBinding builds an object from a map of field bindings: every key
// must be a field the schema allows, and every field it requires must be
// given.
func (tb *taskBuilder) objectBinding(in *taskInput, info *opInfo, s *overrides.Step, x map[string]any, t bindTarget, target map[string]any, scope stepScope, after map[string]bool) (ir.Binding, bool) {
	target = tb.chosenVariant(info, x, target)
	props, _ := target["properties"].(map[string]any)
	req := requiredSet(target)
	closed := target["additionalProperties"] == false
	out := ir.Binding{}
	ok := true
	for _, key := range slices.Sorted(maps.Keys(x)) {
		kp := t.pos + "." + key
		if strings.Contains(key, "${") {
			tb.problems.Errorf(tb.ov.Pos(kp), "write the field name as text; only values may be bindings", "%s: the key %q of a bound object is a reference", t.label, key)
			ok = false
			continue
		}
		sub, known := props[key].(map[string]any)
		// An open object takes any field; one that lists its fields and
		// says nothing of others most likely has a typo here.
		if !known && (closed || len(props) > 0 && target["additionalProperties"] == nil) {
			fix := choices("use one of", slices.Sorted(maps.Keys(props)), "remove it")
			if sug := oa2mcpimpl.Suggest(key, slices.Sorted(maps.Keys(props))); sug != "" {
				fix = "did you mean " + sug + "?"
			}
			tb.problems.Errorf(tb.ov.Pos(kp), fix, "%s.%s has no field %q", s.Operation, t.label, key)
			ok = false
			continue
		}
		// A required object that requires none of its fields needs what
		// the file binds into it: without those inputs it would go out
		// empty, which the runtime drops, and the upstream misses it.
		needed := req[key] || t.required && len(req) == 0
		st := bindTarget{label: t.label + "." + key, schema: sub, required: t.required && needed, pos: kp}
		b, good := tb.structuredBinding(in, info, s, x[key], st, scope, after)
		if !good {
			ok = false
			continue
		}
		b.Arg, b.Required = key, needed
		out.Fields = append(out.Fields, b)
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(req)) {
		if _, given := x[name]; !given {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		tb.problems.Errorf(tb.ov.Pos(t.pos), "add "+strings.Join(missing, ", ")+" to the map, e.g. "+missing[0]+": ${input."+missing[0]+"}",
			"the object bound to %s.%s lacks the field%s it requires: %s", s.Operation, t.label, plural(len(missing)), oa2mcpimpl.JoinList(missing))
		ok = false
	}
	return out, ok
}

// constPart is a constant part of a bound value, checked against its schema.
func (tb *taskBuilder) constPart(info *opInfo, s *overrides.Step, v any, t bindTarget) (ir.Binding, bool) {
	if p := valueProblem(t.schema, info.defs, v); p != "" {
		tb.problems.Errorf(tb.ov.Pos(t.pos), "bind a value the operation accepts: "+describeSchema(resolveDef(t.schema, info.defs)),
			"the constant %s does not fit %s.%s: %s", mustMarshal(v), s.Operation, t.label, p)
		return ir.Binding{}, false
	}
	c, _ := json.Marshal(v)
	return ir.Binding{Const: string(c)}, true
}

// requiredSet is the set of a (resolved) object schema's required fields.
func requiredSet(schema map[string]any) map[string]bool {
	out := map[string]bool{}
	switch list := schema["required"].(type) {
	case []any:
		for _, r := range list {
			if name, ok := r.(string); ok {
				out[name] = true
			}
		}
	case []string:
		for _, name := range list {
			out[name] = true
		}
	}
	return out
}

func lastLabel(label string) string {
	if i := strings.LastIndexAny(label, ".]"); i >= 0 && i+1 < len(label) {
		return label[i+1:]
	}
	return label
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// chosenVariant is, for a map bound to a union, the variant it builds:
// the one whose discriminator value the map fixes as a constant, or the
// only one declaring every key of the map. Otherwise the union itself,
// whose fields nothing constrains here (the API checks them).
func (tb *taskBuilder) chosenVariant(info *opInfo, x map[string]any, target map[string]any) map[string]any {
	_, arms := unionArms(target)
	if len(arms) == 0 {
		return target
	}
	vs, disc := variants(arms, info.defs)
	var fits []map[string]any
	for _, v := range vs {
		am, _ := v.arm.(map[string]any)
		shape := mergedJSON(resolveDef(am, info.defs), info.defs, 0)
		if disc != "" {
			for _, val := range v.values {
				if mustMarshal(val) == mustMarshal(x[disc]) {
					return shape
				}
			}
			continue
		}
		props, _ := shape["properties"].(map[string]any)
		all := true
		for k := range x {
			_, has := props[k]
			all = all && has
		}
		if all {
			fits = append(fits, shape)
		}
	}
	if len(fits) == 1 {
		return fits[0]
	}
	return target
}
