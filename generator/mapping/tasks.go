package mapping

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// taskBuilder turns the override file's tools into IR tools.
type taskBuilder struct {
	doc      *load.Document
	ov       *overrides.File
	ops      map[string]*opInfo
	used     map[*opInfo]bool
	prefix   string
	problems *diag.List
	// cur is the file tool being built; curMissingOp says one of its
	// operations is unknown, so its inputs are incomplete and "no such
	// input" would be a follow-on error.
	cur          *overrides.Tool
	curMissingOp bool
}

// indexOps finds operations by operationId and by "METHOD /path".
func indexOps(infos []*opInfo) map[string]*opInfo {
	m := map[string]*opInfo{}
	for _, info := range infos {
		if info.op.ID != "" {
			m[info.op.ID] = info
		}
		m[info.op.Method+" "+info.op.Path] = info
	}
	return m
}

func (tb *taskBuilder) buildAll() []ir.Tool {
	var out []ir.Tool
	for i, t := range tb.ov.Tools {
		if t == nil {
			continue
		}
		if tool, ok := tb.build(fmt.Sprintf("tools[%d]", i), t); ok {
			out = append(out, tool)
		}
	}
	return out
}

// lookup finds an operation by reference, reporting unknown ones with a
// suggestion.
func (tb *taskBuilder) lookup(ref, path string) *opInfo {
	if info := tb.ops[ref]; info != nil {
		tb.used[info] = true
		return info
	}
	tb.curMissingOp = true
	keys := make([]string, 0, len(tb.ops))
	for k := range tb.ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fix := "use an operationId of the spec (or \"METHOD /path\") that select keeps"
	if s := oa2mcpimpl.Suggest(ref, keys); s != "" {
		fix = "did you mean " + s + "?"
	}
	tb.problems.Errorf(tb.ov.Pos(path), fix, "unknown operation %q", ref)
	return nil
}

// build makes one task tool.
func (tb *taskBuilder) build(path string, t *overrides.Tool) (ir.Tool, bool) {
	tb.cur, tb.curMissingOp = t, false
	tool := ir.Tool{Pos: tb.ov.Pos(path)}
	tool.Name = t.Name
	if tb.prefix != "" {
		tool.Name = SnakeCase(tb.prefix) + "_" + t.Name
	}
	before := len(tb.problems.Errors())
	in := newTaskInput()
	var opTool *opInfo
	switch {
	case t.Operation != "":
		opTool = tb.lookup(t.Operation, path+".operation")
		if opTool == nil {
			return tool, false
		}
		tb.operationTool(&tool, in, opTool, t, path)
	case len(t.Steps) > 0:
		tool.Steps = tb.steps(in, t.Steps, path+".steps")
	case len(t.Actions) == 0:
		tb.pureStateInputs(&tool, in, t, path)
	default:
		tb.actions(&tool, in, t, path)
	}
	tb.rewriteInputs(&tool, in, t.Input, t.Name, path)
	tb.stateInputs(&tool, in, t, path)
	if opTool != nil {
		// The operation's own description, for a file that gives none,
		// names the inputs the model sends: not those the file binds or
		// hides, and renamed ones by their new name.
		tool.Description = toolDescription(opTool.op, visibleNotes(opTool.in.descs, in, t), opTool.in.w)
	}
	tool.Output = tb.output(t.Output)
	results := tb.shapedResults(&tool, t, path)
	tb.shapeResults(results, in)
	tb.finishActions(&tool, in, t)
	if len(tb.problems.Errors()) > before {
		// The handle and confirm checks read only the file and the
		// inputs: run them too, so one run reports the tool's problems.
		tb.stateTool(&tool, in, t, path)
		return tool, false
	}
	schema := in.schema()
	schemaJSON, err := ir.JSON(schema)
	if err != nil {
		tb.problems.Errorf(tb.ov.Pos(path), "simplify the tool's inputs", "tool %q: input schema cannot be encoded: %v", t.Name, err)
		return tool, false
	}
	tool.InputSchema = schemaJSON
	setSensitive(&tool, schema, t)
	tb.setOutputSchemas(&tool, results)
	tb.describe(&tool, in, t)
	tb.stateTool(&tool, in, t, path)
	if t.Operation == "" && len(t.Steps) == 0 && len(t.Actions) == 0 {
		stateAnnotations(&tool, t)
	} else {
		taskAnnotations(&tool, t.Annotations)
		tb.checkDestructive(&tool, t, path)
	}
	return tool, true
}

// operationTool starts a tool from one operation's default inputs; input
// rewrites later decide whether it needs a binding step.
func (tb *taskBuilder) operationTool(tool *ir.Tool, in *taskInput, info *opInfo, t *overrides.Tool, path string) {
	in.addOp(info, "")
	tool.Op = info.ownOp()
	tool.Doc = toolDoc(info.op)
	tool.Title = toolTitle(info.op, tool.Name)
	tool.Description = toolDescription(info.op, info.in.descs, info.in.w)
	var args []ir.Binding
	for _, name := range slices.Sorted(maps.Keys(info.in.props)) {
		args = append(args, ir.Binding{Arg: name, Expr: "${input." + name + "}"})
	}
	tool.Steps = []ir.Step{{ID: "call", Op: info.call, Args: args}}
}

