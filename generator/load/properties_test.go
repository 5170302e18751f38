package load

import (
	"reflect"
	"testing"
)

// object is an object schema of the given properties (sorted order, as
// the loader writes PropertyOrder) and allOf parts.
func object(props map[string]*Schema, parts ...*Schema) *Schema {
	s := &Schema{Type: "object", Properties: props, AllOf: parts}
	for _, n := range []string{"a", "b", "c", "d"} {
		if _, ok := props[n]; ok {
			s.PropertyOrder = append(s.PropertyOrder, n)
		}
	}
	return s
}

// TestPropertiesConjoinDeclarations: a property the object and its parts
// declare differently is their conjunction, the object's first, whichever
// of them would have won before; the same constraints worded differently
// count once, with the first wording; names come first seen.
func TestPropertiesConjoinDeclarations(t *testing.T) {
	str := &Schema{Type: "string", Description: "A string."}
	short := &Schema{Type: "string", MaxLength: new(uint64(3)), Nullable: true}
	doc := &Document{Schemas: map[string]*Schema{
		"Part": object(map[string]*Schema{"a": short, "c": {Type: "integer", Description: "Counted."}}),
	}}
	body := object(map[string]*Schema{"a": str, "b": {Type: "boolean"}, "c": {Type: "integer", Description: "Other words."}},
		&Schema{Ref: "Part"}, object(map[string]*Schema{"d": {Type: "string"}, "a": str}))
	got := doc.Properties(body)
	if want := []string{"a", "b", "c", "d"}; !reflect.DeepEqual(got.Names, want) {
		t.Fatalf("names %v, want %v", got.Names, want)
	}
	a := got.Schemas["a"]
	if len(a.AllOf) != 2 || a.AllOf[0] != str || a.AllOf[1] != short || a.Type != "string" || a.Nullable || a.Description != "A string." {
		t.Fatalf("a is %+v, want the conjunction of the object's string and the part's short nullable one, of type string, not nullable, described as the object's", a)
	}
	if c := got.Schemas["c"]; c.Description != "Other words." || len(c.AllOf) != 0 {
		t.Fatalf("c is %+v, want the object's own declaration once: the part's differs only in its description", c)
	}
	if doc.Property(body, "a") == nil || doc.Property(body, "z") != nil || !reflect.DeepEqual(doc.PropertyNames(body), got.Names) {
		t.Fatal("Property and PropertyNames disagree with Properties")
	}
}

// TestPropertiesDepthBound: allOf parts are followed MaxAllOfDepth deep,
// and a cycle of references ends.
func TestPropertiesDepthBound(t *testing.T) {
	doc := &Document{Schemas: map[string]*Schema{}}
	doc.Schemas["Loop"] = object(map[string]*Schema{"a": {Type: "string"}}, &Schema{Ref: "Loop"})
	if got := doc.PropertyNames(&Schema{Ref: "Loop"}); !reflect.DeepEqual(got, []string{"a"}) {
		t.Fatalf("a cycle gives %v", got)
	}
	deep := object(map[string]*Schema{"d": {Type: "string"}})
	for i := 0; i < MaxAllOfDepth; i++ {
		deep = object(nil, deep)
	}
	if got := doc.PropertyNames(deep); !reflect.DeepEqual(got, []string{"d"}) {
		t.Fatalf("a property %d parts deep: %v", MaxAllOfDepth, got)
	}
	if got := doc.PropertyNames(object(nil, deep)); len(got) != 0 {
		t.Fatalf("a property %d parts deep: %v, want none", MaxAllOfDepth+1, got)
	}
}

// TestContradiction: a conjunction of two JSON types no value has is a
// contradiction; an integer is a number, and an arm without a type or of
// several types contradicts nothing.
func TestContradiction(t *testing.T) {
	doc := &Document{Schemas: map[string]*Schema{"Int": {Type: "integer"}}}
	for _, tc := range []struct {
		arms []*Schema
		bad  bool
	}{
		{[]*Schema{{Type: "string"}, {Ref: "Int"}}, true},
		{[]*Schema{{Type: "number"}, {Ref: "Int"}}, false},
		{[]*Schema{{Type: "string"}, {}, {Types: []string{"integer", "string"}}}, false},
		{[]*Schema{{Type: "string"}, {AllOf: []*Schema{{Type: "boolean"}}}}, true},
	} {
		if _, _, bad := doc.Contradiction(&Schema{AllOf: tc.arms}); bad != tc.bad {
			t.Errorf("arms %+v: contradiction %v, want %v", tc.arms, bad, tc.bad)
		}
	}
}
