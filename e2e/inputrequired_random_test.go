//go:build linux && e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestInputRequiredRandom drives random input_required exchanges against
// the conformance fixture server over Streamable HTTP (2026-07-28): random
// tools (an ask, a confirmation, both in rounds), random client
// capabilities per request, arguments given or left out, and per round a
// random requestState (echoed, left out, tampered, another call's, one
// used before) and random inputResponses (a valid answer, an invalid one,
// no object at all, decline, cancel, none, extra keys). Invariants, for
// any exchange: the answer is exactly what a small model of the protocol
// predicts (the next round, a complete result, the tool error or the
// JSON-RPC error -32602 for a state the server cannot accept); a client
// that declared no elicitation is never sent an input request; and the
// server keeps serving. A failure prints the seed and the failing
// exchange, replayed alone and cut to the fewest rounds that still fail;
// OA2MCP_SEED=N replays a run.
func TestInputRequiredRandom(t *testing.T) {
	x := requireExternalTools(t) // the fixture's binaries need the repository only; this keeps one entry point
	bins := buildConformanceFixture(t, x.root)
	backend := startDaemon(t, "conformance backend", regexp.MustCompile(`conformance backend listening on (http://127\.0\.0\.1:\d+/\S*)`),
		bins.backend, "--addr", "127.0.0.1:0")
	url := startDaemon(t, "conformance MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
		bins.server, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backend)
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	c := &mrtrClient{url: url, http: &http.Client{Timeout: 10 * time.Second}, foreign: map[string]string{}}
	deadline := time.Now().Add(90 * time.Second)
	const exchanges = 300
	for i := 0; i < exchanges && time.Now().Before(deadline); i++ {
		ex := randomExchange(r)
		if msg := c.run(ex, len(ex.rounds)); msg != "" {
			t.Fatalf("seed %d (OA2MCP_SEED=%d replays), exchange %d: %s\nminimised: %s", seed, seed, i, msg, c.minimise(ex))
		}
		if msg := c.control(); msg != "" {
			t.Fatalf("seed %d, after exchange %d (%s): the server stopped serving: %s", seed, i, ex, msg)
		}
	}
}

// mrtrTool is a fixture tool and what it asks.
type mrtrTool struct {
	name, key    string
	ask, confirm bool
}

var mrtrTools = []mrtrTool{
	{"test_input_required_result_elicitation", "user_name", true, false},
	{"test_input_required_result_capabilities", "oa2mcp_input", true, false},
	{"test_input_required_result_request_state", "oa2mcp_input", false, true},
	{"test_input_required_result_tampered_state", "oa2mcp_input", false, true},
	{"test_input_required_result_multi_round", "oa2mcp_input", true, true},
}

// State choices of a round.
const (
	stateEcho = iota
	stateNone
	stateTampered
	stateForeign // issued for another tool
	stateUsed    // consumed before
	stateKinds
)

// Answer choices of a round.
const (
	answerValid = iota
	answerNone
	answerInvalid // an empty name
	answerNotObject
	answerDecline
	answerCancel
	answerKinds
)

// mrtrRound is one request of an exchange.
type mrtrRound struct {
	state, answer int
	elicit        bool // the request declares elicitation
	extra         bool // inputResponses carries unknown keys too
}

// mrtrExchange is one generated exchange: a tool, its arguments, rounds.
type mrtrExchange struct {
	tool     mrtrTool
	withName bool // the name argument is given by the model
	rounds   []mrtrRound
}

func (e mrtrExchange) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s withName=%v", e.tool.name, e.withName)
	for i, r := range e.rounds {
		fmt.Fprintf(&b, " | round %d: state=%s answer=%s elicit=%v extra=%v", i+1,
			[]string{"echo", "none", "tampered", "foreign", "used"}[r.state],
			[]string{"valid", "none", "invalid", "not-object", "decline", "cancel"}[r.answer], r.elicit, r.extra)
	}
	return b.String()
}

func randomExchange(r *rand.Rand) mrtrExchange {
	ex := mrtrExchange{tool: mrtrTools[r.IntN(len(mrtrTools))]}
	ex.withName = ex.tool.ask && r.IntN(4) == 0 // only ask tools take a name
	n := 1 + r.IntN(4)
	for range n {
		rd := mrtrRound{elicit: r.IntN(5) != 0, extra: r.IntN(3) == 0}
		// Mostly well-behaved, so that later rounds are reached.
		if r.IntN(3) == 0 {
			rd.state = r.IntN(stateKinds)
		}
		if r.IntN(3) == 0 {
			rd.answer = r.IntN(answerKinds)
		}
		ex.rounds = append(ex.rounds, rd)
	}
	return ex
}