// visibleNotes are an operation's input notes as the tool's final inputs
// have them: renamed as the file renames them, required as the tool
// requires them, and without the inputs it binds (a value, the caller's
// identity) or hides.
func visibleNotes(notes []paramNote, in *taskInput, t *overrides.Tool) []paramNote {
	var out []paramNote
	for _, n := range notes {
		if f := t.Input[n.name]; f != nil && f.Rename != "" {
			n.name = f.Rename
		}
		if _, ok := in.props[n.name]; ok {
			n.required = in.required[n.name]
			out = append(out, n)
		}
	}
	return out
}

// taskAnnotations derives hints from every operation the tool may call,
// then applies the file's overrides.
func taskAnnotations(t *ir.Tool, a *overrides.Annotations) {
	t.ReadOnly, t.Idempotent, t.OpenWorld = true, true, true
	for _, op := range t.Operations() {
		var one ir.Tool
		setAnnotations(&one, op)
		t.ReadOnly = t.ReadOnly && one.ReadOnly
		t.Idempotent = t.Idempotent && one.Idempotent
		t.Destructive = t.Destructive || one.Destructive
	}
	overrideAnnotations(t, a)
}

// overrideAnnotations applies the file's annotations.
func overrideAnnotations(t *ir.Tool, a *overrides.Annotations) {
	if a == nil {
		return
	}
	for _, o := range []struct {
		v   *bool
		dst *bool
	}{{a.ReadOnly, &t.ReadOnly}, {a.Destructive, &t.Destructive}, {a.Idempotent, &t.Idempotent}, {a.OpenWorld, &t.OpenWorld}} {
		if o.v != nil {
			*o.dst = *o.v
		}
	}
}

// output converts the file's output shaping.
func (tb *taskBuilder) output(o *overrides.Output) *ir.Output {
	if o == nil {
		return nil
	}
	out := &ir.Output{}
	for _, name := range slices.Sorted(maps.Keys(o.Pick)) {
		out.Pick = append(out.Pick, ir.Pick{Name: name, Path: o.Pick[name]})
	}
	for _, name := range slices.Sorted(maps.Keys(o.Hints)) {
		out.Hints = append(out.Hints, ir.Pick{Name: name, Path: o.Hints[name]})
	}
	if o.List != nil {
		out.ListPath, out.Limit, out.PageInput = o.List.Path, o.List.Limit, o.List.PageInput
		out.PageNumbers = o.List.PageKind == "number"
		if out.Limit <= 0 {
			out.Limit = 20
		}
	}
	return out
}

// describe sets title and description: the file's words first, then
// notes the generator knows (actions, limits, examples).
func (tb *taskBuilder) describe(tool *ir.Tool, in *taskInput, t *overrides.Tool) {
	if t.Title != "" {
		tool.Title = t.Title
	} else if tool.Title == "" {
		tool.Title = humanize(t.Name)
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" {
		desc = tool.Description
	}
	if desc == "" {
		desc = fmt.Sprintf("%s. Required inputs: %s.", humanize(t.Name), oa2mcpimpl.JoinList(in.requiredNames()))
	}
	var notes []string
	if o := tool.Output; o != nil && o.Limit > 0 {
		notes = append(notes, fmt.Sprintf("Returns at most %d items per call with totalCount and hasMore; the list is partial, so never total or count from it.", o.Limit))
	}
	for _, ex := range t.Examples {
		if b, err := json.Marshal(ex); err == nil {
			notes = append(notes, "Example arguments: "+string(b)+".")
		}
	}
	tool.Description = strings.Join(append([]string{desc}, notes...), " ")
	if len(tool.Doc) == 0 {
		tool.Doc = taskDoc(tool)
	}
}

// taskDoc is a task tool's doc comment: each operation it calls, once,
// in the order of its steps and actions, so a reviewer sees what the
// tool reaches without reading its definition.
func taskDoc(tool *ir.Tool) []string {
	lines := []string{"Task tool from the override file; it calls:", ""}
	seen := map[string]bool{}
	for _, op := range tool.Operations() {
		line := "  - " + op.Method + " " + op.Path
		if op.OperationID != "" {
			line += " (operationId " + op.OperationID + ")"
		}
		if !seen[line] {
			seen[line] = true
			lines = append(lines, line)
		}
	}
	return lines
}

// opInfo finds the operation a call is for: by operationId first, as two
// operations may share a method and path (Box's GET /shared_items, told
// apart by a #fragment), then by "METHOD /path".
func (tb *taskBuilder) opInfo(op *ir.Operation) *opInfo {
	if info := tb.ops[op.OperationID]; op.OperationID != "" && info != nil {
		return info
	}
	return tb.ops[op.Method+" "+op.Path]
}

// stepInfos maps step ids to the operations they call.
func (tb *taskBuilder) stepInfos(steps []ir.Step) map[string]*opInfo {
	out := map[string]*opInfo{}
	for _, st := range steps {
		out[st.ID] = tb.opInfo(&st.Op)
	}
	return out
}
