package mapping

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Result paths of the override file (output.pick, output.list.path and
// total, creates_handle.from) are checked against the response schemas
// of the operations the tool calls: a path that names no field is an
// error at its place in the file, with the fields there and a "did you
// mean". Where a schema does not say (free-form objects, unions), the
// path is accepted.

// checkOutputPaths checks the result paths of one shaped result (a
// tool's, or one action's), at the output: key they come from.
func (tb *taskBuilder) checkOutputPaths(u *shaped, in *taskInput) {
	if u.file == nil || u.out == nil {
		return
	}
	if u.file.List != nil {
		tb.checkPageInput(in, u.out.PageInput, u.path+".output.list.page_input")
	}
	w := newSchemaWriter(tb.doc, false, nil)
	base := tb.resultSchemaOf(u)
	o := u.out
	item := base
	if l := u.file.List; l != nil {
		at := u.path + ".output.list"
		list := tb.walkPath(w, base, o.ListPath, at+".path", "a list")
		if r := w.resolve(list); r != nil && r.Type != "" && r.Type != "array" {
			tb.problems.Errorf(tb.ov.Pos(at+".path"), "point list.path at an array of the response", "output.list.path %q is %s, not an array", o.ListPath, r.Type)
		}
		if r := w.resolve(list); r != nil {
			item = r.Items
		}
		if l.Total != "" {
			tb.checkTotal(w, base, l.Total, at+".total")
		}
	}
	for _, p := range o.Pick {
		tb.walkPath(w, item, p.Path, u.path+".output.pick."+p.Name, "a field")
	}
}

// checkTotal checks output.list.total: a number beside the list in an
// object response (a response that is the list itself holds no total).
func (tb *taskBuilder) checkTotal(w *schemaWriter, base *load.Schema, total, at string) {
	if r := w.resolve(base); r != nil && r.Type == "array" {
		tb.problems.Errorf(tb.ov.Pos(at), "remove total: the list's length is its total", "output.list.total %q: the response is the list itself, an array with no fields", total)
		return
	}
	s := tb.walkPath(w, base, total, at, "the total count")
	if r := w.resolve(s); r != nil && r.Type != "" && r.Type != "integer" && r.Type != "number" {
		tb.problems.Errorf(tb.ov.Pos(at), "point total at the number of items in all", "output.list.total %q is %s, not a number", total, oa2mcpimpl.WithArticle(r.Type))
	}
}

// checkPageInput checks that output.list.page_input names one of the
// tool's inputs, as the model sees them.
func (tb *taskBuilder) checkPageInput(in *taskInput, name, at string) {
	if _, ok := in.props[name]; name != "" && !ok {
		tb.problems.Errorf(tb.ov.Pos(at), fieldsFix(name, slices.Sorted(maps.Keys(in.props))), "output.list.page_input %q is not an input of the tool", name)
	}
}

// checkHints checks the references of output.hints: a hint renders
// ${result.PATH} (the result before shaping) and ${input.NAME}; anything
// else would render as nothing.
func (tb *taskBuilder) checkHints(u *shaped, in *taskInput) {
	if u.file == nil {
		return
	}
	w := newSchemaWriter(tb.doc, false, nil)
	base := tb.resultSchemaOf(u)
	inputs := slices.Sorted(maps.Keys(in.props))
	for _, name := range slices.Sorted(maps.Keys(u.file.Hints)) {
		at := u.path + ".output.hints." + name
		expr, err := overrides.ParseExpr(u.file.Hints[name])
		if err != nil {
			continue // reported by the overrides package
		}
		for _, ref := range expr.Refs {
			switch ref.Root {
			case "result":
				tb.walkPath(w, base, strings.Join(ref.Path, "."), at, "the hint path")
			case "input":
				if _, ok := in.props[ref.Path[0]]; !ok {
					tb.problems.Errorf(tb.ov.Pos(at), fieldsFix(ref.Path[0], inputs), "%s: the tool has no input %q", ref, ref.Path[0])
				}
			default:
				tb.problems.Errorf(tb.ov.Pos(at), "read the tool's result with ${result.PATH} or an input with ${input.NAME}", "%s: a hint can read only ${result...} and ${input...}", ref)
			}
		}
	}
}

// resultSchemaOf is the schema of a shaped result before shaping: the
// operation's response, or the steps' responses keyed by step id.
func (tb *taskBuilder) resultSchemaOf(u *shaped) *load.Schema {
	if u.op != nil {
		if info := tb.opInfo(u.op); info != nil {
			return successSchema(info.op)
		}
		return nil
	}
	return tb.resultSchema(u.steps, tb.stepInfos(u.steps))
}

// walkPath follows a result path ("a.b", "items[].id", "x[0]") through s
// and reports the first segment the schema does not have. It returns the
// schema at the path (nil where the schema does not say).
func (tb *taskBuilder) walkPath(w *schemaWriter, s *load.Schema, path, at, what string) *load.Schema {
	if path == "" {
		return s
	}
	walked := []string{}
	for _, seg := range strings.Split(path, ".") {
		name, index, _ := strings.Cut(seg, "[")
		r := w.resolve(s)
		if r == nil {
			return nil
		}
		if name != "" {
			props, names, _, ok := (&inputBuilder{w: w}).objectShape(r)
			if !ok {
				return nil // free-form or a union: nothing to check against
			}
			next, found := props[name]
			if !found {
				tb.problems.Errorf(tb.ov.Pos(at), fieldsFix(name, names),
					"%s %q names no field of the response: %s has no field %q", what, path, where(walked), name)
				return nil
			}
			walked = append(walked, name)
			r = w.resolve(next)
			s = next
		}
		if index != "" {
			if r == nil || (r.Type != "" && r.Type != "array") {
				tb.problems.Errorf(tb.ov.Pos(at), "index only arrays ([] or [N])", "%s %q: %s is not an array", what, path, where(walked))
				return nil
			}
			s = r.Items
			walked[len(walked)-1] += "[" + index
		}
	}
	return s
}

// where names a place in the response for a message.
func where(walked []string) string {
	if len(walked) == 0 {
		return "the response"
	}
	return fmt.Sprintf("%q", strings.Join(walked, "."))
}

// fieldsFix suggests the closest field, or lists the fields.
func fieldsFix(name string, names []string) string {
	if s := oa2mcpimpl.Suggest(name, names); s != "" {
		return "did you mean " + s + "?"
	}
	if len(names) > 12 {
		names = append(names[:12:12], "...")
	}
	return "use one of: " + strings.Join(names, ", ")
}

// pageMode decides how a paged result pages: when its page input is
// passed to the upstream, the upstream pages the list and its answer's
// total count (list.total, else a field named total, totalCount,
// total_count or count beside the list) is the total; otherwise the
// runtime pages the whole list.
func (tb *taskBuilder) pageMode(u *shaped) {
	o := u.out
	if o == nil || o.Limit <= 0 || o.PageInput == "" {
		return
	}
	o.UpstreamPages = forwardsInput(u, o.PageInput)
	if u.file.List != nil && u.file.List.Total != "" {
		o.TotalPath = u.file.List.Total
		return
	}
	if !o.UpstreamPages {
		return
	}
	w := newSchemaWriter(tb.doc, false, nil)
	parent, prefix := o.ListPath, ""
	if i := strings.LastIndexByte(parent, '.'); i >= 0 {
		parent, prefix = parent[:i], parent[:i]+"."
	} else {
		parent = ""
	}
	holder := w.resolve(tb.walkPath(w, tb.resultSchemaOf(u), parent, u.path+".output.list.path", "a list"))
	props, _, _, ok := (&inputBuilder{w: w}).objectShape(holder)
	if !ok {
		return
	}
	for _, name := range []string{"total", "totalCount", "total_count", "count", "totalItems", "total_items"} {
		if p := w.resolve(props[name]); p != nil && (p.Type == "integer" || p.Type == "number") {
			o.TotalPath = prefix + name
			return
		}
	}
}

// forwardsInput reports whether a shaped result's calls pass input name
// to the upstream.
func forwardsInput(u *shaped, name string) bool {
	if u.op != nil {
		for _, p := range u.op.Params {
			if p.Arg == name {
				return true
			}
		}
		return false
	}
	// Of several steps, only the one whose answer holds the list pages
	// it: a page input another step reads pages nothing here.
	id, _, _ := strings.Cut(u.out.ListPath, ".")
	for _, st := range u.steps {
		if (len(u.steps) == 1 || st.ID == id) && bindsInput(st.Args, name) {
			return true
		}
	}
	return false
}

// bindsInput reports whether a binding, or a field binding inside one,
// reads input name.
func bindsInput(bs []ir.Binding, name string) bool {
	for _, b := range bs {
		for _, ref := range inputRefs(b.Expr) {
			if ref == name {
				return true
			}
		}
		if bindsInput(b.Fields, name) {
			return true
		}
	}
	return false
}
