package mapping

import (
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
)

// setOutputSchemas gives a tool the JSON Schema of its shaped results:
// a one-operation or step tool the schema of its result; an action tool
// each shaped action its own exact schema (Action.OutputSchema, which
// the runtime checks that action's results against) and, when every
// action is shaped, the tool the anyOf of its actions' schemas, each
// titled with its action.
func (tb *taskBuilder) setOutputSchemas(tool *ir.Tool, results []*shaped) {
	w := newSchemaWriter(tb.doc, false, nil)
	roots := make([]map[string]any, len(results))
	for i, u := range results {
		roots[i] = tb.outputRoot(u, w)
	}
	defs := w.finishDefs()
	if len(tool.Actions) == 0 {
		tool.OutputSchema = schemaText(roots[0], defs)
		return
	}
	var arms []any
	same := true
	for i, u := range results {
		a := actionNamed(tool, u.action)
		if roots[i] == nil || a == nil {
			continue
		}
		a.OutputSchema = schemaText(roots[i], defs)
		same = same && sameJSON(roots[i], roots[0])
		arm := deepCopy(roots[i])
		arm["title"] = "action " + u.action
		arms = append(arms, arm)
	}
	if len(arms) == 0 || len(arms) < len(results) {
		// An unshaped action returns the API's answer as it is, which
		// may not even be JSON: no schema can promise its shape.
		return
	}
	root := map[string]any{"type": "object", "anyOf": arms}
	if same {
		// Every action has the same shape: that shape is exact for each,
		// and the actions need no check of their own.
		root = roots[0]
		for i := range tool.Actions {
			tool.Actions[i].OutputSchema = ""
		}
	}
	tool.OutputSchema = schemaText(root, defs)
}

// schemaText is root with the definitions it reaches, as compact JSON;
// "" for no schema.
func schemaText(root map[string]any, defs map[string]any) string {
	if root == nil {
		return ""
	}
	root = deepCopy(root)
	if d := reachableDefs(root, defs); len(d) > 0 {
		root["$defs"] = d
	}
	lenient(root, true)
	s, err := ir.JSON(root)
	if err != nil {
		return ""
	}
	return s
}

func actionNamed(tool *ir.Tool, name string) *ir.Action {
	for i := range tool.Actions {
		if tool.Actions[i].Name == name {
			return &tool.Actions[i]
		}
	}
	return nil
}

// outputRoot derives the JSON Schema of one shaped result from the
// response schemas of the calls it comes from; nil when the result is
// not shaped. It is lenient on purpose (no required fields, no
// additionalProperties: false, below the fields the runtime itself
// adds): upstream APIs often return more, or less, than their specs
// say, and a result must never be refused for that.
func (tb *taskBuilder) outputRoot(u *shaped, w *schemaWriter) map[string]any {
	o := u.out
	if o == nil {
		return nil
	}
	base := tb.resultSchemaOf(u)
	var root map[string]any
	switch {
	case o.Limit > 0:
		item := (*load.Schema)(nil)
		if list := schemaAt(w, base, o.ListPath); list != nil {
			if r := w.resolve(list); r != nil {
				item = r.Items
			}
		}
		if len(o.Pick) > 0 {
			item = pickSchema(w, item, o.Pick)
		}
		root = map[string]any{"type": "object", "properties": map[string]any{
			"items":      map[string]any{"type": "array", "items": w.convert(item, 1)},
			"totalCount": map[string]any{"type": "integer", "description": "How many items there are in all."},
			"hasMore":    map[string]any{"type": "boolean", "description": "Whether items follow this page."},
			"note":       map[string]any{"type": "string"},
			"nextPage":   nextPageSchema(o.PageInput),
		}, "required": listRequired(o)}
	case len(o.Pick) > 0:
		root = w.convert(pickSchema(w, base, o.Pick), 0)
	default:
		return nil
	}
	props, _ := root["properties"].(map[string]any)
	if props == nil {
		props = map[string]any{}
		root["properties"] = props
	}
	for _, h := range o.Hints {
		props[h.Name] = map[string]any{"type": "string"}
	}
	props["warnings"] = map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Steps that failed; the result is partial."}
	lenient(root, true)
	return root
}

