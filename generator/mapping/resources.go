package mapping

import (
	"fmt"
	"sort"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// resources maps the override file's resources: entries onto the tools
// that read their operations. Each must name a GET operation that one
// tool calls alone, with a template the runtime accepts for that tool
// (oa2mcpimpl.CheckResource); templates are unique.
func resources(ov *overrides.File, tools []ir.Tool, problems *diag.List) []runtime.Resource {
	if ov == nil {
		return nil
	}
	var out []runtime.Resource
	seen := map[string]string{}
	for i, r := range ov.Resources {
		path := fmt.Sprintf("resources[%d]", i)
		if r == nil {
			problems.Errorf(ov.Pos(path), "remove the empty entry", "resource %d is empty", i+1)
			continue
		}
		t := toolOfOperation(tools, r.Operation)
		switch {
		case r.Operation == "":
			problems.Errorf(ov.Pos(path), "add operation: OPERATION_ID, a GET operation", "resource %d names no operation", i+1)
			continue
		case t == nil:
			problems.Errorf(ov.Pos(path+".operation"), "serve an operation that a tool calls alone: its default tool, or a tool with operation: "+r.Operation,
				"no tool calls operation %q alone", r.Operation)
			continue
		case t.Op.Method != "GET":
			problems.Errorf(ov.Pos(path+".operation"), "serve a GET operation; a resource read must not change anything",
				"operation %q is %s, not GET", r.Operation, t.Op.Method)
			continue
		}
		res := runtime.Resource{URITemplate: r.URITemplate, Name: firstNonEmpty(r.Name, t.Name), Title: r.Title,
			Description: firstNonEmpty(r.Description, t.Description), MIMEType: firstNonEmpty(r.MimeType, t.Op.ResponseMedia, "application/json"), Tool: t.Name}
		if err := oa2mcpimpl.CheckResource(&res, &t.Tool); err != nil {
			problems.Errorf(ov.Pos(path+".uri_template"), `write "scheme://path/{input}" with a {variable} per required input of `+t.Name, "%v", err)
			continue
		}
		if prev, dup := seen[r.URITemplate]; dup {
			problems.Errorf(ov.Pos(path+".uri_template"), "give each resource its own template", "uri_template %q is also %s's", r.URITemplate, prev)
			continue
		}
		seen[r.URITemplate] = path
		out = append(out, res)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URITemplate < out[j].URITemplate })
	return out
}

// toolOfOperation is the tool that calls operation id alone, or nil.
func toolOfOperation(tools []ir.Tool, id string) *ir.Tool {
	for i := range tools {
		t := &tools[i]
		if t.Op != nil && t.Op.OperationID == id && len(t.Steps) == 0 && len(t.Actions) == 0 && t.Handler == nil {
			return t
		}
	}
	return nil
}
