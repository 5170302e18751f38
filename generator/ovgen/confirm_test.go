package ovgen

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// confirmChance is how often a file asks the user to confirm one tool.
const confirmChance = 0.35

// drawConfirm gives, with confirmChance, one operation or step tool of
// p a confirmation question naming one of its visible inputs. Not a
// tool with an identity binding: the client that answers the
// confirmation is an in-process session, which has no caller.
func (g *gen) drawConfirm(p *plan) {
	if !g.chance(confirmChance) {
		return
	}
	var pool []*toolPlan
	for _, t := range p.tools {
		if len(t.actions) > 0 || len(t.visible) == 0 || p.handles.owns(t) || hasIdentity(t.input) {
			continue
		}
		pool = append(pool, t)
	}
	if len(pool) == 0 {
		return
	}
	t := pool[g.pick(len(pool))]
	t.confirm = fmt.Sprintf("Go ahead with %s = ${input.%s}?", t.name, t.visible[g.pick(len(t.visible))])
}

func hasIdentity(fields map[string]*fieldPlan) bool {
	for _, f := range fields {
		if f.identity != "" {
			return true
		}
	}
	return false
}

// confirmRefusal and confirmDeclined are what the runtime documents for
// a confirmation no one can answer and one the user declined.
const (
	confirmRefusal  = "needs the user's own confirmation before it runs"
	confirmDeclined = "The user declined to confirm"
)

// checkConfirm: a tool asking for confirmation says so in its
// description; called without a session that can show a form it is
// refused, and declined it is not run, and neither reaches the upstream.
// (Accepted, it runs: the generic checks call it through a client that
// accepts.)
func (h *harness) checkConfirm(tp *toolPlan, tool *ir.Tool, st *stats) []failure {
	var out []failure
	fail := func(inv, format string, a ...any) {
		out = append(out, failure{inv, fmt.Sprintf("tool %s: ", tool.Name) + fmt.Sprintf(format, a...)})
	}
	st.checks++
	if !strings.Contains(tool.Description, "confirm") {
		fail("a tool asking for confirmation says so", "description %q", tool.Description)
	}
	args, ok := h.normalArgs(tool.Name, "")
	if !ok {
		fail("every tool is callable with a synthesised valid input", "no normal call case")
		return out
	}
	forbidden := h.forbidden(tp, tool)
	refused := func(what, want string, res *mcp.CallToolResult, reqs []request, err error) {
		st.checks++
		text := ""
		if res != nil {
			text = resultText(res)
		}
		switch {
		case err != nil || res == nil || !res.IsError || res.InputRequests != nil:
			fail("an unconfirmed call is refused and reaches no upstream", "%s answered %v %s", what, err, text)
		case len(reqs) > 0:
			fail("an unconfirmed call is refused and reaches no upstream", "%s sent %s %s", what, reqs[0].method, reqs[0].path)
		case !strings.Contains(text, want):
			fail("an unconfirmed call is refused and reaches no upstream", "%s: %q does not say %q", what, text, want)
		}
		for _, f := range forbidden {
			if strings.Contains(text, f) {
				fail("error text names only the tool's own inputs, actions and sibling tools", "%s: %q names %s", what, text, f)
			}
		}
	}
	res, reqs, err := h.callDirect(tool.Name, copyArgs(args))
	refused("a call without a session", confirmRefusal, res, reqs, err)
	res, reqs, err = h.callSession(tool.Name, copyArgs(args), "decline")
	refused("a declined call", confirmDeclined, res, reqs, err)
	st.confirmed++
	return out
}

// callDirect calls a tool with Server.CallTool, which has no session:
// no client to show a confirmation form to.
func (h *harness) callDirect(tool string, args map[string]any) (*mcp.CallToolResult, []request, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.callAs("oa2mcp-test-a", tool, args, nil, 0)
}

// callSession calls a tool through an MCP client session whose user
// answers every form with action ("accept" or "decline").
func (h *harness) callSession(tool string, args map[string]any, action string) (*mcp.CallToolResult, []request, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessionCall(tool, args, nil, 0, action)
}

// sessionCall is callSession with h.mu held and the upstream's lists
// and fault programmed.
func (h *harness) sessionCall(tool string, args map[string]any, lists map[string]*pagedList, fault int, action string) (*mcp.CallToolResult, []request, error) {
	if h.session == nil {
		if err := h.connect(); err != nil {
			return nil, nil, err
		}
	}
	h.wire.reset(lists, fault)
	h.answer = action
	res, err := h.session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	return res, h.wire.requests(), err
}

// connect opens the in-process client session that answers forms.
func (h *harness) connect() error {
	ctx, cancel := context.WithCancel(context.Background())
	client := mcp.NewClient(&mcp.Implementation{Name: "ovgen", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			// h.mu is held by the call that asked.
			return &mcp.ElicitResult{Action: h.answer, Content: map[string]any{}}, nil
		},
	})
	cs, err := client.Connect(ctx, h.srv.InMemoryTransport(ctx), nil)
	if err != nil {
		cancel()
		return err
	}
	h.session, h.stopSession = cs, cancel
	return nil
}
