package mapping

import (
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// shaped is one result a tool shapes: a one-operation or step tool's
// result, or one action's of an action tool. Every kind of tool goes
// through the same result-path checks, paging decision and output
// schema with it, so a feature of one kind is a feature of all.
type shaped struct {
	// op is the operation a one-operation tool calls directly; steps
	// are the calls otherwise (a tool's, or one action's).
	op    *ir.Operation
	steps []ir.Step
	// out is the shaping the runtime applies (nil: none); file is the
	// output: key it comes from, at path ("tools[0]" or
	// "tools[0].actions.get": the key's parent in the file).
	out  *ir.Output
	file *overrides.Output
	path string
	// action names the action, "" for a tool's own result.
	action string
}

// shapedResults are the results a tool shapes: its own, or each
// action's. An action's output: replaces the tool's for that action; an
// action without one gets its own copy of the tool's, since whether the
// upstream pages (UpstreamPages) depends on the action's calls.
func (tb *taskBuilder) shapedResults(tool *ir.Tool, t *overrides.Tool, path string) []*shaped {
	if len(tool.Actions) == 0 {
		return []*shaped{{op: tool.Op, steps: tool.Steps, out: tool.Output, file: t.Output, path: path}}
	}
	var out []*shaped
	for i := range tool.Actions {
		a := &tool.Actions[i]
		file, at := t.Output, path
		if fa := t.Actions[a.Name]; fa != nil && fa.Output != nil {
			file, at = fa.Output, path+".actions."+a.Name
		}
		a.Output = tb.output(file)
		out = append(out, &shaped{steps: a.Steps, out: a.Output, file: file, path: at, action: a.Name})
	}
	return out
}

// shapeResults runs the checks and decisions of every shaped result.
func (tb *taskBuilder) shapeResults(results []*shaped, in *taskInput) {
	for _, u := range results {
		normalizePaths(u)
		tb.checkOutputPaths(u, in)
		tb.checkHints(u, in)
		tb.pageMode(u)
		pageBounds(u.out, in)
	}
}

// pageBounds gives a page input the lower bound its paging kind has
// (an offset from 0, a page number from 1) unless the file gave one:
// a negative offset must be refused, not sent.
func pageBounds(o *ir.Output, in *taskInput) {
	if o == nil || o.Limit <= 0 || o.PageInput == "" {
		return
	}
	p := in.props[o.PageInput]
	if p == nil || p["minimum"] != nil || p["exclusiveMinimum"] != nil {
		return
	}
	if t := schemaType(p); t != "integer" && t != "number" {
		return
	}
	if o.PageNumbers {
		p["minimum"] = 1
	} else {
		p["minimum"] = 0
	}
}

// normalizePaths rewrites result paths written in binding style
// ("steps.ID.body.FIELD") into paths of the merged result ("ID.FIELD",
// or "FIELD" when the result has one step), so both spellings work.
func normalizePaths(u *shaped) {
	if u.out == nil {
		return
	}
	single := len(u.steps) <= 1
	fix := func(p string) string {
		rest, ok := strings.CutPrefix(p, "steps.")
		if !ok {
			return p
		}
		id, tail, _ := strings.Cut(rest, ".")
		tail = strings.TrimPrefix(strings.TrimPrefix(tail, "body"), ".")
		if single {
			return tail
		}
		return strings.TrimSuffix(id+"."+tail, ".")
	}
	for i := range u.out.Pick {
		u.out.Pick[i].Path = fix(u.out.Pick[i].Path)
	}
	u.out.ListPath = fix(u.out.ListPath)
}
