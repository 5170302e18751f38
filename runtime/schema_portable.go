package runtime

import (
	"fmt"
	"strings"
)

// portable rewrites one node (its children done) into the keywords of
// portableKeys, returning the notes its description gets, or a
// replacement node (an open map becomes a JSON string).
func (w *schemaRewriter) portable(o *jsonObject, notes []string, root bool) (any, []string) {
	dropNullType(o)
	if !root && isOpenMap(o) {
		value := mapValueNote(o)
		m := openMapString(o, strings.Join(append(notes, value), " "))
		w.bound(m, value)
		return m, nil
	}
	notes = w.unions(o, notes)
	if c, ok := o.get("const"); ok {
		o.del("const")
		o.set("enum", []any{c})
	}
	if e, ok := o.get("enum"); ok {
		if list, ok := e.([]any); ok && !allStrings(list) {
			o.del("enum")
			notes = append(notes, w.bound(o, "One of: "+joinJSON(list)+"."))
		}
	}
	if f, ok := o.get("format"); ok {
		if t, _ := o.get("type"); f != "date-time" || t != "string" {
			o.del("format")
			notes = append(notes, w.bound(o, fmt.Sprintf("Format: %v.", f)))
		}
	}
	o.del("additionalProperties")
	if n := conditionalNote(o); n != "" {
		o.del("if")
		o.del("then")
		o.del("else")
		notes = append(notes, w.bound(o, n))
	}
	for _, k := range append([]string(nil), o.keys...) {
		if portableKeys[k] || k == mcpHeaderKey && w.mcpHeaders {
			continue
		}
		v := o.vals[k]
		o.del(k)
		notes = append(notes, w.bound(o, constraintNote(k, v)))
	}
	typeByKeywords(o)
	if pushIntoArms(o) {
		// The arms now hold what stood beside them (an allOf part's
		// properties, say): the union rules apply to them as written.
		notes = w.armUnion(o, notes)
	}
	if arms, ok := o.vals["anyOf"].([]any); ok && w.profile == ProfileFlat {
		o.del("anyOf")
		var forms []string
		for _, a := range arms {
			if ao, ok := a.(*jsonObject); ok {
				forms = append(forms, w.shapeText(ao))
			}
		}
		notes = append(notes, w.bound(o, "One of: "+strings.Join(forms, "; ")+"."))
	}
	if w.profile == ProfileNullable {
		// google-genai's MCP adapter drops these (its filter knows them
		// by other names); its Schema and strict mode both read a sentence.
		for _, k := range []string{"minItems", "maxItems"} {
			if v, ok := o.get(k); ok {
				o.del(k)
				notes = append(notes, w.bound(o, itemsNote(k, v)))
			}
		}
		nullableOptionals(o)
	}
	return nil, notes
}

