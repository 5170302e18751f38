package runtime

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/expr"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// plan is a compiled aggregated or action tool.
type plan struct {
	steps   []*compiledStep
	actions map[string]*actionPlan
	// usedBy lists, per input, the actions that read it (sorted), for
	// the message refusing an input the chosen action does not use.
	usedBy map[string][]string
}

type actionPlan struct {
	steps    []*compiledStep
	required []string
	// inputs are the inputs this action reads; nil: not declared (a
	// hand-written definition), so nothing is refused.
	inputs map[string]bool
	// output is the action's own compiled output schema; nil: only the
	// tool's is checked.
	output *jsonschema.Node
}

type compiledStep struct {
	spec *Step
	op   *compiledOp
	args []compiledBinding
}

type compiledBinding struct {
	arg      string
	expr     *compiledExpr
	constVal any
	hasConst bool
	fields   []compiledBinding
	items    []compiledBinding
	isArray  bool
	required bool
}

// stepOutcome is what one step produced.
type stepOutcome struct {
	status  int
	body    any
	empty   bool // the API answered without a body
	skipped bool
	err     *callError
	retries int
	// media is a response of media (content.go), which the result shows
	// after the merged JSON, in step order.
	media *upstreamResult
}

// compilePlan compiles a tool's steps or actions; nil for plain tools.
func (s *Server) compilePlan(ts *Tool) (*plan, error) {
	if len(ts.Steps) == 0 && len(ts.Actions) == 0 {
		return nil, nil
	}
	p := &plan{}
	var err error
	if p.steps, err = s.compileSteps(ts.Steps); err != nil {
		return nil, err
	}
	if len(ts.Actions) > 0 {
		p.actions = map[string]*actionPlan{}
		p.usedBy = map[string][]string{}
	}
	for _, a := range ts.Actions {
		steps, err := s.compileSteps(a.Steps)
		if err != nil {
			return nil, fmt.Errorf("action %s: %w", a.Name, err)
		}
		ap := &actionPlan{steps: steps, required: a.Required}
		if strings.TrimSpace(a.OutputSchema) != "" {
			if ap.output, err = jsonschema.CompileNode(a.OutputSchema); err != nil {
				return nil, fmt.Errorf("action %s: output schema: %w", a.Name, err)
			}
		}
		if len(a.Inputs) > 0 {
			ap.inputs = map[string]bool{"action": true}
			for _, in := range a.Inputs {
				ap.inputs[in] = true
				p.usedBy[in] = append(p.usedBy[in], a.Name)
			}
		}
		p.actions[a.Name] = ap
	}
	for _, acts := range p.usedBy {
		sort.Strings(acts)
	}
	return p, nil
}

func (s *Server) compileSteps(steps []Step) ([]*compiledStep, error) {
	out := make([]*compiledStep, 0, len(steps))
	for i := range steps {
		st := &steps[i]
		op, err := compileOp(&st.Op, s.creds)
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", st.ID, err)
		}
		op.retry = newRetryPolicy(s.spec, &st.Op, op.method)
		op.inputOf = inputNames(st.Args)
		args, err := compileBindings(st.Args)
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", st.ID, err)
		}
		out = append(out, &compiledStep{spec: st, op: op, args: args})
	}
	return out, nil
}

// inputNames maps each step argument bound to exactly one tool input
// (${input.NAME}) to that input, so messages about the argument name
// what the model sent.
func inputNames(bs []Binding) map[string]string {
	out := map[string]string{}
	for _, b := range bs {
		if name, ok := expr.SoleInput(b.Expr); ok {
			out[b.Arg] = name
		}
		for k, v := range inputNames(b.Fields) {
			out[k] = v
		}
	}
	return out
}

