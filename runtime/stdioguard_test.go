package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestStdioBadLines: a seeded mix of valid calls (fast path and SDK) and
// lines that are no message; with and without the fast path, every valid
// request is answered once, every bad line gets one error without id, in
// order (-32700 when not JSON, else -32600), and the session ends cleanly
// at end of input. A failure prints the seed (the e2e TestHostileStdio
// also shrinks its input).
func TestStdioBadLines(t *testing.T) {
	up := testUpstream(t).URL
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	steps := []scriptStep{{line: "garbage not json", wait: true}, {line: legacyInit, wait: true}, {line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}}
	want := []int{-32700}
	ids := 0
	for i := 0; i < 150; i++ {
		switch r.IntN(3) {
		case 0:
			line, code := randomBadLine(r)
			steps = append(steps, scriptStep{line: line, wait: true})
			want = append(want, code)
		case 1:
			ids++
			steps = append(steps, scriptStep{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"7"}}}`, 1000+ids), wait: true})
		default:
			ids++
			steps = append(steps, scriptStep{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 1000+ids), wait: true})
		}
	}
	// Each line waits for its one answer (the script's reader buffers
	// little).
	for _, fast := range []bool{true, false} {
		got := runStdioScript(t, fastTestServer(t, up, fast), steps)
		codes, answered := tallyAnswers(t, seed, got)
		if fmt.Sprint(codes) != fmt.Sprint(want) {
			t.Errorf("seed %d fast %v: errors without id %v, want %v", seed, fast, codes, want)
		}
		for i := 1; i <= ids; i++ {
			if n := answered[fmt.Sprint(1000+i)]; n != 1 {
				t.Errorf("seed %d fast %v: %d answers to request %d, want 1", seed, fast, n, 1000+i)
			}
		}
	}
}

// randomBadLine is a line that is no message, and the code it gets.
func randomBadLine(r *rand.Rand) (string, int) {
	switch r.IntN(5) {
	case 0:
		b := make([]byte, 1+r.IntN(40))
		for i := range b {
			b[i] = byte(0x21 + r.IntN(0xde)) // no newline, no space
		}
		if s := string(b); !json.Valid(b) {
			return s, -32700
		}
		return "{" + string(b), -32700
	case 1:
		return strings.Repeat("[", 1+r.IntN(3000)), -32700
	case 2:
		return []string{"42", "{}", `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":{},"method":"ping"}`}[r.IntN(4)], -32600
	case 3:
		return `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600 // no batches after 2025-11-25 initialize
	}
	return "[]", -32600
}

// TestStdioPipelinedEndOfInput: a seeded mix of calls, pings, slow
// notifications and bad lines, sent without waiting and followed at once
// by end of input. With and without the fast path, every request is
// answered exactly once before the session closes, every bad line gets
// its one error, and the session ends soon after its last answer: end of
// input loses nothing the client sent and waits for nothing more.
func TestStdioPipelinedEndOfInput(t *testing.T) {
	up := testUpstream(t).URL
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 11))
	for round := 0; round < 4; round++ {
		steps := []scriptStep{{line: legacyInit, wait: true}, {line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`}}
		var want []int
		ids := 0
		for i, n := 0, 5+r.IntN(60); i < n; i++ {
			switch r.IntN(5) {
			case 0:
				line, code := randomBadLine(r)
				steps = append(steps, scriptStep{line: line})
				want = append(want, code)
			case 1:
				steps = append(steps, scriptStep{line: `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`})
			case 2:
				ids++
				steps = append(steps, scriptStep{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, ids)})
			default:
				ids++
				steps = append(steps, scriptStep{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"%d"}}}`, ids, ids)})
			}
		}
		slow := time.Duration(r.IntN(40)) * time.Millisecond
		for _, fast := range []bool{true, false} {
			srv := fastTestServer(t, up, fast)
			srv.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "notifications/roots/list_changed" {
						time.Sleep(slow) // holds the SDK's queue, outside the count of calls in flight
					}
					return next(ctx, method, req)
				}
			})
			start := time.Now()
			got := runStdioScript(t, srv, steps)
			// The wait at end of input ends with the last answer, not at
			// its bound (the tool timeout and more).
			if took, bound := time.Since(start), 5*time.Second+time.Duration(len(steps))*slow; took > bound {
				t.Errorf("seed %d round %d fast %v: the session took %v to end, more than %v", seed, round, fast, took, bound)
			}
			codes, answered := tallyAnswers(t, seed, got[1:])
			if fmt.Sprint(codes) != fmt.Sprint(want) {
				t.Errorf("seed %d round %d fast %v: errors without id %v, want %v", seed, round, fast, codes, want)
			}
			for i := 1; i <= ids; i++ {
				if n := answered[fmt.Sprint(i)]; n != 1 {
					t.Errorf("seed %d round %d fast %v: %d answers to request %d, want 1 (script of %d lines, notifications held %v)", seed, round, fast, n, i, len(steps), slow)
				}
			}
		}
	}
}

// tallyAnswers reads a session's answers: the error codes of those
// without id, in order, and how many answers each id got.
func tallyAnswers(t *testing.T, seed uint64, lines []string) (codes []int, answered map[string]int) {
	t.Helper()
	answered = map[string]int{}
	for _, l := range lines {
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct{ Code int }
		}
		if json.Unmarshal([]byte(l), &m) != nil {
			t.Fatalf("seed %d: an answer is not JSON: %s", seed, l)
		}
		if string(m.ID) == "null" {
			codes = append(codes, m.Error.Code)
		} else {
			answered[string(m.ID)]++
		}
	}
	return codes, answered
}
