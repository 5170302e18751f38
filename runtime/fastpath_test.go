package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
)

// scriptStep is one line sent to a stdio server; wait: read one response
// line before the next step; busy: send nothing, wait until a call is in
// flight (a cancellation must not race the call's start: the SDK answers
// a call cancelled before its handler ran with a protocol error).
type scriptStep struct {
	line string
	wait bool
	busy bool
}

// runStdioScript serves srv over in-process pipes with RunStdio, sends
// the steps and returns the response lines (random ids normalised).
func runStdioScript(t *testing.T, srv *Server, steps []scriptStep) []string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- srv.RunStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var got []string
	read := func() {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("server closed stdout; responses so far:\n%s", strings.Join(got, "\n"))
			}
			got = append(got, normalizeRandom(l))
		case <-time.After(10 * time.Second):
			t.Fatalf("no response; responses so far:\n%s", strings.Join(got, "\n"))
		}
	}
	for _, st := range steps {
		if st.busy {
			for deadline := time.Now().Add(10 * time.Second); srv.inflight.Load() == 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("no call in flight")
				}
			}
			continue
		}
		if _, err := io.WriteString(inW, st.line+"\n"); err != nil {
			t.Fatal(err)
		}
		if st.wait {
			read()
		}
	}
	inW.Close()
	for l := range lines { // anything after end of input
		got = append(got, normalizeRandom(l))
	}
	if err := <-done; err != nil {
		t.Fatalf("RunStdio: %v", err)
	}
	return got
}

var randomHexRe = regexp.MustCompile(`[0-9a-f]{16,32}`)

// testTraceID is the trace id the script sends in _meta; it must reach
// the upstream, so it is kept.
const testTraceID = "0af7651916cd43dd8448eb211c80319c"

// normalizeRandom replaces trace and request ids, which differ per call.
func normalizeRandom(s string) string {
	return randomHexRe.ReplaceAllStringFunc(s, func(h string) string {
		if h == testTraceID {
			return h
		}
		return "R"
	})
}

const (
	legacyInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
)