// mrtrClient speaks raw JSON-RPC to the server.
type mrtrClient struct {
	url  string
	http *http.Client
	id   int
	// used is a state consumed before, for replays; foreign holds by tool
	// the last state issued for it, to send one to another tool (a state
	// of the same tool and arguments is that call's own, and valid).
	used    string
	usedFor string // the tool, arguments and round of used
	foreign map[string]string
}

// foreignState is a state issued for a tool other than tool, or "".
func (c *mrtrClient) foreignState(tool string) string {
	for _, t := range mrtrTools {
		if t.name != tool && c.foreign[t.name] != "" {
			return c.foreign[t.name]
		}
	}
	return ""
}

// reply is what one request got.
type reply struct {
	status   int
	code     int    // JSON-RPC error code, 0 for a result
	message  string // JSON-RPC error message
	result   map[string]any
	rawError string
}

func (c *mrtrClient) post(method string, params map[string]any) (reply, error) {
	c.id++
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	res, err := c.http.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return reply{}, err
	}
	var msg struct {
		ID     int            `json:"id"`
		Result map[string]any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(data, &msg); err != nil {
		return reply{}, fmt.Errorf("HTTP %d, body is no JSON-RPC message: %.300s", res.StatusCode, data)
	}
	if msg.ID != c.id {
		return reply{}, fmt.Errorf("answer has id %d, want %d", msg.ID, c.id)
	}
	rp := reply{status: res.StatusCode, result: msg.Result}
	if msg.Error != nil {
		rp.code, rp.message, rp.rawError = msg.Error.Code, msg.Error.Message, string(data)
	}
	return rp, nil
}

func meta(elicit bool) map[string]any {
	caps := map[string]any{"sampling": map[string]any{}}
	if elicit {
		caps["elicitation"] = map[string]any{}
	}
	return map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mrtr-random", "version": "1"}}
}

// outcome kinds the model predicts.
const (
	wantInput    = "input_required"
	wantComplete = "complete"
	wantToolErr  = "tool error"
	wantRPCErr   = "JSON-RPC error"
)

// run plays the first n rounds of ex and checks each answer against the
// model; it returns what broke, or "".
func (c *mrtrClient) run(ex mrtrExchange, n int) string {
	args := map[string]any{}
	if ex.withName {
		args["name"] = "Ada"
	}
	var state string  // the last state the server issued
	var round string  // what the form of that state asked: "ask" or "confirm"
	answered := false // the name came in an earlier round
	for i, rd := range ex.rounds[:n] {
		params := map[string]any{"name": ex.tool.name, "arguments": args, "_meta": meta(rd.elicit)}
		sent := ""
		switch rd.state {
		case stateEcho:
			sent = state
		case stateTampered:
			if state != "" {
				sent = state[:len(state)-1] + string("AB"[len(state)%2])
				if sent == state {
					sent = state + "x"
				}
			}
		case stateForeign:
			sent = c.foreignState(ex.tool.name)
		case stateUsed:
			sent = c.used
		}
		if sent != "" {
			params["requestState"] = sent
		}
		responses := map[string]any{}
		switch rd.answer {
		case answerValid:
			responses[ex.tool.key] = map[string]any{"action": "accept", "content": map[string]any{"name": "Grace"}}
		case answerInvalid:
			responses[ex.tool.key] = map[string]any{"action": "accept", "content": map[string]any{"name": ""}}
		case answerNotObject:
			responses[ex.tool.key] = 12345
		case answerDecline:
			responses[ex.tool.key] = map[string]any{"action": "decline"}
		case answerCancel:
			responses[ex.tool.key] = map[string]any{"action": "cancel"}
		}
		if rd.extra {
			responses["unknown_extra_key"] = map[string]any{"action": "accept", "content": map[string]any{"foo": "bar"}}
		}
		if len(responses) > 0 {
			params["inputResponses"] = responses
		}
		want, nextRound := predict(ex, rd, sent, state, round, answered)
		if rd.state == stateUsed && sent != "" && strings.HasPrefix(c.usedFor, callKey(ex, "")) && !answered {
			// A used state of this very call is checked as valid until the
			// server would consume it, which it refuses.
			usedRound := strings.TrimPrefix(c.usedFor, callKey(ex, ""))
			want, nextRound = predict(ex, rd, sent, sent, usedRound, answered)
			if want == wantComplete || (want == wantToolErr && (rd.answer == answerDecline || rd.answer == answerCancel)) ||
				(want == wantInput && nextRound != usedRound) {
				want, nextRound = wantRPCErr, ""
			}
		}
		rp, err := c.post("tools/call", params)
		if err != nil {
			return fmt.Sprintf("round %d: %v", i+1, err)
		}
		got := classify(rp)
		if got != want {
			return fmt.Sprintf("round %d (%s): want %s, got %s: %s", i+1, ex, want, got, describe(rp))
		}
		if !rd.elicit && got == wantInput {
			return fmt.Sprintf("round %d: input requests sent to a client that declared no elicitation", i+1)
		}
		if got == wantRPCErr && rp.code != -32602 && rd.answer != answerNotObject {
			return fmt.Sprintf("round %d: JSON-RPC error %d, want -32602: %s", i+1, rp.code, rp.rawError)
		}
		if got == wantInput {
			ir, _ := rp.result["inputRequests"].(map[string]any)
			if ir[ex.tool.key] == nil || len(ir) != 1 {
				return fmt.Sprintf("round %d: inputRequests %v, want one under %q", i+1, rp.result["inputRequests"], ex.tool.key)
			}
			newState, _ := rp.result["requestState"].(string)
			if newState == "" || newState == state {
				return fmt.Sprintf("round %d: input_required without a fresh requestState", i+1)
			}
			if nextRound == "confirm" && round == "ask" && sent != "" {
				answered = true
			}
			if state != "" && sent == state && nextRound != round {
				c.used, c.usedFor = state, callKey(ex, round)
			}
			state, round = newState, nextRound
		} else {
			// A finished exchange consumed the state it sent (if valid).
			if sent == state && state != "" && (got == wantComplete || got == wantToolErr) {
				c.used, c.usedFor = state, callKey(ex, round)
			}
			if got == wantComplete || got == wantToolErr {
				state, round, answered = "", "", false
			}
		}
	}
	if state != "" {
		c.foreign[ex.tool.name] = state
	}
	return ""
}

