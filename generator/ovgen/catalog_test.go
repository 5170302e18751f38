package ovgen

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// catalog is what the random files are written from: the operations of
// a spec as the default mapping sees them (input names, which are
// required, where each goes on the wire) and their response schemas.
type catalog struct {
	spec string
	doc  *load.Document
	ops  []*catOp
	defs map[string]any
}

// catOp is one operation of the catalog.
type catOp struct {
	id, key, method string
	inputs          map[string]map[string]any
	required        map[string]bool
	params          map[string]runtime.Param // by input name
	body            map[string]bool          // inputs that are body fields
	resp            map[string]any           // success response schema; nil: none
}

// newCatalog reads the default mapping of a spec (one tool per
// operation, no override file).
func newCatalog(spec string, srv *ir.Server) *catalog {
	c := &catalog{spec: spec, defs: map[string]any{}}
	if srv.ResponseDefs != "" {
		json.Unmarshal([]byte(srv.ResponseDefs), &c.defs)
	}
	for i := range srv.Tools {
		t := &srv.Tools[i]
		if t.Op == nil || t.Op.OperationID == "" || strings.ContainsAny(t.Op.OperationID, " /{}") {
			continue
		}
		var in struct {
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		}
		if json.Unmarshal([]byte(t.InputSchema), &in) != nil {
			continue
		}
		op := &catOp{id: t.Op.OperationID, key: t.Op.Key(), method: strings.ToUpper(t.Op.Method), inputs: in.Properties,
			required: map[string]bool{}, params: map[string]runtime.Param{}, body: map[string]bool{}}
		for _, r := range in.Required {
			op.required[r] = true
		}
		for _, p := range t.Op.Params {
			op.params[p.Arg] = p
		}
		if b := t.Op.Body; b != nil {
			for _, f := range b.Fields {
				op.body[f.Arg] = true
			}
			if b.Arg != "" {
				op.body[b.Arg] = true
			}
		}
		if r := srv.Responses[op.key]; r.Schema != "" && (r.MediaType == "" || oa2mcpimpl.IsJSONMedia(r.MediaType)) {
			json.Unmarshal([]byte(r.Schema), &op.resp)
		}
		c.ops = append(c.ops, op)
	}
	// Two operations on one method and path (Box's GET /shared_items,
	// told apart by a #fragment) share one response schema in srv: leave
	// both out rather than pick through the wrong one.
	byKey := map[string]int{}
	for _, op := range c.ops {
		byKey[op.key]++
	}
	c.ops = slices.DeleteFunc(c.ops, func(op *catOp) bool { return byKey[op.key] > 1 })
	sort.Slice(c.ops, func(i, j int) bool { return c.ops[i].id < c.ops[j].id })
	return c
}

func (o *catOp) write() bool { return o.method != "GET" && o.method != "HEAD" }

// resolve follows $refs into the catalog's definitions.
func (c *catalog) resolve(s map[string]any) map[string]any {
	for range 20 {
		ref, _ := s["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			return s
		}
		next, _ := c.defs[name].(map[string]any)
		if next == nil {
			return nil
		}
		s = next
	}
	return s
}

// props are the properties of an object schema, allOf parts merged;
// nil for anything else (unions included).
func (c *catalog) props(s map[string]any) map[string]map[string]any {
	s = c.resolve(s)
	if s == nil {
		return nil
	}
	out := map[string]map[string]any{}
	if p, ok := s["properties"].(map[string]any); ok {
		for k, v := range p {
			if m, ok := v.(map[string]any); ok {
				out[k] = m
			}
		}
	}
	if all, ok := s["allOf"].([]any); ok {
		for _, part := range all {
			m, _ := part.(map[string]any)
			for k, v := range c.props(m) {
				out[k] = v
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// arms are the variants of a oneOf or anyOf schema.
func (c *catalog) arms(s map[string]any) []map[string]any {
	s = c.resolve(s)
	var out []map[string]any
	for _, k := range []string{"oneOf", "anyOf"} {
		list, _ := s[k].([]any)
		for _, a := range list {
			if m, ok := a.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// typeOf is a schema's JSON type, "" when it does not say one.
func (c *catalog) typeOf(s map[string]any) string {
	s = c.resolve(s)
	if s == nil {
		return ""
	}
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if x != "null" {
				name, _ := x.(string)
				return name
			}
		}
	}
	if c.props(s) != nil {
		return "object"
	}
	return ""
}

// field is one pickable path of a response.
type field struct {
	path string
	typ  string
	// union: the path goes through a oneOf or anyOf (every arm has it).
	union bool
}

// fields lists the paths a pick may name in s, down to depth 2: plain
// fields, fields of array items (a[].b), and fields every arm of a
// union has.
func (c *catalog) fields(s map[string]any, prefix string, depth int) []field {
	if depth > 2 {
		return nil
	}
	var out []field
	props := c.props(s)
	union := false
	if props == nil {
		props, union = c.commonArmProps(s), true
	}
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if !plainName(name) {
			continue
		}
		p := props[name]
		path := prefix + name
		t := c.typeOf(p)
		out = append(out, field{path: path, typ: t, union: union})
		switch t {
		case "object":
			sub := c.fields(p, path+".", depth+1)
			for i := range sub {
				sub[i].union = sub[i].union || union
			}
			out = append(out, sub...)
		case "array":
			items, _ := c.resolve(p)["items"].(map[string]any)
			if c.props(items) != nil && depth < 2 {
				for _, f := range c.fields(items, path+"[].", depth+1) {
					f.union = f.union || union
					if f.typ != "array" && !strings.Contains(strings.TrimPrefix(f.path, path+"[]."), "[]") {
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}

// commonArmProps are the properties every arm of a union has, each with
// the first arm's schema; nil when there is no union or nothing common.
func (c *catalog) commonArmProps(s map[string]any) map[string]map[string]any {
	arms := c.arms(s)
	if len(arms) < 2 {
		return nil
	}
	var out map[string]map[string]any
	for i, a := range arms {
		p := c.props(a)
		if p == nil {
			return nil
		}
		if i == 0 {
			out = map[string]map[string]any{}
			for k, v := range p {
				out[k] = v
			}
			continue
		}
		for k := range out {
			if _, ok := p[k]; !ok {
				delete(out, k)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// lists are the arrays of a response a list may page: the response
// itself ("") or a top-level property.
func (c *catalog) lists(s map[string]any) []string {
	if c.typeOf(s) == "array" {
		return []string{""}
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.props(s))) {
		if plainName(name) && c.typeOf(c.props(s)[name]) == "array" {
			out = append(out, name)
		}
	}
	return out
}

// totals are the number fields beside the list at path.
func (c *catalog) totals(s map[string]any, list string) []string {
	if list == "" || strings.Contains(list, ".") {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(c.props(s))) {
		if t := c.typeOf(c.props(s)[name]); (t == "integer" || t == "number") && plainName(name) && totalName(name) {
			out = append(out, name)
		}
	}
	return out
}

// totalName reports a field an API uses for the whole count.
func totalName(name string) bool {
	switch name {
	case "total", "totalCount", "total_count", "count", "totalItems", "total_items":
		return true
	}
	return false
}

// plainName is a property name a path can spell.
func plainName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
