package mapping

import (
	"fmt"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Unions in input schemas. A union (oneOf or anyOf) of many variants
// costs the model more context than it helps, and a compressed schema has
// no room for its arms; either way the model must still learn which
// variants exist. So a union is never cut to a bare description: it is
// summarised, its variants named and, when one property tells them apart
// (a discriminator every variant requires and fixes), that property kept
// as an enum the server enforces. The override file's variants: narrows
// a union to the variants a tool needs, which keeps their full schemas.

// maxUnionVariants is the number of variants above which an input union
// is summarised rather than spelled out.
const maxUnionVariants = maxCombinatorArms

// unionNote matches the note a summary leaves in a description, which the
// compression passes keep (it is all the model knows of the union).
var unionNote = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`One of \d+ shapes`) })

// variant is one arm of a union, with the names it is known by.
type variant struct {
	arm    any
	ref    string // the $defs name of the arm, if it is a reference
	title  string
	values []any // the discriminator's values, when there is one
}

// unionArms returns the union keyword of a schema and its arms.
func unionArms(s map[string]any) (string, []any) {
	for _, k := range []string{"oneOf", "anyOf"} {
		if arms, ok := s[k].([]any); ok && len(arms) > 0 {
			return k, arms
		}
	}
	return "", nil
}

// variants describes the arms of a union; disc is the property that
// tells them apart, or "" when none does.
func variants(arms []any, defs map[string]any) (out []variant, disc string) {
	out = make([]variant, len(arms))
	shapes := make([]map[string]any, len(arms))
	for i, a := range arms {
		am, _ := a.(map[string]any)
		v := variant{arm: a}
		if ref, ok := am["$ref"].(string); ok {
			v.ref = strings.TrimPrefix(ref, "#/$defs/")
		}
		r := resolveDef(am, defs)
		v.title, _ = r["title"].(string)
		out[i], shapes[i] = v, mergedJSON(r, defs, 0)
	}
	disc = discriminatorOf(shapes)
	if disc != "" {
		for i, sh := range shapes {
			out[i].values = fixedJSON(resolveDef(propSchema(sh, disc), defs))
		}
	}
	return out, disc
}