func compileBindings(bs []Binding) ([]compiledBinding, error) {
	out := make([]compiledBinding, 0, len(bs))
	for _, b := range bs {
		cb := compiledBinding{arg: b.Arg, required: b.Required}
		switch {
		case len(b.Fields) > 0:
			fields, err := compileBindings(b.Fields)
			if err != nil {
				return nil, err
			}
			cb.fields = fields
		case len(b.Items) > 0:
			items, err := compileBindings(b.Items)
			if err != nil {
				return nil, err
			}
			cb.items, cb.isArray = items, true
		case b.Expr != "":
			e, err := compileExpr(b.Expr)
			if err != nil {
				return nil, fmt.Errorf("binding %s: %w", b.Arg, err)
			}
			cb.expr = &e
		default:
			dec := json.NewDecoder(strings.NewReader(b.Const))
			dec.UseNumber()
			if err := dec.Decode(&cb.constVal); err != nil {
				return nil, fmt.Errorf("binding %s: constant %q: %w", b.Arg, b.Const, err)
			}
			cb.hasConst = true
		}
		out = append(out, cb)
	}
	return out, nil
}

// evalArgs computes a step's arguments; unset references leave the
// argument out, so the operation's own optionality applies. partial is
// an input-error message when the caller gave some inputs of a bound
// object but not one it requires (sending the rest would drop the
// caller's values or send a half-built object).
func evalArgs(bs []compiledBinding, env *evalEnv) (args map[string]any, partial string) {
	args = make(map[string]any, len(bs))
	for i := range bs {
		v, ok, msg := bs[i].eval(env)
		partial = cmp.Or(partial, msg)
		if ok {
			args[bs[i].arg] = v
		}
	}
	return args, partial
}

// eval computes one binding's value; ok is false when it has none: an
// unset reference, an object or array none of whose parts has a value,
// or an object lacking a field it requires.
func (b *compiledBinding) eval(env *evalEnv) (v any, ok bool, partial string) {
	switch {
	case b.fields != nil:
		return b.evalObject(env)
	case b.isArray:
		arr := make([]any, 0, len(b.items))
		for i := range b.items {
			v, ok, msg := b.items[i].eval(env)
			partial = cmp.Or(partial, msg)
			if ok {
				arr = append(arr, v)
			}
		}
		return arr, len(arr) > 0, partial
	case b.hasConst:
		return b.constVal, true, ""
	}
	v, ok = b.expr.eval(env)
	return v, ok, ""
}

// evalObject builds an object of field bindings. A field it requires
// without a value leaves the whole object out; when the caller gave
// other inputs of it, that is a partial the caller must complete.
func (b *compiledBinding) evalObject(env *evalEnv) (any, bool, string) {
	obj := make(map[string]any, len(b.fields))
	var missing, given []string
	partial := ""
	for i := range b.fields {
		f := &b.fields[i]
		v, ok, msg := f.eval(env)
		partial = cmp.Or(partial, msg)
		switch {
		case ok:
			obj[f.arg] = v
			if f.hasConst {
				continue
			}
			given = append(given, f.inputs()...)
		case f.required:
			missing = append(missing, f.inputs()...)
		}
	}
	if len(missing) > 0 {
		if len(given) > 0 && partial == "" {
			partial = fmt.Sprintf("Invalid arguments: %s goes together with %s, which is missing. Add %s, or leave out %s, and call again.",
				textkit.QuoteAll(given), textkit.QuoteAll(missing), textkit.QuoteAll(missing), textkit.QuoteAll(given))
		}
		return nil, false, partial
	}
	return obj, len(obj) > 0, partial
}