// dropNullType removes null from a type list and null arms from anyOf:
// an optional input means the same, and Gemini has no null type.
func dropNullType(o *jsonObject) {
	if t, ok := o.vals["type"].([]any); ok {
		var kept []any
		for _, x := range t {
			if x != "null" {
				kept = append(kept, x)
			}
		}
		if len(kept) == 1 {
			o.set("type", kept[0])
		} else if len(kept) > 1 {
			o.set("type", kept)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		arms, ok := o.vals[k].([]any)
		if !ok {
			continue
		}
		var kept []any
		for _, a := range arms {
			if isNullArm(a) {
				continue
			}
			kept = append(kept, a)
		}
		if len(kept) != len(arms) && len(kept) > 0 {
			o.set(k, kept)
		}
	}
}

// isOpenMap reports an object schema that declares no properties but
// allows some: neither Gemini nor strict mode can say so.
func isOpenMap(o *jsonObject) bool {
	if o.vals["type"] != "object" {
		return false
	}
	if p, ok := o.vals["properties"].(*jsonObject); ok && len(p.keys) > 0 {
		return false
	}
	return o.vals["additionalProperties"] != false
}

// openMapString is the portable form of an open map: a string holding
// the object as JSON.
func openMapString(o *jsonObject, note string) *jsonObject {
	s := newJSONObject()
	s.set("type", "string")
	desc, _ := o.get("description")
	d, _ := desc.(string)
	s.set("description", strings.TrimSpace(strings.TrimSpace(d+" "+note)+
		` A JSON object, written as a JSON string, e.g. "{\"name\": \"value\"}".`))
	return s
}

func mapValueNote(o *jsonObject) string {
	ap, ok := o.vals["additionalProperties"].(*jsonObject)
	if !ok || len(ap.keys) == 0 {
		return ""
	}
	b, err := marshalNoEscape(ap)
	if err != nil || len(b) > 300 {
		return "Values have a schema of their own."
	}
	return "Each value: " + string(b) + "."
}

// unions makes oneOf an anyOf (saying the arms exclude each other), and
// a union whose arms are all objects one object, saying what each arm
// needs: strict clients cannot tell which arm's optional properties a
// model left out.
func (w *schemaRewriter) unions(o *jsonObject, notes []string) []string {
	dropTrivialAnyOf(o)
	if one, ok := o.get("oneOf"); ok {
		o.del("oneOf")
		if _, has := o.get("anyOf"); !has {
			o.set("anyOf", one)
			notes = append(notes, "Exactly one of the alternatives applies.")
		} else {
			notes = append(notes, "Also exactly one of: "+joinJSON(one.([]any))+".")
		}
	}
	if all, ok := o.vals["allOf"].([]any); ok {
		merged := o.clone()
		merged.del("allOf")
		for _, part := range all {
			m, ok := mergeObjects(merged, part)
			if !ok {
				merged = nil
				break
			}
			merged = m
		}
		if merged != nil {
			*o = *merged
		} else {
			o.del("allOf")
			notes = append(notes, "Must also match each of: "+joinJSON(all)+".")
		}
		dropTrivialAnyOf(o)
	}
	return w.armUnion(o, notes)
}

// armUnion rewrites o's anyOf for strict clients: a single arm merges
// into o, object arms become one object (saying what each arm needs),
// and in a mixed union an object arm with optional properties becomes a
// JSON string.
func (w *schemaRewriter) armUnion(o *jsonObject, notes []string) []string {
	arms, ok := o.vals["anyOf"].([]any)
	if !ok {
		return notes
	}
	if len(arms) == 1 {
		if m, ok := mergeInto(o, arms[0], "anyOf"); ok {
			*o = *m
			return notes
		}
	}
	if objs, ok := objectArms(arms); ok && !conflictingProperties(objs) {
		o.del("anyOf")
		props := newJSONObject()
		var required []string
		var forms []string
		for i, a := range objs {
			p, _ := a.vals["properties"].(*jsonObject)
			for _, name := range p.keys {
				if _, has := props.get(name); !has {
					props.set(name, p.vals[name])
				}
			}
			req := stringList(a.vals["required"])
			if i == 0 {
				required = req
			} else {
				required = intersect(required, req)
			}
			forms = append(forms, fmt.Sprintf("(%d) %s", i+1, armSummary(p, req)))
		}
		o.set("type", "object")
		o.set("properties", props)
		if len(required) > 0 {
			o.set("required", toAny(required))
		}
		return append(notes, "Give one of these forms: "+strings.Join(forms, "; ")+".")
	}
	// A mixed union cannot hold an object with optional properties (strict
	// clients cannot tell which arm a null belongs to): such an arm is
	// written as a JSON string, which normalizeArgs decodes.
	for i, a := range arms {
		if ao, ok := a.(*jsonObject); ok && hasOptional(ao) {
			shape := "Shape: " + w.shapeText(ao) + "."
			arms[i] = openMapString(ao, shape)
			w.bound(arms[i].(*jsonObject), shape)
		}
	}
	return notes
}

// pushIntoArms moves o's keywords beside anyOf into each arm: strict
// clients allow none there. It reports whether it moved any.
func pushIntoArms(o *jsonObject) bool {
	arms, ok := o.vals["anyOf"].([]any)
	if !ok {
		return false
	}
	moved := false
	for _, k := range append([]string(nil), o.keys...) {
		if k == "anyOf" || k == "description" || k == "title" {
			continue
		}
		v := o.vals[k]
		for _, a := range arms {
			if ao, ok := a.(*jsonObject); ok {
				if _, has := ao.get(k); !has {
					ao.set(k, v)
				}
			}
		}
		o.del(k)
		moved = true
	}
	return moved
}

// dropTrivialAnyOf removes an anyOf with an arm that accepts every value
// ({}, as a spec's union of required-name lists becomes once mapped): it
// asserts nothing, and pushed into, its arms would become copies of o
// that strict clients refuse.
func dropTrivialAnyOf(o *jsonObject) {
	arms, ok := o.vals["anyOf"].([]any)
	if !ok {
		return
	}
	for _, a := range arms {
		if acceptsAnything(a) {
			o.del("anyOf")
			return
		}
	}
}

// acceptsAnything reports a schema with no assertion: true, or an object
// with at most a title. A description may not count: the portable
// rewrite writes dropped constraints there.
func acceptsAnything(v any) bool {
	if v == true {
		return true
	}
	o, ok := v.(*jsonObject)
	if !ok {
		return false
	}
	for _, k := range o.keys {
		if k != "title" {
			return false
		}
	}
	return true
}

// typeByKeywords gives a typeless schema the type its keywords are about
// (properties: object, items: array). Typeless, it also accepts every
// other type, which no model means to send; strict clients read a typeless
// optional property as nullable and make it required, and Gemini needs a
// type. The full schema, which the server validates, keeps accepting them.
func typeByKeywords(o *jsonObject) {
	if _, ok := o.get("type"); ok {
		return
	}
	if _, ok := o.get("properties"); ok {
		o.set("type", "object")
	} else if _, ok := o.get("items"); ok {
		o.set("type", "array")
	}
}

// mergeObjects merges an allOf part into o: properties and required
// names are joined, any other keyword must agree.
func mergeObjects(o *jsonObject, part any) (*jsonObject, bool) {
	p, ok := part.(*jsonObject)
	if !ok {
		return nil, false
	}
	m := o.clone()
	for _, k := range p.keys {
		v := p.vals[k]
		old, has := m.get(k)
		switch {
		case !has:
			m.set(k, v)
		case k == "properties":
			a, ok1 := old.(*jsonObject)
			b, ok2 := v.(*jsonObject)
			if !ok1 || !ok2 {
				return nil, false
			}
			j := a.clone()
			for _, name := range b.keys {
				if prev, has := j.get(name); has && !sameJSON(prev, b.vals[name]) {
					return nil, false
				}
				j.set(name, b.vals[name])
			}
			m.set(k, j)
		case k == "required":
			m.set(k, toAny(union(stringList(old), stringList(v))))
		case k == "description" || k == "title":
		case !sameJSON(old, v):
			return nil, false
		}
	}
	return m, true
}

func objectArms(arms []any) ([]*jsonObject, bool) {
	var out []*jsonObject
	for _, a := range arms {
		o, ok := a.(*jsonObject)
		if !ok || o.vals["type"] != "object" {
			return nil, false
		}
		if _, ok := o.vals["properties"].(*jsonObject); !ok {
			return nil, false
		}
		out = append(out, o)
	}
	return out, len(out) > 1
}

func armSummary(p *jsonObject, required []string) string {
	if len(required) > 0 {
		return "with " + strings.Join(required, ", ")
	}
	return "any of " + strings.Join(p.keys, ", ")
}

// conditionalNote says in words an if/then/else of the common form: the
// if fixes properties to one value each and requires them, each branch
// only requires properties ("If kind is "a", also give phone; otherwise
// give email."). "" for any other form, which constraintNote writes as
// JSON.
func conditionalNote(o *jsonObject) string {
	cond, ok := o.vals["if"].(*jsonObject)
	if !ok {
		return ""
	}
	props, _ := cond.vals["properties"].(*jsonObject)
	names := stringList(cond.vals["required"])
	if props == nil || len(names) == 0 {
		return ""
	}
	var tests []string
	for _, k := range cond.keys {
		if k != "properties" && k != "required" && k != "type" {
			return ""
		}
	}
	for _, n := range names {
		p, _ := props.vals[n].(*jsonObject)
		if p == nil || len(p.keys) != 1 {
			return ""
		}
		v, ok := p.vals["const"]
		if list, isEnum := p.vals["enum"].([]any); isEnum && len(list) == 1 {
			v, ok = list[0], true
		}
		if !ok {
			return ""
		}
		tests = append(tests, n+" is "+joinJSON([]any{v}))
	}
	if len(props.keys) != len(names) {
		return ""
	}
	branch := func(key string) (string, bool) {
		b, has := o.vals[key]
		if !has {
			return "", true
		}
		bo, ok := b.(*jsonObject)
		if !ok {
			return "", false
		}
		req := stringList(bo.vals["required"])
		if len(bo.keys) != 1 || len(req) == 0 {
			return "", false
		}
		return strings.Join(req, ", "), true
	}
	then, ok1 := branch("then")
	els, ok2 := branch("else")
	if !ok1 || !ok2 || then == "" && els == "" {
		return ""
	}
	out := "If " + strings.Join(tests, " and ")
	if then != "" {
		out += ", also give " + then
	} else {
		out += ", nothing more is needed"
	}
	if els != "" {
		out += "; otherwise give " + els
	}
	return out + "."
}

// constraintNote says a keyword the portable form cannot hold.
func constraintNote(k string, v any) string {
	s := joinJSON([]any{v})
	switch k {
	case "minLength":
		return fmt.Sprintf("At least %s characters.", s)
	case "maxLength":
		return fmt.Sprintf("At most %s characters.", s)
	case "default":
		return fmt.Sprintf("Default: %s.", s)
	case "uniqueItems":
		if v == true {
			return "Items must be unique."
		}
		return ""
	case "exclusiveMinimum":
		return fmt.Sprintf("Greater than %s.", s)
	case "exclusiveMaximum":
		return fmt.Sprintf("Less than %s.", s)
	case "multipleOf":
		return fmt.Sprintf("A multiple of %s.", s)
	case "minProperties":
		return fmt.Sprintf("At least %s entries.", s)
	case "maxProperties":
		return fmt.Sprintf("At most %s entries.", s)
	}
	return fmt.Sprintf("Constraint %s: %s.", k, s)
}

func itemsNote(k string, v any) string {
	if k == "minItems" {
		return fmt.Sprintf("At least %s items.", joinJSON([]any{v}))
	}
	return fmt.Sprintf("At most %s items.", joinJSON([]any{v}))
}

// nullableOptionals lets each optional property of o be null.
func nullableOptionals(o *jsonObject) {
	props, ok := o.vals["properties"].(*jsonObject)
	if !ok {
		return
	}
	required := map[string]bool{}
	for _, r := range stringList(o.vals["required"]) {
		required[r] = true
	}
	for _, name := range props.keys {
		if required[name] {
			continue
		}
		p, ok := props.vals[name].(*jsonObject)
		if !ok {
			continue
		}
		null := newJSONObject()
		null.set("type", "null")
		if arms, ok := p.vals["anyOf"].([]any); ok {
			// An allOf part, already rewritten, may have given it one.
			if !hasNullArm(arms) {
				p.set("anyOf", append(append([]any{}, arms...), null))
			}
			continue
		}
		wrap := newJSONObject()
		inner := p.clone()
		if d, ok := inner.get("description"); ok {
			inner.del("description")
			wrap.set("description", d)
		}
		wrap.set("anyOf", []any{inner, null})
		props.set(name, wrap)
	}
}

func hasNullArm(arms []any) bool {
	for _, a := range arms {
		if isNullArm(a) {
			return true
		}
	}
	return false
}

// isNullArm reports the union arm {"type": "null"}.
func isNullArm(a any) bool {
	ao, ok := a.(*jsonObject)
	return ok && ao.vals["type"] == "null" && len(ao.keys) == 1
}

func allStrings(list []any) bool {
	for _, v := range list {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

func joinJSON(list []any) string {
	parts := make([]string, len(list))
	for i, v := range list {
		b, _ := marshalNoEscape(v)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func stringList(v any) []string {
	list, _ := v.([]any)
	var out []string
	for _, x := range list {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func toAny(list []string) []any {
	out := make([]any, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, y := range b {
		found := false
		for _, x := range out {
			found = found || x == y
		}
		if !found {
			out = append(out, y)
		}
	}
	return out
}

// hasOptional reports a schema with an object, at any depth, that has a
// property it does not require.
func hasOptional(o *jsonObject) bool {
	if items, ok := o.vals["items"].(*jsonObject); ok && hasOptional(items) {
		return true
	}
	if arms, ok := o.vals["anyOf"].([]any); ok {
		for _, a := range arms {
			if ao, ok := a.(*jsonObject); ok && hasOptional(ao) {
				return true
			}
		}
	}
	props, ok := o.vals["properties"].(*jsonObject)
	if !ok {
		return false
	}
	req := stringList(o.vals["required"])
	for _, k := range props.keys {
		if !contains(req, k) {
			return true
		}
		if p, ok := props.vals[k].(*jsonObject); ok && hasOptional(p) {
			return true
		}
	}
	return false
}

// maxShapeText bounds a schema written into a description.
const maxShapeText = 600

// shapeText is o as JSON; when that is too long, its property names and
// every constraint inside it in words (kept keywords and those the
// rewrite moved into descriptions), so that no bound the server enforces
// goes unsaid while the annotations go.
func (w *schemaRewriter) shapeText(o *jsonObject) string {
	if b, err := marshalNoEscape(o); err == nil && len(b) <= maxShapeText {
		return string(b)
	}
	text := "an object"
	if props, _ := o.vals["properties"].(*jsonObject); props != nil {
		text += " with " + strings.Join(props.keys, ", ")
	}
	if notes := w.nestedConstraintNotes(o); len(notes) > 0 {
		text += " (" + strings.Join(notes, " ") + ")"
	}
	return text
}

// bound records note as a constraint moved out of o's keywords into its
// description, for shapeText, and returns it.
func (w *schemaRewriter) bound(o *jsonObject, note string) string {
	if note != "" {
		if w.bounds == nil {
			w.bounds = map[*jsonObject][]string{}
		}
		w.bounds[o] = append(w.bounds[o], note)
	}
	return note
}

// constraintKeys are the keywords the portable form keeps that still
// constrain a value: shapeText words them when it drops the JSON.
var constraintKeys = map[string]bool{"minimum": true, "maximum": true, "pattern": true,
	"minItems": true, "maxItems": true, "minLength": true, "maxLength": true}

// nestedConstraintNotes says, once each, every constraint found at any
// depth of v, naming the property path it applies to.
func (w *schemaRewriter) nestedConstraintNotes(v any) []string {
	var notes []string
	seen := map[string]bool{}
	add := func(at, note string) {
		if note == "" {
			return
		}
		if at != "" {
			note = at + ": " + note
		}
		if !seen[note] {
			seen[note] = true
			notes = append(notes, note)
		}
	}
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch x := v.(type) {
		case *jsonObject:
			for _, n := range w.bounds[x] {
				add(at, n)
			}
			for _, k := range x.keys {
				val := x.vals[k]
				switch {
				case k == "properties":
					if props, ok := val.(*jsonObject); ok {
						for _, n := range props.keys {
							walk(props.vals[n], strings.TrimPrefix(at+"."+n, "."))
						}
					}
				case constraintKeys[k]:
					add(at, nestedNote(k, val))
				case k != "description" && k != "enum":
					walk(val, at)
				}
			}
		case []any:
			for _, e := range x {
				walk(e, at)
			}
		}
	}
	walk(v, "")
	return notes
}

// nestedNote words one constraint keyword for nestedConstraintNotes.
func nestedNote(k string, v any) string {
	s := joinJSON([]any{v})
	switch k {
	case "minimum":
		return fmt.Sprintf("At least %s.", s)
	case "maximum":
		return fmt.Sprintf("At most %s.", s)
	case "pattern":
		return fmt.Sprintf("Matches %s.", s)
	case "minItems", "maxItems":
		return itemsNote(k, v)
	}
	return constraintNote(k, v)
}

// conflictingProperties reports arms that declare one property name with
// different schemas: merged, one would be lost.
func conflictingProperties(arms []*jsonObject) bool {
	seen := map[string]any{}
	for _, a := range arms {
		p, _ := a.vals["properties"].(*jsonObject)
		for _, name := range p.keys {
			if prev, ok := seen[name]; ok && !sameJSON(prev, p.vals[name]) {
				return true
			}
			seen[name] = p.vals[name]
		}
	}
	return false
}
