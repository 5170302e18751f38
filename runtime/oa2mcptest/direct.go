package oa2mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// The Direct transport: one server for every tool, calls made with
// Server.CallTool and the caller put on the context, the fake upstream
// reached in process, each case's faults and answers carried by its
// call's context. It checks what the runtime does with arguments,
// requests and responses (the generator's proof) at a fraction of the
// cost of a server, a socket and sessions per tool. A tool that asks the
// user to confirm needs a client that answers forms: it runs over
// InProcess instead.

// checkDirect runs the cases of the tools that need no confirmation
// directly, and the others with checkTool over InProcess.
func checkDirect(ctx context.Context, s Suite, order []string, byTool map[string][]Case, opts Options) []Failure {
	var direct, viaClient []string
	for _, tool := range order {
		if t := findTool(s.Def, tool); t != nil && t.Confirm != "" {
			viaClient = append(viaClient, tool)
		} else {
			direct = append(direct, tool)
		}
	}
	d := &directRun{suite: s, clock: newCaseClock(), tokens: tokens(s.Def)}
	d.upstream = NewUpstream(s.Def, s.Responses)
	srv, err := runtime.NewServer(s.Def, runtime.Options{
		BaseURL: "http://upstream.in-process", Upstream: d.upstream, Timeout: opts.Timeout, Now: d.clock.now,
		Getenv:         func(k string) string { return s.Credentials[k] },
		UpstreamTokens: TestUpstreamTokens,
	})
	if err != nil {
		return []Failure{{Problem: "NewServer: " + err.Error()}}
	}
	defer srv.Close()
	d.srv = srv
	viaOpts := opts
	viaOpts.Transport = InProcess
	return eachTool(append(direct, viaClient...), opts.Parallel, func(i int, tool string) []Failure {
		if i < len(direct) {
			return d.runTool(ctx, tool, byTool[tool])
		}
		return checkTool(ctx, s, tool, byTool[tool], viaOpts)
	})
}

// directRun is the shared server of the Direct transport.
type directRun struct {
	suite    Suite
	srv      *runtime.Server
	upstream *Upstream
	// tokens are the test callers, found once: finding them encodes the
	// whole definition (per call, that was most of a large spec's proof).
	tokens map[string]runtime.Caller
	clock  *caseClock
}

// runTool runs one tool's cases in order.
func (d *directRun) runTool(ctx context.Context, tool string, cases []Case) []Failure {
	var fails []Failure
	for i := range cases {
		c := &cases[i]
		for _, p := range d.runCase(ctx, c) {
			fails = append(fails, Failure{Tool: tool, Case: c.Name, Problem: p})
		}
	}
	return fails
}

// runCase makes one call and lists what is wrong with it.
func (d *directRun) runCase(ctx context.Context, c *Case) []string {
	d.clock.tick()
	args := map[string]any{}
	if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
		return []string{fmt.Sprintf("arguments %s are not a JSON object: %v", c.Args, err)}
	}
	// With no client to ask, the user's answers come with the arguments.
	if c.Answers != "" {
		var answers map[string]any
		json.Unmarshal([]byte(c.Answers), &answers)
		for k, v := range answers {
			args[k] = v
		}
	}
	tool := findTool(d.suite.Def, c.Tool)
	if len(tool.HandleInputs) > 0 {
		// One server and one clock serve every tool: no other tool's
		// case may age the handle between its creation and this call.
		defer d.clock.hold()()
	}
	owner := c.HandleOwner
	if owner == "" {
		owner = c.Caller
	}
	for _, in := range tool.HandleInputs {
		v, _ := args[in.Arg].(string)
		if v == "" || !strings.HasPrefix(v, handlePrefix(d.suite.Def, in.Type)) {
			continue
		}
		h, err := d.createHandle(ctx, in.Type, owner)
		if err != nil {
			return []string{fmt.Sprintf("no %s handle for input %s: %v", in.Type, in.Arg, err)}
		}
		args[in.Arg] = h
	}
	cs := &caseState{fault: c.Fault, overrides: c.Responses, caller: d.claims(c.Caller)}
	res, err := d.srv.CallTool(withCaseState(d.as(ctx, c.Caller), cs), c.Tool, args)
	if err != nil {
		return []string{fmt.Sprintf("protocol error %v for arguments %s", err, c.Args)}
	}
	var out []string
	for _, p := range checkResult(d.suite.Def, c, res, cs.requests.Load() > 0) {
		out = append(out, fmt.Sprintf("%s (arguments %s)", p, c.Args))
	}
	if c.Fault == "" {
		for _, p := range cs.problems {
			out = append(out, "the upstream got a bad request: "+p)
		}
	}
	return out
}

// as puts a test caller's identity on ctx.
func (d *directRun) as(ctx context.Context, caller string) context.Context {
	return runtime.ContextWithCaller(ctx, d.claims(caller))
}

// claims are a test caller's claims.
func (d *directRun) claims(caller string) map[string]string {
	if caller == "" {
		caller = CallerDefault
	}
	return d.tokens[tokenOf(caller)].AllClaims()
}

// createHandle runs the first success case of a tool creating a handle
// of typ, as caller, and returns the handle.
func (d *directRun) createHandle(ctx context.Context, typ, caller string) (string, error) {
	for _, creator := range d.suite.Def.Tools {
		field := handleField(creator, typ)
		if field == "" {
			continue
		}
		for i := range d.suite.Cases {
			cc := &d.suite.Cases[i]
			if cc.Tool != creator.Name || cc.WantError || cc.Fault != "" || (cc.Caller != "" && cc.Caller != CallerDefault) {
				continue
			}
			var args map[string]any
			json.Unmarshal([]byte(cc.Args), &args)
			if !dropHandleInputs(creator, typ, args) {
				continue
			}
			if cc.Answers != "" {
				var answers map[string]any
				json.Unmarshal([]byte(cc.Answers), &answers)
				for k, v := range answers {
					args[k] = v
				}
			}
			res, err := d.srv.CallTool(withCaseState(d.as(ctx, caller), &caseState{caller: d.claims(caller)}), creator.Name, args)
			if err != nil {
				return "", err
			}
			return handleFromResult(creator.Name, field, res)
		}
	}
	return "", fmt.Errorf("no success case of a tool creating one")
}

// handleFromResult reads a new handle from a creating tool's result.
func handleFromResult(tool, field string, res *mcp.CallToolResult) (string, error) {
	if res.IsError {
		return "", fmt.Errorf("%s failed: %s", tool, text(res))
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil {
		return "", fmt.Errorf("%s: result is not a JSON object: %s", tool, text(res))
	}
	h, _ := out[field].(string)
	if h == "" {
		return "", fmt.Errorf("%s returned no %s: %s", tool, field, text(res))
	}
	return h, nil
}
