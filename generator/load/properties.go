package load

import "reflect"

// This file holds the one rule for what an object's properties are when
// its allOf parts declare properties too. allOf is a conjunction: a value
// must satisfy the object and every part, so a property declared by more
// than one of them must satisfy every declaration. Neither the object's
// own declaration nor a part's may win over the others.

// MaxAllOfDepth bounds how deep allOf parts (and theirs, through
// references) are followed, so that a cycle of references ends. Every
// walk over allOf parts uses it, so that they agree on what they see.
const MaxAllOfDepth = 8

// ObjectProperties are the properties of an object schema merged with
// those of its allOf parts.
type ObjectProperties struct {
	// Names lists every property name once, in the order first seen: the
	// object's own (sorted), then each part's, depth first.
	Names []string
	// Schemas holds, for each name, what a value of that property must
	// satisfy: the one declaration when every declaration is the same,
	// otherwise their conjunction (see [Document.conjunction]).
	Schemas map[string]*Schema
}

// Properties merges the properties of s and of its allOf parts (through
// references, eight levels deep at most).
func (d *Document) Properties(s *Schema) ObjectProperties {
	out := ObjectProperties{Schemas: map[string]*Schema{}}
	decl := map[string][]*Schema{}
	var walk func(s *Schema, depth int)
	walk = func(s *Schema, depth int) {
		s = d.Resolve(s)
		if s == nil || depth > MaxAllOfDepth {
			return
		}
		for _, n := range s.PropertyOrder {
			if _, seen := decl[n]; !seen {
				out.Names = append(out.Names, n)
			}
			decl[n] = appendDistinct(decl[n], s.Properties[n])
		}
		for _, part := range s.AllOf {
			walk(part, depth+1)
		}
	}
	walk(s, 0)
	for _, n := range out.Names {
		out.Schemas[n] = d.conjunction(decl[n])
	}
	return out
}

// Property is the property name of an object schema, looked up in s and,
// through references, in its allOf parts as [Document.Properties] merges
// them; nil when neither has it.
func (d *Document) Property(s *Schema, name string) *Schema {
	return d.Properties(s).Schemas[name]
}

// PropertyNames are the property names of an object schema and of its
// allOf parts, in the order first seen, each once.
func (d *Document) PropertyNames(s *Schema) []string {
	return d.Properties(s).Names
}

// appendDistinct appends s to list unless a declaration that constrains
// the same is there: the same declaration repeated (a part and the object
// naming the same $ref, or copying the same inline schema, often with
// its own wording) constrains nothing more. The first one's title,
// description and examples are kept.
func appendDistinct(list []*Schema, s *Schema) []*Schema {
	for _, x := range list {
		if sameConstraints(x, s) {
			return list
		}
	}
	return append(list, s)
}

// sameConstraints reports two declarations equal but for the annotations
// a reader sees (title, description, examples) and which change no
// verdict.
func sameConstraints(a, b *Schema) bool {
	if a == b {
		return true
	}
	if a == nil || b == nil {
		return false
	}
	x, y := *a, *b
	x.Title, x.Description, x.Examples = "", "", nil
	y.Title, y.Description, y.Examples = "", "", nil
	return reflect.DeepEqual(x, y)
}

// conjunction is one schema that holds exactly when every one of decls
// holds: decls[0] alone, or a schema whose AllOf lists them all. The
// conjunction also carries what every declaration agrees on and what any
// of them marks, so that a reader of the merged schema sees the property's
// type, its description and its readOnly or writeOnly mark without walking
// the parts; the
// type (with null only where every part allows it) is implied by the
// parts, so it changes no verdict.
func (d *Document) conjunction(decls []*Schema) *Schema {
	if len(decls) == 1 {
		return decls[0]
	}
	c := &Schema{AllOf: decls, Nullable: true}
	for i, x := range decls {
		r := d.Resolve(x)
		if r == nil {
			r = &Schema{}
		}
		if i == 0 {
			c.Type = r.Type
		} else if r.Type != c.Type {
			c.Type = ""
		}
		// A null value is allowed only where every declaration allows it.
		c.Nullable = c.Nullable && r.Nullable
		c.ReadOnly = c.ReadOnly || r.ReadOnly
		c.WriteOnly = c.WriteOnly || r.WriteOnly
		c.Deprecated = c.Deprecated || r.Deprecated
		if c.Description == "" {
			// What the property means, for the model, as the first
			// declaration that says it puts it.
			c.Description = firstNonEmpty(x.Description, r.Description)
		}
	}
	if c.Type == "" {
		c.Nullable = false
	}
	return c
}

// Contradiction reports two JSON types that s requires at once, by its
// own type and those of its allOf arms (through references, as deep as
// [Document.Properties] follows them), so that no value satisfies s: a
// property declared a string by an object and an integer by its part.
// An integer is a number, so those two agree; an arm of several types
// or of none is left out.
func (d *Document) Contradiction(s *Schema) (string, string, bool) {
	var first string
	var walk func(s *Schema, depth int) (string, bool)
	walk = func(s *Schema, depth int) (string, bool) {
		s = d.Resolve(s)
		if s == nil || depth > MaxAllOfDepth {
			return "", false
		}
		if t := s.Type; t != "" && len(s.Types) == 0 {
			switch {
			case first == "":
				first = t
			case !compatibleTypes(first, t):
				return t, true
			}
		}
		for _, arm := range s.AllOf {
			if t, bad := walk(arm, depth+1); bad {
				return t, true
			}
		}
		return "", false
	}
	t, bad := walk(s, 0)
	return first, t, bad
}

// compatibleTypes reports whether some value has both JSON types.
func compatibleTypes(a, b string) bool {
	num := func(t string) bool { return t == "integer" || t == "number" }
	return a == b || num(a) && num(b)
}
