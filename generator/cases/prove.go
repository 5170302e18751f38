package cases

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// Prove runs every tool's success cases (normal, boundary, each action,
// paging) through the runtime (its Server.CallTool, no MCP session), against the synthesised
// upstream: the runtime's own validation, request building, steps,
// shaping and output check. A tool that fails cannot be called as
// generated: each failure is an error at the tool's position.
func Prove(ctx context.Context, srv *ir.Server) diag.List {
	def := Definition(srv)
	var cases []oa2mcptest.Case
	for _, c := range srv.CallCases {
		if !c.WantError {
			cases = append(cases, c)
		}
	}
	suite := oa2mcptest.Suite{Def: def, Responses: srv.UpstreamResponses, Credentials: Credentials(srv), Cases: cases}
	var problems diag.List
	pos := map[string]diag.Position{}
	for _, t := range srv.Tools {
		pos[t.Name] = t.Pos
	}
	fails := oa2mcptest.Check(ctx, suite, oa2mcptest.Options{Transport: oa2mcptest.Direct, Timeout: proofTimeout})
	sort.SliceStable(fails, func(i, j int) bool { return fails[i].Tool < fails[j].Tool })
	for _, f := range fails {
		problems.Errorf(pos[f.Tool], fixFor(f.Problem), "tool %s cannot be called as generated: its %s case fails: %s", f.Tool, f.Case, f.Problem)
	}
	return problems
}

// proofTimeout bounds each call of the proof. Only success cases run
// here (the timeout fault cases, which wait a timeout out, run in the
// generated tests), against an upstream in process that answers at
// once, so the bound only stops a call that hangs; at the tests' 1 s a
// machine under heavy load failed good tools.
const proofTimeout = 30 * time.Second

// fixFor suggests what to change for a failing case.
func fixFor(problem string) string {
	switch {
	case strings.Contains(problem, "breaks the output schema"), strings.Contains(problem, "does not have the shape"):
		return "check the output.pick and output.list paths against the operation's response schema"
	case strings.Contains(problem, "Invalid arguments"):
		return "make the input's schema agree with what its bindings send (type, pattern, enum)"
	case strings.Contains(problem, "upstream got a bad request"):
		return "bind every parameter the operation requires (args:)"
	}
	return "fix the tool in the override file, or report this as an oa2mcp bug if it is a default tool"
}

// Definition is the runtime definition of srv, as the generated code
// builds it.
func Definition(srv *ir.Server) *runtime.ServerDef {
	def := srv.ServerDef
	def.Tools = nil
	for i := range srv.Tools {
		def.Tools = append(def.Tools, &srv.Tools[i].Tool)
	}
	return &def
}

// Credentials are test values of the server's credential variables.
func Credentials(srv *ir.Server) map[string]string {
	out := map[string]string{}
	for _, s := range srv.Security {
		for _, env := range []string{s.EnvVar, s.PasswordEnv} {
			if env != "" {
				out[env] = "oa2mcp-test-credential"
			}
		}
	}
	return out
}

func sortStrings(s []string) { sort.Strings(s) }
