package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plan is a compiled aggregated or action tool.
type plan struct {
	steps   []*compiledStep
	actions map[string]*actionPlan
	output  *Output
}

type actionPlan struct {
	steps    []*compiledStep
	required []string
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
}

// stepOutcome is what one step produced.
type stepOutcome struct {
	status  int
	body    any
	skipped bool
	err     *callError
	retries int
}

// compilePlan compiles a tool's steps or actions; nil for plain tools.
func (s *Server) compilePlan(ts *Tool) (*plan, error) {
	if len(ts.Steps) == 0 && len(ts.Actions) == 0 {
		return nil, nil
	}
	p := &plan{output: ts.Output}
	var err error
	if p.steps, err = s.compileSteps(ts.Steps); err != nil {
		return nil, err
	}
	if len(ts.Actions) > 0 {
		p.actions = map[string]*actionPlan{}
	}
	for _, a := range ts.Actions {
		steps, err := s.compileSteps(a.Steps)
		if err != nil {
			return nil, fmt.Errorf("action %s: %w", a.Name, err)
		}
		p.actions[a.Name] = &actionPlan{steps: steps, required: a.Required}
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
		args, err := compileBindings(st.Args)
		if err != nil {
			return nil, fmt.Errorf("step %s: %w", st.ID, err)
		}
		out = append(out, &compiledStep{spec: st, op: op, args: args})
	}
	return out, nil
}

func compileBindings(bs []Binding) ([]compiledBinding, error) {
	out := make([]compiledBinding, 0, len(bs))
	for _, b := range bs {
		cb := compiledBinding{arg: b.Arg}
		switch {
		case len(b.Fields) > 0:
			fields, err := compileBindings(b.Fields)
			if err != nil {
				return nil, err
			}
			cb.fields = fields
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
// argument out, so the operation's own optionality applies.
func evalArgs(bs []compiledBinding, env *evalEnv) map[string]any {
	args := make(map[string]any, len(bs))
	for _, b := range bs {
		switch {
		case b.fields != nil:
			if obj := evalArgs(b.fields, env); len(obj) > 0 {
				args[b.arg] = obj
			}
		case b.hasConst:
			args[b.arg] = b.constVal
		default:
			if v, ok := b.expr.eval(env); ok {
				args[b.arg] = v
			}
		}
	}
	return args
}

// runPlan executes an aggregated or action tool; the caller has set the
// call's one deadline on ctx.
func (s *Server) runPlan(ctx context.Context, bt *boundTool, args map[string]any, rec *callRecord) (*mcp.CallToolResult, *callError) {
	p := bt.plan
	steps := p.steps
	if p.actions != nil {
		name, _ := args["action"].(string)
		ap := p.actions[name]
		if ap == nil {
			return nil, inputFailure(fmt.Sprintf("Invalid arguments: unknown action %q. Use one of the values listed for \"action\" and call again.", name))
		}
		if missing := missingInputs(ap.required, args); len(missing) > 0 {
			return nil, inputFailure(fmt.Sprintf("Invalid arguments: action %q needs %s. Add them and call again.", name, strings.Join(missing, ", ")))
		}
		steps = ap.steps
	}
	env := &evalEnv{ctx: ctx, input: args, steps: map[string]*stepOutcome{}, config: s.spec.Config, getenv: s.getenv}
	if cerr := s.runSteps(ctx, bt, steps, env, rec); cerr != nil {
		return nil, cerr
	}
	result, warnings := mergeOutcomes(steps, env.steps)
	result = shapeResult(result, p.output, args)
	if len(warnings) > 0 {
		if m, ok := result.(map[string]any); ok {
			m["warnings"] = warnings
		}
	}
	res := structuredResult(result)
	if len(s.creds.secrets) > 0 {
		redactResult(res, s.creds)
	}
	return s.checkOutput(bt, res)
}

// runSteps runs steps in dependency waves: every step whose inputs are
// ready runs concurrently with the others of its wave. A failing required
// step ends the call with its error.
func (s *Server) runSteps(ctx context.Context, bt *boundTool, steps []*compiledStep, env *evalEnv, rec *callRecord) *callError {
	pending := append([]*compiledStep(nil), steps...)
	for len(pending) > 0 {
		var wave, later []*compiledStep
		for _, st := range pending {
			if depsDone(st.spec.After, env.steps) {
				wave = append(wave, st)
			} else {
				later = append(later, st)
			}
		}
		if len(wave) == 0 {
			return &callError{kind: kindUpstream, retryAfter: retryAfterUnknown, msg: "The tool's steps depend on each other in a cycle; this is a server configuration fault. Tell the user the tool needs fixing."}
		}
		outcomes := make([]*stepOutcome, len(wave))
		var wg sync.WaitGroup
		for i, st := range wave {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outcomes[i] = s.runStep(ctx, bt, st, env, rec)
			}()
		}
		wg.Wait()
		for i, st := range wave {
			o := outcomes[i]
			env.steps[st.spec.ID] = o
			rec.retries += o.retries
			if o.status != 0 {
				rec.status = o.status
			}
			if o.err != nil && !st.spec.Optional {
				o.err.msg = fmt.Sprintf("Step %q failed. ", st.spec.ID) + o.err.msg
				return o.err
			}
		}
		pending = later
	}
	return nil
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
	args := evalArgs(st.args, env)
	return s.callStep(ctx, bt, st.op, args, rec)
}

// callStep calls one step's operation with the full defensive machinery
// (limits, retries, error mapping) and decodes its body for later steps
// and the merged result. Each step keeps its own call record, merged by
// runSteps, so concurrent steps never share one.
func (s *Server) callStep(ctx context.Context, bt *boundTool, op *compiledOp, args map[string]any, rec *callRecord) *stepOutcome {
	stepBT := *bt
	stepBT.output = nil // the tool's output schema describes the shaped result, not a step
	stepRec := &callRecord{requestID: rec.requestID, trace: rec.trace}
	res, cerr := s.execute(ctx, &stepBT, op, args, stepRec)
	out := &stepOutcome{status: stepRec.status, retries: stepRec.retries, err: cerr}
	if cerr != nil {
		return out
	}
	text := joinText(res)
	if res.StructuredContent == nil {
		if text != "" {
			out.body = text
		}
		return out
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if dec.Decode(&out.body) != nil {
		out.body = text
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
// warnings the model can read.
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
			warnings = append(warnings, fmt.Sprintf("step %s failed, so this result is partial: %s", st.spec.ID, o.err.msg))
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