// inputs lists the tool inputs a binding reads, at any depth.
func (b *compiledBinding) inputs() []string {
	var out []string
	if b.expr != nil {
		for _, p := range b.expr.parts {
			if p.Root == "input" && len(p.Path) > 0 && !slices.Contains(out, p.Path[0].Name) {
				out = append(out, p.Path[0].Name)
			}
		}
	}
	for _, sub := range append(slices.Clip(b.fields), b.items...) {
		for _, n := range sub.inputs() {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// checkAction refuses, for an action tool, arguments the chosen action
// cannot use: a missing input it needs, or an input only other actions
// read (silently ignoring it would answer a different question).
func (p *plan) checkAction(args map[string]any) string {
	if p.actions == nil {
		return ""
	}
	name, _ := args["action"].(string)
	ap := p.actions[name]
	if ap == nil {
		return fmt.Sprintf("Invalid arguments: unknown action %q. Use one of %s and call again.", name, textkit.QuoteAll(sortedActionNames(p)))
	}
	if missing := missingInputs(ap.required, args); len(missing) > 0 {
		return fmt.Sprintf("Invalid arguments: action %q needs %s. Add %s and call again.", name, textkit.QuoteAll(missing), pluralThem(len(missing)))
	}
	if ap.inputs == nil {
		return ""
	}
	var unused []string
	for _, k := range textkit.SortedKeys(args) {
		if !ap.inputs[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) == 0 {
		return ""
	}
	var parts []string
	for _, k := range unused {
		parts = append(parts, fmt.Sprintf("%q is for action %s", k, strings.Join(p.usedBy[k], " or ")))
	}
	return fmt.Sprintf("Invalid arguments: action %q does not use %s (%s). Leave %s out, or choose the action that takes %s, and call again.",
		name, textkit.QuoteAll(unused), strings.Join(parts, "; "), pluralThem(len(unused)), pluralThem(len(unused)))
}

func sortedActionNames(p *plan) []string {
	names := make([]string, 0, len(p.actions))
	for n := range p.actions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func pluralThem(n int) string {
	if n > 1 {
		return "them"
	}
	return "it"
}

// runPlan executes an aggregated or action tool; the caller has set the
// call's one deadline on ctx and checked the action (checkArgs).
func (s *Server) runPlan(ctx context.Context, bt *boundTool, call *Call, args map[string]any) (*mcp.CallToolResult, *callError) {
	p := bt.plan
	steps := p.steps
	action, _ := args["action"].(string)
	var actionSchema *jsonschema.Node
	if p.actions != nil {
		steps, actionSchema = p.actions[action].steps, p.actions[action].output
	}
	env := &evalEnv{ctx: ctx, input: args, steps: map[string]*stepOutcome{}, config: s.spec.Config, getenv: s.getenv}
	if cerr := s.runSteps(ctx, bt, steps, env, call); cerr != nil {
		return nil, cerr
	}
	merged, warnings := mergeOutcomes(steps, env.steps)
	if len(steps) == 1 && merged == nil && len(warnings) == 0 {
		if o := env.steps[steps[0].spec.ID]; o != nil && o.empty && o.err == nil {
			// One step that got no content: as a plain operation tool.
			return s.noContentResult(bt, o.status)
		}
	}
	result := shapeResult(merged, bt.spec.OutputFor(action), args)
	if len(warnings) > 0 {
		if m, ok := result.(map[string]any); ok {
			m["warnings"] = warnings
		}
	}
	if actionSchema != nil {
		// The action's own shape, exact, besides the tool's union.
		if cerr := s.checkAgainst(bt, actionSchema, normalizeValue(wrapObject(result))); cerr != nil {
			return nil, cerr
		}
	}
	res, cerr := s.finishResult(bt, result)
	if cerr != nil {
		return nil, cerr
	}
	return withStepMedia(res, steps, env), nil
}

// withStepMedia appends the media the steps returned to res, step by
// step in the plan's order, each after its summary: a task tool whose
// steps answer an image and a PDF returns both, in order.
func withStepMedia(res *mcp.CallToolResult, steps []*compiledStep, env *evalEnv) *mcp.CallToolResult {
	for _, st := range steps {
		if o := env.steps[st.spec.ID]; o != nil && o.media != nil {
			m := o.media
			res.Content = append(res.Content, mediaContent(m.parts, m.multipart, m.uri, m.label)...)
		}
	}
	return res
}

// runSteps runs steps in dependency waves: every step whose inputs are
// ready runs concurrently with the others of its wave. A failing required
// step ends the call with its error; a cancelled call stops before the
// next wave. A client that sent a progress token hears after each step.
func (s *Server) runSteps(ctx context.Context, bt *boundTool, steps []*compiledStep, env *evalEnv, call *Call) *callError {
	pending := append([]*compiledStep(nil), steps...)
	done := 0
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return s.transportError(ctx, bt, err, 0, false)
		}
		var wave, later []*compiledStep
		for _, st := range pending {
			if depsDone(st.spec.After, env.steps) {
				wave = append(wave, st)
			} else {
				later = append(later, st)
			}
		}
		if len(wave) == 0 {
			return &callError{kind: KindInternal, retryAfter: retryAfterUnknown,
				msg: fmt.Sprintf("%s is misconfigured (its parts depend on each other in a cycle). Tell the user the tool needs fixing.", bt.spec.Name)}
		}
		outcomes := make([]*stepOutcome, len(wave))
		var wg sync.WaitGroup
		for i, st := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// A panic here would end the process: no recover above
				// a goroutine of its own. It fails this call instead.
				defer func() {
					if p := recover(); p != nil {
						outcomes[i] = &stepOutcome{err: s.panicked(bt, call.rec, p)}
					}
				}()
				outcomes[i] = s.runStep(ctx, bt, st, env, call.rec)
			}()
		}
		wg.Wait()
		for i, st := range wave {
			o := outcomes[i]
			env.steps[st.spec.ID] = o
			call.rec.retries += o.retries
			if o.status != 0 {
				call.rec.status = o.status
			}
			if o.err != nil && !st.spec.Optional {
				return o.err
			}
			done++
			call.progress(ctx, done, len(steps))
		}
		pending = later
	}
	return nil
}

// progress notifies the client of a multi-step call's progress, when it
// asked for notifications (a progress token).
func (c *Call) progress(ctx context.Context, done, total int) {
	req := c.in.req
	if req == nil || req.Params == nil || req.Session == nil || total < 2 {
		return
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return
	}
	req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok,
		Progress: float64(done), Total: float64(total), Message: fmt.Sprintf("%s: %d of %d upstream calls done", c.Tool.Name, done, total)})
}

