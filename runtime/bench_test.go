package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkCallTool measures the runtime's own work per call (validation,
// request building, upstream round trip over loopback, result mapping),
// without the SDK's JSON-RPC layer.
func BenchmarkCallTool(b *testing.B) {
	up := testUpstream(b)
	srv, err := NewServer(testSpec(), Options{Getenv: testEnv(up.URL)})
	if err != nil {
		b.Fatal(err)
	}
	var bt *boundTool
	for _, ts := range testSpec().Tools {
		if ts.Name == "find_pets" {
			bt, _ = srv.bindTool(ts, true)
		}
	}
	args := json.RawMessage(`{"status":["available","sold"],"tags":["a","b"],"filter":{"color":"red"},"trace":"t"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, res, err := srv.callTool(context.Background(), bt, callIn{raw: args}, &callRecord{}); err != nil || res.IsError {
			b.Fatal("isError")
		}
	}
}

// benchServer is the server of the whole-call benchmarks: one tool, one
// path parameter, a loopback upstream answering a fixed JSON object (like
// the petstore backend's inventory).
func benchServer(b testing.TB) *Server {
	return benchServerLogging(b, slog.New(slog.DiscardHandler))
}

// benchServerLogging is benchServer logging to logger.
func benchServerLogging(b testing.TB, logger *slog.Logger) *Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"approved":57,"placed":100,"delivered":50,"sold":3,"available":412}`)
	}))
	b.Cleanup(up.Close)
	def := &ServerDef{Name: "bench", EnvPrefix: "BENCH", Tools: []*Tool{{
		Name: "get_pet", Description: "Get a pet.", ReadOnly: true,
		InputSchema: `{"type":"object","additionalProperties":false,"properties":{"petId":{"type":"integer","minimum":1}},"required":["petId"]}`,
		Op: &Operation{Method: "GET", Path: "/pet/{petId}", Params: []Param{
			{Name: "petId", Arg: "petId", In: InPath, Style: "simple", Required: true}}},
	}}}
	srv, err := NewServer(def, Options{BaseURL: up.URL, Logger: logger})
	if err != nil {
		b.Fatal(err)
	}
	return srv
}

// benchCalls makes b.N calls of get_pet through cs.
func benchCalls(b *testing.B, cs *mcp.ClientSession) {
	params := &mcp.CallToolParams{Name: "get_pet", Arguments: map[string]any{"petId": 1}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

// BenchmarkInMemoryCall measures one whole tools/call as a client sees it:
// go-sdk client and server over the SDK's in-memory transports in this
// process (MCPServer().Connect: the SDK serves every request), the SDK's
// JSON-RPC layer on both sides included. Allocations count client, server
// and upstream alike.
func BenchmarkInMemoryCall(b *testing.B) {
	srv := benchServer(b)
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	benchCalls(b, cs)
}

// BenchmarkStdioCall is BenchmarkInMemoryCall with the server behind
// RunStdio over in-process pipes, as a stdio server runs (fast path on).
func BenchmarkStdioCall(b *testing.B) {
	srv := benchServer(b)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go srv.RunStdio(context.Background(), inR, outW)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	benchCalls(b, cs)
	if srv.fastCalls.Load() < fastServed(1) {
		b.Fatal("the fast path served no call")
	}
}

// BenchmarkStdioServer measures the server's own share of a call: a
// minimal client writes tools/call lines (2026-07-28 _meta, as the go-sdk
// client sends them) to RunStdio over in-process pipes and reads each
// response line; allocations are the server's and the upstream's, plus a
// few of the client's.
func BenchmarkStdioServer(b *testing.B) {
	for _, fast := range []bool{true, false} {
		name := "fast"
		if !fast {
			name = "sdk"
		}
		b.Run(name, func(b *testing.B) {
			srv := benchServer(b)
			srv.fastPathOff = !fast
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			go srv.RunStdio(context.Background(), inR, outW)
			b.Cleanup(func() { inW.Close() })
			out := bufio.NewReader(outR)
			send := func(line string) {
				if _, err := io.WriteString(inW, line+"\n"); err != nil {
					b.Fatal(err)
				}
				if _, err := out.ReadSlice('\n'); err != nil {
					b.Fatal(err)
				}
			}
			send(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + modernMeta + `}}`)
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + modernMeta + `,"name":"get_pet","arguments":{"petId":1}}}`
			send(call)
			b.ReportAllocs()
			for b.Loop() {
				send(call)
			}
		})
	}
}
