package runtime

import (
	"context"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
)

// fastHost is the server as the fast-path engine
// (runtime/internal/fastpath) sees it: the engine knows no Server, only
// these methods.
type fastHost struct{ s *Server }

// Tool gives the engine a tool's handler when its calls may take a fast
// path (fastTool); over HTTP, tools whose input schema has x-mcp-header
// annotations stay with the SDK, which checks those headers against the
// arguments.
func (h fastHost) Tool(name string, overHTTP bool) fastpath.Handler {
	bt := h.s.tools[name]
	if !fastTool(bt) || overHTTP && strings.Contains(bt.spec.InputSchema, "x-mcp-header") {
		return nil
	}
	return bt.fast
}

// Paused: while draining, and once MCPServer was called (SDK middleware
// may exist that the fast paths would skip), every call goes to the SDK.
func (h fastHost) Paused() bool { return h.s.exposed.Load() || h.s.draining.Load() }

// Enter counts a fast call in flight (end of input and Drain wait for
// it) and among the calls the fast paths served.
func (h fastHost) Enter() {
	h.s.inflight.Add(1)
	h.s.fastCalls.Add(1)
}

// Leave ends what Enter counted in flight.
func (h fastHost) Leave() { h.s.inflight.Add(-1) }

// Impl names the server in results, as the SDK does.
func (h fastHost) Impl() *mcp.Implementation { return h.s.impl }

// Logger is the server's logger.
func (h fastHost) Logger() *slog.Logger { return h.s.logger }

// fastTool reports whether calls of bt may take a fast path: a bound
// tool with no asks, no confirmation, no per-caller upstream account and
// no middleware (those may need the SDK session or return input
// requests), whose operations answer JSON or text (media content is the
// SDK's to encode).
func fastTool(bt *boundTool) bool {
	return bt != nil && len(bt.spec.Asks) == 0 && bt.confirm == nil && len(bt.userNeeds) == 0 && len(bt.middleware) == 0 && !bt.spec.readsMedia()
}

// fastHandler is bt's handler for the engine: the call as the SDK's
// handler would see it (toolHandler), then handle.
func (s *Server) fastHandler(bt *boundTool) fastpath.Handler {
	return func(ctx context.Context, c *fastpath.Call) (*mcp.CallToolResult, error) {
		params := &mcp.CallToolParamsRaw{Meta: mcp.Meta(c.Meta), Name: c.Name, Arguments: c.Args}
		in := callIn{raw: c.Args, meta: c.Meta, req: &mcp.CallToolRequest{Params: params}}
		if r := c.HTTP; r != nil {
			// As the SDK: the call outlives the request's cancellation
			// but keeps its values; handle cancels it when the client
			// hangs up.
			ctx = context.WithValue(context.WithoutCancel(r.Context()), httpRequestKey{}, r.Context())
			in.hdr, in.ti = r.Header, auth.TokenInfoFromContext(r.Context())
			in.req.Extra = &mcp.RequestExtra{TokenInfo: in.ti, Header: r.Header}
		}
		return s.handle(ctx, bt, in)
	}
}