// runStep runs one step unless its condition or a dependency skips it.
// It reads env.steps only for steps of earlier waves, which no goroutine
// writes while this wave runs.
func (s *Server) runStep(ctx context.Context, bt *boundTool, st *compiledStep, env *evalEnv, rec *callRecord) *stepOutcome {
	if w := st.spec.When; w != "" {
		if v, ok := env.input[w]; !ok || v == false || v == nil {
			return &stepOutcome{skipped: true}
		}
	}
	for _, dep := range st.spec.After {
		if d := env.steps[dep]; d == nil || d.skipped || d.err != nil {
			return &stepOutcome{skipped: true}
		}
	}
	args, partial := evalArgs(st.args, env)
	if st.spec.Optional && (partial != "" || st.spec.Op.Lacks(args) != "") {
		// An optional step without an argument its operation requires
		// (the input feeding it left out, or an object bound from inputs
		// only some of which were given) is not sent: the API would only
		// refuse it.
		return &stepOutcome{skipped: true}
	}
	if partial != "" {
		return &stepOutcome{err: inputFailure(partial)}
	}
	// Each step keeps its own call record, merged by runSteps, so
	// concurrent steps never share one.
	stepRec := &callRecord{requestID: rec.requestID, trace: rec.trace}
	ur, cerr := s.execute(ctx, bt, st.op, args, stepRec)
	out := &stepOutcome{status: stepRec.status, retries: stepRec.retries, err: cerr}
	if cerr == nil {
		out.body, out.empty = ur.stepValue(), ur.kind == bodyEmpty
		if ur.kind == bodyMedia {
			out.media = ur
		}
	}
	return out
}

func depsDone(after []string, done map[string]*stepOutcome) bool {
	for _, d := range after {
		if done[d] == nil {
			return false
		}
	}
	return true
}

func missingInputs(required []string, args map[string]any) []string {
	var out []string
	for _, r := range required {
		if _, ok := args[r]; !ok {
			out = append(out, r)
		}
	}
	return out
}

// mergeOutcomes is the result before shaping: a single step's body as it
// is, several steps' bodies under their IDs. Failed optional steps become
// warnings the model can read, in the tool's terms.
func mergeOutcomes(steps []*compiledStep, outs map[string]*stepOutcome) (any, []string) {
	var warnings []string
	merged := map[string]any{}
	ran := 0
	var only any
	for _, st := range steps {
		o := outs[st.spec.ID]
		switch {
		case o == nil || o.skipped:
			continue
		case o.err != nil:
			warnings = append(warnings, "This result is partial: an optional lookup failed, so its fields are missing. "+o.err.msg)
			continue
		}
		ran++
		merged[st.spec.ID] = o.body
		only = o.body
	}
	sort.Strings(warnings)
	if len(steps) == 1 && ran == 1 {
		return only, warnings
	}
	return merged, warnings
}

// joinText joins a result's text content.
func joinText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " ")
}
