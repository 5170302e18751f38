//go:build linux && e2e

package e2e

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestPerUserInterleavings runs seeded interleavings of three callers
// (alice, bob, carol) on two replicas sharing one Redis: at each step one
// caller calls a tool and connects their account when asked, calls a
// tool without connecting, or disconnects, on a random replica. Whatever
// the order, a caller is served only their own subject's notes, and only
// while their connected account holds the tool's scopes; else they are
// asked to connect (a sign-in for a tool asks its scopes and keeps those
// the account already had). A failure prints the seed ($OA2MCP_SEED
// replays it) and the shortest failing prefix of the steps.

// interleavingSteps bounds one run (each step is a few tool calls).
const interleavingSteps = 24

type stepKind int

const (
	stepConnect stepKind = iota
	stepCall
	stepDisconnect
)

// step is one move of one caller.
type step struct {
	kind    stepKind
	who     int // caller index
	replica int
	tool    string // list_notes, create_note or get_note, for stepCall
}

func (s step) String() string {
	name := []string{"alice", "bob", "carol"}[s.who]
	switch s.kind {
	case stepConnect:
		return fmt.Sprintf("%s connects on replica %d", name, s.replica)
	case stepDisconnect:
		return fmt.Sprintf("%s disconnects on replica %d", name, s.replica)
	}
	return fmt.Sprintf("%s calls %s on replica %d", name, s.tool, s.replica)
}

func genSteps(r *rand.Rand, n int) []step {
	tools := []string{"list_notes", "create_note", "get_note"}
	out := make([]step, n)
	for i := range out {
		out[i] = step{kind: stepKind(r.IntN(3)), who: r.IntN(3), replica: r.IntN(2), tool: tools[r.IntN(len(tools))]}
	}
	return out
}

func TestPerUserInterleavings(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	steps := genSteps(rand.New(rand.NewPCG(seed, 0)), interleavingSteps)
	s := newPerUserSetup(t)
	if bad := runInterleaving(t, s, steps); bad >= 0 {
		t.Fatalf("seed %d (OA2MCP_SEED=%d replays it): the invariant broke at step %d; shortest failing prefix:\n  %s",
			seed, seed, bad+1, strings.Join(stepStrings(steps[:bad+1]), "\n  "))
	}
}

func stepStrings(steps []step) []string {
	var out []string
	for _, s := range steps {
		out = append(out, s.String())
	}
	return out
}

// runInterleaving plays steps on a fresh world and returns the index of
// the first step that broke the invariant, or -1. Since every step starts
// from the state the steps before it made, the first failing step ends
// the shortest failing prefix.
func runInterleaving(t *testing.T, s perUserSetup, steps []step) int {
	t.Helper()
	addrs := freeAddrs(t, 2)
	w := s.world(t, 0, addrs...)
	redis := oa2mcptest.StartRedisServer(t)
	key := tokenKey()
	var endpoints []string
	for _, a := range addrs {
		endpoints = append(endpoints, s.server.start(t, w, serverRun{addr: a, key: key, redisURL: redis.URL}))
	}
	users := []string{"alice", "bob", "carol"}
	callers := make([]*caller, len(users))
	sessions := make([][]*mcp.ClientSession, len(users))
	for i, u := range users {
		callers[i] = newCaller(t, w, u)
		for _, e := range endpoints {
			sessions[i] = append(sessions[i], callers[i].connect(t, e, ""))
		}
	}
	tool := func(cs *mcp.ClientSession, suffix string) string { return toolNamed(t, cs, suffix) }
	// granted are the scopes each caller's connected account holds: a
	// sign-in asks what the tool needs plus what the account already has.
	granted := make([]map[string]bool, len(users))
	covers := func(who int, tool string) bool {
		for _, sc := range toolScopes[tool] {
			if !granted[who][sc] {
				return false
			}
		}
		return true
	}
	for i, st := range steps {
		c, cs := callers[st.who], sessions[st.who][st.replica]
		before := c.askedCount()
		var problem string
		switch st.kind {
		case stepConnect:
			c.autoConnect = true
			had := covers(st.who, st.tool)
			r := call(t, cs, tool(cs, st.tool), callArgs(st.tool, c.user))
			if served := servedOwner(r); served != c.user {
				problem = fmt.Sprintf("after connecting, %s served %q (isError %v): %s", st.tool, served, r.isError, truncate(r.text, 300))
			}
			if asked := c.askedCount() != before; asked == had {
				problem = fmt.Sprintf("asked to connect: %v, with the account's scopes covering %s: %v", asked, st.tool, had)
			}
			if granted[st.who] == nil {
				granted[st.who] = map[string]bool{}
			}
			for _, sc := range toolScopes[st.tool] {
				granted[st.who][sc] = true
			}
		case stepDisconnect:
			if r := call(t, cs, tool(cs, "disconnect_account"), nil); r.isError {
				problem = "disconnect_account failed: " + truncate(r.text, 300)
			}
			granted[st.who] = nil
		case stepCall:
			c.autoConnect = false
			r := call(t, cs, tool(cs, st.tool), callArgs(st.tool, c.user))
			asked := c.askedCount() != before
			served := servedOwner(r)
			ok := covers(st.who, st.tool)
			switch {
			case served != "" && served != c.user:
				problem = fmt.Sprintf("%s was served %s's data: %s", c.user, served, truncate(r.text, 300))
			case ok && (asked || r.isError || served != c.user):
				problem = fmt.Sprintf("connected with the scopes needed, yet asked=%v isError=%v served %q: %s", asked, r.isError, served, truncate(r.text, 300))
			case !ok && (!asked || served != ""):
				problem = fmt.Sprintf("not connected with the scopes needed, yet asked=%v served %q: %s", asked, served, truncate(r.text, 300))
			}
		}
		if problem != "" {
			t.Errorf("step %d (%s): %s", i+1, st, problem)
			return i
		}
	}
	w.requireNoMCPTokenUpstream(t, callers...)
	return -1
}

// toolScopes are the scopes the spec declares for each notes tool.
var toolScopes = map[string][]string{"list_notes": {"notes:read"}, "get_note": {"notes:read"}, "create_note": {"notes:write"}}

// callArgs are valid arguments of each notes tool for user.
func callArgs(tool, user string) map[string]any {
	switch tool {
	case "create_note":
		return map[string]any{"title": "by " + user}
	case "get_note":
		return map[string]any{"noteId": "welcome-" + user}
	}
	return nil
}

// servedOwner is whose notes a result holds: the owner field of a list,
// a created note or a fetched note; empty when it holds none.
func servedOwner(r callResult) string {
	if r.isError {
		return ""
	}
	return r.owner()
}
