package mapping

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// TestOneOfKeptOnlyWhenExclusive: a oneOf stays one when its arms exclude
// each other (by type, by a discriminator, by closed arms with properties
// of their own) and becomes anyOf when they overlap, as DigitalOcean's
// load balancer (by droplet ids or by tag) and many others do.
func TestOneOfKeptOnlyWhenExclusive(t *testing.T) {
	str := func() *load.Schema { return &load.Schema{Type: "string"} }
	obj := func(required []string, closed bool, props ...string) *load.Schema {
		s := &load.Schema{Type: "object", Properties: map[string]*load.Schema{}, Required: required, NoAdditional: closed}
		for _, p := range props {
			s.Properties[p] = str()
			s.PropertyOrder = append(s.PropertyOrder, p)
		}
		return s
	}
	kind := func(v string) *load.Schema {
		s := obj([]string{"kind"}, false, "kind")
		s.Properties["kind"] = &load.Schema{Type: "string", Const: v, HasConst: true}
		return s
	}
	doc := &load.Document{Schemas: map[string]*load.Schema{
		"ByIDs": obj(nil, false, "droplet_ids"), "ByTag": obj(nil, false, "tag"),
		"Base": obj([]string{"name"}, false, "name"),
	}}
	for _, tc := range []struct {
		name string
		arms []*load.Schema
		want string
	}{
		{"types apart", []*load.Schema{str(), obj(nil, false, "a"), {Type: "integer"}}, "oneOf"},
		{"a string and a nullable string", []*load.Schema{str(), {Type: "string", Nullable: true}}, "anyOf"},
		{"a discriminator", []*load.Schema{kind("circle"), kind("square")}, "oneOf"},
		{"one kind twice", []*load.Schema{kind("circle"), kind("circle")}, "anyOf"},
		{"closed arms apart", []*load.Schema{obj([]string{"a"}, true, "a"), obj([]string{"b"}, true, "b")}, "oneOf"},
		{"open arms that overlap", []*load.Schema{
			{AllOf: []*load.Schema{{Ref: "ByIDs"}, {Ref: "Base"}}},
			{AllOf: []*load.Schema{{Ref: "ByTag"}, {Ref: "Base"}}},
		}, "anyOf"},
	} {
		w := newSchemaWriter(doc, true, nil)
		out := w.convert(&load.Schema{OneOf: tc.arms}, 0)
		_, hasOne := out["oneOf"]
		_, hasAny := out["anyOf"]
		if got := map[bool]string{true: "oneOf", false: "anyOf"}[hasOne]; got != tc.want || hasOne == hasAny {
			t.Errorf("%s: schema %v, want %s", tc.name, out, tc.want)
		}
	}
}

// TestLongUnionNamedForTheModel: a union of more arms than a schema
// spells out is never cut (that would refuse the values of the arms cut)
// nor left as a bare description: an input gets a summary naming every
// variant, with the discriminator kept as an enum; an output the note.
func TestLongUnionNamedForTheModel(t *testing.T) {
	var arms []*load.Schema
	for i := range maxCombinatorArms + 1 {
		arms = append(arms, &load.Schema{Type: "object", Required: []string{"kind"}, PropertyOrder: []string{"kind"},
			Properties: map[string]*load.Schema{"kind": {Type: "string", Const: fmt.Sprintf("k%d", i), HasConst: true}}})
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		s := &load.Schema{}
		if key == "anyOf" {
			s.AnyOf = arms
		} else {
			s.OneOf = arms
		}
		if out := newSchemaWriter(&load.Document{}, false, nil).convert(s, 0); out["anyOf"] != nil || out["oneOf"] != nil || out["description"] != "One of 33 shapes the API accepts." {
			t.Errorf("output %s of %d arms: %v", key, len(arms), out)
		}
		root := map[string]any{"type": "object", "properties": map[string]any{"method": newSchemaWriter(&load.Document{}, true, nil).convert(s, 0)}}
		summarizeLargeUnions(root)
		got := root["properties"].(map[string]any)["method"].(map[string]any)
		desc, _ := got["description"].(string)
		if got["anyOf"] != nil || got["oneOf"] != nil || !strings.HasPrefix(desc, `One of 33 shapes the API accepts, told apart by "kind": k0, k1,`) || !strings.Contains(desc, "k32.") {
			t.Errorf("input %s of %d arms: %v", key, len(arms), got)
		}
		kind, _ := got["properties"].(map[string]any)["kind"].(map[string]any)
		if enum, _ := kind["enum"].([]any); len(enum) != 33 || !slices.Equal(asSlice(got["required"]), []any{"kind"}) {
			t.Errorf("input %s: the discriminator is not kept as an enum: %v", key, got)
		}
	}
}