// names are the names a variant is known by, best first.
func (v variant) names() []string {
	var out []string
	for _, x := range v.values {
		out = append(out, fmt.Sprint(x))
	}
	for _, n := range []string{v.ref, v.title} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// label is how a summary names the variant.
func (v variant) label(i int) string {
	if n := v.names(); len(n) > 0 {
		return n[0]
	}
	return fmt.Sprintf("shape %d", i+1)
}

// mergedJSON is an object schema with its allOf parts' properties and
// required lists merged in (through $defs references, a few levels). A
// property declared differently by the object and a part is their
// conjunction, [ir.ConjoinSchemas].
func mergedJSON(s, defs map[string]any, depth int) map[string]any {
	out := map[string]any{"properties": map[string]any{}, "required": []any{}}
	if s == nil || depth > 4 {
		return out
	}
	props := out["properties"].(map[string]any)
	if p, ok := s["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	req := out["required"].([]any)
	for name := range requiredSet(s) {
		req = append(req, name)
	}
	for _, part := range asSlice(s["allOf"]) {
		pm, _ := part.(map[string]any)
		sub := mergedJSON(resolveDef(pm, defs), defs, depth+1)
		for k, v := range sub["properties"].(map[string]any) {
			props[k] = ir.ConjoinSchemas(props[k], v)
		}
		req = append(req, sub["required"].([]any)...)
	}
	out["required"] = req
	return out
}

func propSchema(shape map[string]any, name string) map[string]any {
	p, _ := shape["properties"].(map[string]any)[name].(map[string]any)
	return p
}

// discriminatorOf is a property every shape requires and fixes (const or
// enum) to values no other shape allows; "" when there is none.
func discriminatorOf(shapes []map[string]any) string {
	if len(shapes) < 2 {
		return ""
	}
	candidates := requiredSet(shapes[0])
	for _, name := range slices.Sorted(maps.Keys(candidates)) {
		seen := map[string]bool{}
		ok := true
		for _, sh := range shapes {
			values := fixedJSON(propSchema(sh, name))
			if !requiredSet(sh)[name] || len(values) == 0 {
				ok = false
				break
			}
			for _, v := range values {
				key := mustMarshal(v)
				ok = ok && !seen[key]
				seen[key] = true
			}
		}
		if ok {
			return name
		}
	}
	return ""
}

// fixedJSON are the values a property schema allows when it lists them.
func fixedJSON(p map[string]any) []any {
	if p == nil {
		return nil
	}
	if c, ok := p["const"]; ok {
		return []any{c}
	}
	if e, _ := p["enum"].([]any); len(e) > 0 {
		return e
	}
	// A conjunction (mergedJSON's allOf of a property's declarations)
	// fixes the values every arm that fixes values allows.
	var out []any
	fixed := false
	for _, arm := range asSlice(p["allOf"]) {
		am, _ := arm.(map[string]any)
		vals := fixedJSON(am)
		if len(vals) == 0 {
			continue
		}
		if !fixed {
			out, fixed = vals, true
			continue
		}
		out = slices.DeleteFunc(slices.Clone(out), func(v any) bool {
			return !slices.ContainsFunc(vals, func(x any) bool { return reflect.DeepEqual(x, v) })
		})
	}
	return out
}

// summarizeUnion replaces the union of s by a summary: a note naming
// the variants, and with structure, when a discriminator tells them
// apart, an object requiring it with the variants' values as an enum.
// Without structure only the note is added (for compressed schemas, which
// keep no nested structure anyway).
func summarizeUnion(s, defs map[string]any, structure bool) string {
	key, arms := unionArms(s)
	if key == "" {
		return ""
	}
	vs, disc := variants(arms, defs)
	labels := make([]string, len(vs))
	var values []any
	for i, v := range vs {
		labels[i] = v.label(i)
		values = append(values, v.values...)
	}
	delete(s, key)
	note := fmt.Sprintf("One of %d shapes the API accepts", len(vs))
	if disc != "" {
		note += fmt.Sprintf(", told apart by %q", disc)
	}
	note += ": " + strings.Join(labels, ", ") + ". Send the fields of one; the API checks them."
	appendDescription(s, note)
	if !structure || disc == "" {
		return note
	}
	if t, _ := s["type"].(string); t != "" && t != "object" {
		return note
	}
	s["type"] = "object"
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		s["properties"] = props
	}
	if _, ok := props[disc]; !ok {
		props[disc] = map[string]any{"enum": values, "description": "Which of the shapes this is."}
	}
	req := requiredSet(s)
	req[disc] = true
	names := slices.Sorted(maps.Keys(req))
	list := make([]any, len(names))
	for i, n := range names {
		list[i] = n
	}
	s["required"] = list
	return note
}

// summarizeLargeUnions summarises, anywhere in an input schema (its
// $defs included), every union of more than maxUnionVariants variants.
func summarizeLargeUnions(root map[string]any) {
	defs, _ := root["$defs"].(map[string]any)
	walkSchemas(root, 0, func(s map[string]any, _ int) {
		if _, arms := unionArms(s); len(arms) > maxUnionVariants {
			summarizeUnion(s, defs, true)
		}
	})
}

// narrowUnion keeps the variants of the union in schema that names
// lists; one variant left replaces the union. It returns the names that
// match no variant, and every name the variants are known by.
func narrowUnion(schema, defs map[string]any, names []string) (unknown, known []string) {
	if _, ok := schema["$ref"].(string); ok {
		// A named union: narrow this input's copy, so other inputs using
		// the definition keep all of it.
		d := deepCopy(resolveDef(schema, defs))
		delete(schema, "$ref")
		for k, v := range d {
			if _, set := schema[k]; !set {
				schema[k] = v
			}
		}
	}
	target := schema
	key, arms := unionArms(target)
	if key == "" {
		return names, nil
	}
	vs, _ := variants(arms, defs)
	var kept []any
	for _, want := range names {
		found := false
		for _, v := range vs {
			for _, n := range v.names() {
				if n == want {
					found = true
					kept = append(kept, v.arm)
					break
				}
			}
			if found {
				break
			}
		}
		if !found {
			unknown = append(unknown, want)
		}
	}
	for _, v := range vs {
		known = append(known, v.names()...)
	}
	sort.Strings(known)
	if len(unknown) > 0 {
		return unknown, known
	}
	if len(kept) == 1 {
		delete(target, key)
		am, _ := kept[0].(map[string]any)
		if ref, ok := am["$ref"]; ok && len(am) == 1 && len(structuralKeys(target)) == 0 {
			target["$ref"] = ref // strict clients read a $ref, not every allOf
		} else if am != nil {
			target["allOf"] = append(asSlice(target["allOf"]), am)
		}
		return nil, known
	}
	target[key] = kept
	return nil, known
}

// structuralKeys are a schema's keywords other than annotations.
func structuralKeys(s map[string]any) []string {
	var out []string
	for k := range s {
		switch k {
		case "description", "title", "examples", "deprecated":
		default:
			out = append(out, k)
		}
	}
	return out
}

// hasLargeUnion reports a union of more than maxUnionVariants variants
// anywhere in a schema.
func hasLargeUnion(root map[string]any) bool {
	found := false
	walkSchemas(root, 0, func(s map[string]any, _ int) {
		if _, arms := unionArms(s); len(arms) > maxUnionVariants {
			found = true
		}
	})
	return found
}
