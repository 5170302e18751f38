// Package fastpath is the engine that serves most tools/call requests
// without go-sdk's own decoding and encoding, over stdio and stateless
// Streamable HTTP, writing the answers the SDK would write, byte for
// byte, and handing every other message to the SDK unchanged. It also
// screens the stdio lines the SDK must not see (screen.go) and holds the
// gate that keeps the fast paths off for a go-sdk its differential tests
// do not cover (gate.go).
//
// Package runtime is its only user: it reaches the server through Host,
// never through package runtime, which this package must not import
// (runtime's TestEngineDoesNotImportUserLayer). What users touch, the
// Options field, the environment variable and the build tag that turn
// the fast paths off, stays in package runtime.
package fastpath

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Host is what the engine needs of the server whose calls it serves.
type Host interface {
	// Tool returns the handler of the named tool when its calls may take
	// a fast path (overHTTP: a Streamable HTTP POST), nil when the SDK
	// must serve them.
	Tool(name string, overHTTP bool) Handler
	// Paused reports that every call must go to the SDK now: the server
	// is draining, or its SDK server was handed out and may carry
	// middleware of its own.
	Paused() bool
	// Enter counts a fast call in flight, before it starts (end of input
	// waits for it); Leave, once it has answered.
	Enter()
	Leave()
	// Impl is the server's name and version, which results of revision
	// 2026-07-28 carry in _meta as the SDK adds it.
	Impl() *mcp.Implementation
	// Logger takes the engine's faults (a result that cannot be encoded).
	Logger() *slog.Logger
}

// Handler runs one fast call and returns its result, or the JSON-RPC
// error the SDK would return for it.
type Handler func(ctx context.Context, c *Call) (*mcp.CallToolResult, error)

// Call is one tools/call as the engine decoded it.
type Call struct {
	Name string
	Args json.RawMessage // the arguments as sent, nil when absent
	Meta map[string]any  // the request _meta as the SDK decodes it, nil when it has only protocol fields
	// HTTP is the POST that carried the call, nil over stdio. Its
	// context ends when the client hangs up; the call's own context
	// (Handler's ctx) is that context, so the handler decides how a
	// call outlives it, as the SDK's does.
	HTTP *http.Request
}