// resultSchema is the schema of the merged result: one step's response,
// or an object of the steps' responses keyed by step id.
func (tb *taskBuilder) resultSchema(steps []ir.Step, infos map[string]*opInfo) *load.Schema {
	if len(steps) == 1 {
		if info := infos[steps[0].ID]; info != nil {
			return successSchema(info.op)
		}
		return nil
	}
	obj := &load.Schema{Type: "object", Properties: map[string]*load.Schema{}}
	for _, st := range steps {
		if info := infos[st.ID]; info != nil {
			obj.Properties[st.ID] = successSchema(info.op)
			obj.PropertyOrder = append(obj.PropertyOrder, st.ID)
		}
	}
	return obj
}

// pickSchema is the object of picked fields.
func pickSchema(w *schemaWriter, base *load.Schema, picks []ir.Pick) *load.Schema {
	obj := &load.Schema{Type: "object", Properties: map[string]*load.Schema{}}
	for _, p := range picks {
		obj.Properties[p.Name] = schemaAt(w, base, p.Path)
		obj.PropertyOrder = append(obj.PropertyOrder, p.Name)
	}
	return obj
}

// schemaAt follows a result path ("a.b", "items[].id", "x[0]") through a
// schema; nil (any value) where the schema does not say.
func schemaAt(w *schemaWriter, s *load.Schema, path string) *load.Schema {
	if path == "" {
		return s
	}
	seg, rest, _ := strings.Cut(path, ".")
	name, mapped := seg, false
	if i := strings.IndexByte(seg, '['); i >= 0 {
		name, mapped = seg[:i], seg[i:] == "[]"
	}
	r := w.resolve(s)
	if r == nil {
		return nil
	}
	if name != "" {
		r = w.resolve(fieldSchema(w, r, name))
		if r == nil {
			return nil
		}
	}
	if strings.Contains(seg, "[") {
		inner := schemaAt(w, r.Items, rest)
		if mapped {
			return &load.Schema{Type: "array", Items: inner}
		}
		return inner
	}
	return schemaAt(w, r, rest)
}

// fieldSchema is the schema of field name of the object s: its
// property (allOf parts merged) or, for a oneOf or anyOf, each variant's,
// joined as an anyOf when they differ. Nil where the schema does not say
// or a variant lacks the field: a pick through a union keeps the types
// its variants give it instead of becoming {}.
func fieldSchema(w *schemaWriter, s *load.Schema, name string) *load.Schema {
	r := w.resolve(s)
	if r == nil {
		return nil
	}
	if p := w.merged(r).props[name]; p != nil {
		return p
	}
	arms := append(append([]*load.Schema(nil), r.OneOf...), r.AnyOf...)
	if len(arms) == 0 {
		return nil
	}
	var subs []*load.Schema
	for _, a := range arms {
		sub := fieldSchema(w, a, name)
		if sub == nil {
			return nil
		}
		if !slices.ContainsFunc(subs, func(x *load.Schema) bool { return x == sub || x.Ref != "" && x.Ref == sub.Ref }) {
			subs = append(subs, sub)
		}
	}
	if len(subs) == 1 {
		return subs[0]
	}
	return &load.Schema{AnyOf: subs}
}

// lenient drops required and additionalProperties: false from every
// schema below the root.
func lenient(schema any, root bool) {
	n, ok := schema.(map[string]any)
	if !ok {
		return
	}
	if !root {
		delete(n, "required")
	}
	if n["additionalProperties"] == false {
		delete(n, "additionalProperties")
	}
	for key, v := range n {
		switch key {
		case "properties", "$defs", "patternProperties":
			if m, ok := v.(map[string]any); ok {
				for _, sub := range m {
					lenient(sub, false)
				}
			}
		case "items", "additionalProperties", "not", "contains":
			lenient(v, false)
		case "allOf", "anyOf", "oneOf", "prefixItems":
			if list, ok := v.([]any); ok {
				for _, sub := range list {
					lenient(sub, false)
				}
			}
		}
	}
}

// nextPageSchema describes the nextPage field the runtime's paging writes
// (runtime/shape.go): the page input to pass back, or, for a tool without
// one, a sentence saying how to see the rest.
func nextPageSchema(pageInput string) map[string]any {
	if pageInput == "" {
		return map[string]any{"type": "string", "description": "How to see the items this page leaves out."}
	}
	return map[string]any{"type": "object", "description": "The input to pass to get the next page.",
		"properties": map[string]any{pageInput: map[string]any{"type": "integer"}}, "required": []string{pageInput}}
}

// listRequired are the fields every page has: totalCount only when the
// total is known (the server pages the whole list, or the upstream's
// answer says it).
func listRequired(o *ir.Output) []string {
	if o.UpstreamPages && o.TotalPath == "" {
		return []string{"hasMore", "items"}
	}
	return []string{"hasMore", "items", "totalCount"}
}