// callKey names a call (tool and arguments) and, appended, a round.
func callKey(ex mrtrExchange, round string) string {
	return fmt.Sprintf("%s/%v/%s", ex.tool.name, ex.withName, round)
}

// predict is the model of the protocol: what round rd of ex must get,
// and what the next form asks when it is input_required.
func predict(ex mrtrExchange, rd mrtrRound, sent, issued, round string, answered bool) (string, string) {
	if rd.answer == answerNotObject {
		// The SDK refuses params it cannot decode, before any tool runs.
		return wantRPCErr, ""
	}
	needAsk := ex.tool.ask && !ex.withName && !answered
	if !needAsk && !ex.tool.confirm {
		return wantComplete, ""
	}
	first := "confirm"
	if needAsk {
		first = "ask"
	}
	if sent == "" {
		if !ex.tool.confirm && rd.answer != answerNone {
			// An answer to an ask needs no state.
			return answerOutcome(rd, "ask", ex, false)
		}
		if !rd.elicit {
			return wantToolErr, ""
		}
		return wantInput, first
	}
	if sent != issued {
		return wantRPCErr, ""
	}
	if rd.answer == answerNone {
		if !rd.elicit {
			return wantToolErr, ""
		}
		return wantInput, round
	}
	return answerOutcome(rd, round, ex, true)
}

// answerOutcome is what an answer to a form that asked `round` gets.
func answerOutcome(rd mrtrRound, round string, ex mrtrExchange, withState bool) (string, string) {
	switch rd.answer {
	case answerNotObject:
		return wantRPCErr, ""
	case answerDecline, answerCancel:
		return wantToolErr, ""
	case answerInvalid:
		if round == "ask" {
			if !rd.elicit {
				return wantToolErr, ""
			}
			return wantInput, "ask"
		}
	}
	if round == "ask" && ex.tool.confirm {
		if !rd.elicit {
			return wantToolErr, ""
		}
		return wantInput, "confirm"
	}
	return wantComplete, ""
}

func classify(rp reply) string {
	switch {
	case rp.code != 0:
		return wantRPCErr
	case rp.result["resultType"] == "input_required":
		return wantInput
	case rp.result["isError"] == true:
		return wantToolErr
	}
	return wantComplete
}

func describe(rp reply) string {
	if rp.code != 0 {
		return truncate(rp.rawError, 400)
	}
	b, _ := json.Marshal(rp.result)
	return truncate(string(b), 400)
}

// control checks that the server still serves an ordinary call.
func (c *mrtrClient) control() string {
	rp, err := c.post("tools/call", map[string]any{"name": "test_simple_text", "arguments": map[string]any{}, "_meta": meta(false)})
	if err != nil {
		return err.Error()
	}
	if classify(rp) != wantComplete {
		return describe(rp)
	}
	return ""
}

// minimise replays the failing exchange alone, with its rounds cut to the
// fewest that still fail.
func (c *mrtrClient) minimise(ex mrtrExchange) string {
	for n := 1; n <= len(ex.rounds); n++ {
		cut := mrtrExchange{tool: ex.tool, withName: ex.withName, rounds: ex.rounds[:n]}
		if msg := c.run(cut, n); msg != "" {
			return cut.String() + ": " + msg
		}
	}
	return ex.String() + " (does not fail when replayed alone: it depends on earlier exchanges' states)"
}