// fastScript exercises what the fast path serves and what it must leave
// to the SDK, in both protocol eras.
func fastScript(modern bool) []scriptStep {
	call := func(id, params string) scriptStep {
		return scriptStep{line: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`, wait: true}
	}
	meta := ""
	if modern {
		meta = modernMeta + ","
	}
	var s []scriptStep
	if modern {
		s = append(s, scriptStep{line: `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + modernMeta + `}}`, wait: true})
	} else {
		s = append(s, scriptStep{line: legacyInit, wait: true}, scriptStep{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`})
	}
	return append(s,
		call("1", `{`+meta+`"name":"get_pet","arguments":{"petId":"7"}}`), // teaches the fast path this _meta
		call("2", `{`+meta+`"name":"get_pet","arguments":{"petId":"7"}}`),
		call(`"s-3"`, `{`+meta+`"name":"find_pets","arguments":{"status":["sold"],"tags":["a<b&c"],"filter":{"color":"red"},"trace":"t"}}`),
		call("4", `{`+meta+`"name":"get_pet","arguments":{"petId":""}}`),   // invalid: isError
		call("5", `{`+meta+`"name":"get_pet","arguments":[1]}`),            // not an object
		call("6", `{`+meta+`"name":"no_such_tool","arguments":{}}`),        // JSON-RPC error, from the SDK
		call("7", `{`+meta+`"name":"fetch","arguments":{"which":"list"}}`), // array result, wrapped
		call("8", `{`+meta+`"name":"fetch","arguments":{"which":"empty"}}`),
		call("9", `{`+meta+`"name":"fail","arguments":{"code":"404"}}`),
		call("10", `{`+meta+`"name":"boom","arguments":{}}`), // a panic: a JSON-RPC error
		call("11", `{`+meta+`"name":"get_pet"}`),             // no arguments
		call("12", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":5},"name":"get_pet","arguments":{"petId":"7"}}`),
		call("13", `{"_meta":{"progressToken":"p","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},"name":"get_pet","arguments":{"petId":"7"}}`),
		call("14", `{`+meta+`"name":"get_pet","arguments":{"petId":"7"},"requestState":"x"}`),
		call("15", ` {`+meta+`"name" : "get_pet", "arguments" : {"petId":"8"}} `),
		call("16.0", `{`+meta+`"name":"get_pet","arguments":{"petId":"7"}}`),
		// a slow call, then its cancellation: the cancelled result
		scriptStep{line: `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{` + meta + `"name":"fetch","arguments":{"which":"slow"}}}`},
		scriptStep{busy: true},
		scriptStep{line: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":17}}`, wait: true},
		call("18", `{`+meta+`"name":"get_pet","arguments":{"petId":"9"}}`),
		call("19", `{"_meta":{`+strings.TrimSuffix(strings.TrimPrefix(meta, `"_meta":{`), "},")+sep(meta)+`"traceparent":"00-`+testTraceID+`-b7ad6b7169203331-01"},"name":"get_pet","arguments":{"petId":"9"}}`),
	)
}

// sep is the comma between the protocol members of meta and more.
func sep(meta string) string {
	if meta == "" {
		return ""
	}
	return ","
}

// fastTestServer is testSpec's server with a tool that panics.
func fastTestServer(t *testing.T, up string, fast bool) *Server {
	t.Helper()
	def := testSpec()
	def.Tools = append(def.Tools, &Tool{Name: "boom", Description: "Panic.", InputSchema: `{"type":"object","additionalProperties":false}`,
		Handler: func(context.Context, *Call) (any, error) { panic("boom") }},
		&Tool{Name: "regional", Description: "A tool with a header parameter.",
			InputSchema: `{"type":"object","additionalProperties":false,"properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`,
			Op:          &Operation{Method: "GET", Path: "/regional", Params: []Param{{Name: "region", Arg: "region", In: InQuery, Style: "form", Explode: true}}}})
	srv, err := NewServer(def, Options{Getenv: testEnv(up), Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	srv.fastPathOff = !fast
	return srv
}

// TestFastPathMatchesSDK replays the same script through the fast path
// and through the SDK alone: every response must be the same, byte for
// byte (random ids aside), and the fast path must have served the calls
// it may serve.
func TestFastPathMatchesSDK(t *testing.T) {
	up := testUpstream(t).URL
	for _, era := range []struct {
		name   string
		modern bool
		served int64
	}{{"2025-11-25", false, 13}, {"2026-07-28", true, 13}} {
		t.Run(era.name, func(t *testing.T) {
			sdk := runStdioScript(t, fastTestServer(t, up, false), fastScript(era.modern))
			fast := fastTestServer(t, up, true)
			got := runStdioScript(t, fast, fastScript(era.modern))
			if len(got) != len(sdk) {
				t.Fatalf("%d responses on the fast path, %d from the SDK:\nfast:\n%s\nsdk:\n%s", len(got), len(sdk), strings.Join(got, "\n"), strings.Join(sdk, "\n"))
			}
			panicked := 0
			for i := range sdk {
				if got[i] != sdk[i] {
					t.Errorf("response %d differs:\nfast: %s\nsdk:  %s", i, got[i], sdk[i])
				}
				if strings.Contains(sdk[i], `"id":10,`) {
					// A tool panic is a server fault: JSON-RPC internal error.
					if !strings.Contains(sdk[i], `"code":-32603`) {
						t.Errorf("the panicking tool's answer is no -32603 error: %s", sdk[i])
					}
					panicked++
				}
			}
			if panicked != 1 {
				t.Errorf("%d answers to the panicking call, want 1", panicked)
			}
			if n := fast.fastCalls.Load(); n != fastServed(era.served) {
				t.Errorf("fast path served %d calls, want %d", n, fastServed(era.served))
			}
		})
	}
}

// TestFastPathOffWhenExposed: after MCPServer, SDK middleware may exist,
// so every call goes through the SDK.
func TestFastPathOffWhenExposed(t *testing.T) {
	srv := fastTestServer(t, testUpstream(t).URL, true)
	srv.MCPServer()
	runStdioScript(t, srv, fastScript(false))
	if n := srv.fastCalls.Load(); n != 0 {
		t.Errorf("fast path served %d calls after MCPServer", n)
	}
}

// TestFastPathAnswersBeforeEOF: calls written just before end of input
// are answered, as `printf ... | server` needs, also when they take
// longer than the grace end of input gives.
func TestFastPathAnswersBeforeEOF(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(150 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":1}`)
	}))
	defer up.Close()
	srv := fastTestServer(t, up.URL, true)
	steps := []scriptStep{{line: legacyInit, wait: true}, {line: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"1"}}}`, wait: true}}
	for i := 2; i < 12; i++ {
		steps = append(steps, scriptStep{line: `{"jsonrpc":"2.0","id":` + strconv.Itoa(i*10) + `,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"1"}}}`})
	}
	got := runStdioScript(t, srv, steps)
	if len(got) != 12 {
		t.Fatalf("%d responses, want 12:\n%s", len(got), strings.Join(got, "\n"))
	}
	if srv.fastCalls.Load() < fastServed(1) {
		t.Error("the fast path served nothing")
	}
}

// fastServed is how many calls a test expects the fast path to serve
// when it would serve n: none when it is compiled out.
func fastServed(n int64) int64 {
	if !fastpath.Compiled {
		return 0
	}
	return n
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestFastPathPipelined sends many calls without waiting, as concurrent
// clients do: each response must answer its own request's arguments
// (the reader's buffer is reused while earlier calls still run).
func TestFastPathPipelined(t *testing.T) {
	srv := fastTestServer(t, testUpstream(t).URL, true)
	before := goruntime.NumGoroutine()
	steps := []scriptStep{{line: legacyInit, wait: true},
		{line: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"p1"}}}`, wait: true}}
	const n = 300
	for i := 2; i <= n; i++ {
		steps = append(steps, scriptStep{line: `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"p` + strconv.Itoa(i) + `"}}}`})
	}
	got := runStdioScript(t, srv, steps)
	if len(got) != n+1 {
		t.Fatalf("%d responses, want %d", len(got), n+1)
	}
	for _, l := range got[1:] {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Structured struct {
					Path string `json:"path"`
				} `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Result.Structured.Path != "/pets/p"+strconv.Itoa(r.ID) {
			t.Fatalf("response %q does not answer its request (err %v)", clipText(l), err)
		}
	}
	if srv.fastCalls.Load() < fastServed(int64(n-1)) {
		t.Errorf("fast path served %d of %d calls", srv.fastCalls.Load(), n-1)
	}
	// The workers that ran the calls end with the session.
	srv.Close()
	checkNoLeak(t, before)
}

// TestServeIOInProcess: an in-process go-sdk client over ServeIO gets
// the fast path, without the stdio caller identity.
func TestServeIOInProcess(t *testing.T) {
	srv := fastTestServer(t, testUpstream(t).URL, true)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.ServeIO(ctx, inR, outW)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for range 3 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_pet", Arguments: map[string]any{"petId": "1"}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %s", err, resultText(res))
		}
	}
	if srv.fastCalls.Load() < fastServed(1) {
		t.Error("no call took the fast path")
	}
	if srv.stdio.Load() {
		t.Error("ServeIO set the stdio caller identity")
	}
}

// TestInMemoryTransport: a go-sdk client on InMemoryTransport gets the
// fast path, and closing it ends the session and its goroutines.
func TestInMemoryTransport(t *testing.T) {
	srv := fastTestServer(t, testUpstream(t).URL, true)
	before := goruntime.NumGoroutine()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, srv.InMemoryTransport(ctx), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_pet", Arguments: map[string]any{"petId": strconv.Itoa(i)}})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %s", err, resultText(res))
		}
	}
	if n := srv.fastCalls.Load(); n < fastServed(19) {
		t.Errorf("fast path served %d of 20 calls", n)
	}
	cs.Close()
	srv.Close()
	checkNoLeak(t, before)
}

// TestEndOfInputWaitsForQueuedRequests: requests the SDK has read but not
// yet handed to a handler are answered before the session closes at end
// of input. The SDK handles notifications one at a time before the
// requests behind them; a slow one (here held by a middleware outside
// the server's own count of calls in flight) keeps the tool calls
// queued while stdin ends. Whether the fast path serves the calls or
// not, every one is answered.
func TestEndOfInputWaitsForQueuedRequests(t *testing.T) {
	for _, fast := range []bool{false, true} {
		t.Run(fmt.Sprintf("fast=%v", fast), func(t *testing.T) {
			srv := fastTestServer(t, testUpstream(t).URL, fast)
			srv.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "notifications/roots/list_changed" {
						time.Sleep(300 * time.Millisecond)
					}
					return next(ctx, method, req)
				}
			})
			steps := []scriptStep{{line: legacyInit, wait: true},
				{line: `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
				{line: `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`}}
			const n = 5
			for i := 1; i <= n; i++ {
				steps = append(steps, scriptStep{line: `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"p` + strconv.Itoa(i) + `"}}}`})
			}
			steps = append(steps, scriptStep{line: `{"jsonrpc":"2.0","id":"last","method":"ping"}`})
			got := runStdioScript(t, srv, steps)
			if len(got) != n+2 {
				t.Fatalf("%d responses, want %d:\n%s", len(got), n+2, strings.Join(got, "\n"))
			}
			for _, l := range got[1:] {
				if strings.Contains(l, `"error"`) || strings.Contains(l, `"isError":true`) {
					t.Errorf("an answer is an error: %s", clipText(l))
				}
			}
		})
	}
}
