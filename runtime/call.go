package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// One tool call, from the SDK's request to the result: decode and
// validate the arguments, identify and admit the caller, run the
// middleware, resolve handles, ask the user what only they can answer,
// do the work (upstream operation, steps, state or a hand-written
// handler), then add or consume handles. Every failure is an isError
// result in the tool's own terms; only a panic is a protocol error.

// httpRequestKey carries the HTTP request's context to the tool handler.
type httpRequestKey struct{}

// overHTTP reports whether a call came over the Streamable HTTP handler.
func overHTTP(ctx context.Context) bool { return ctx.Value(httpRequestKey{}) != nil }

// callIn is what a call brings from the transport.
type callIn struct {
	raw  json.RawMessage
	meta map[string]any
	hdr  http.Header
	ti   *auth.TokenInfo
	req  *mcp.CallToolRequest
}

// bearer is the caller's verified MCP access token, "" without one.
func (in callIn) bearer() string {
	if in.ti == nil {
		return ""
	}
	b, _ := in.ti.Extra[bearerExtraKey].(string)
	return b
}

// toolHandler is the SDK handler of one tool.
func (s *Server) toolHandler(bt *boundTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := callIn{req: req}
		if req != nil {
			if req.Params != nil {
				in.raw, in.meta = req.Params.Arguments, req.Params.Meta
			}
			if req.Extra != nil {
				in.hdr, in.ti = req.Extra.Header, req.Extra.TokenInfo
			}
		}
		return s.handle(ctx, bt, in)
	}
}

// CallTool calls the named tool from Go, as a tools/call request would:
// the same validation, access checks, limits, logging and error mapping.
// The caller is the identity ContextWithCaller put on ctx (none without
// it). args is anything that encodes to a JSON object. An unknown tool is
// an error; everything else is reported in the result.
func (s *Server) CallTool(ctx context.Context, name string, args any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("arguments of %s: %w", name, err)
	}
	if d := s.callOperation; d != nil && name == d.name(search.CallToolName) {
		// No session: a destructive operation, which asks the user
		// first, is refused as for a client that cannot ask.
		return d.callHandler(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: raw}})
	}
	bt := s.tools[name]
	if bt == nil {
		return nil, fmt.Errorf("unknown tool %q", name)
	}
	return s.handle(ctx, bt, callIn{raw: raw})
}

// handle runs one call with its metrics and its one log record. It
// returns a Go error only for a panic: a fault of this server, not of the
// call, so a JSON-RPC internal error (-32603) as the protocol rules for
// server faults; the server lives on.
func (s *Server) handle(ctx context.Context, bt *boundTool, in callIn) (res *mcp.CallToolResult, err error) {
	name := bt.spec.Name
	start := time.Now()
	if rc, ok := ctx.Value(httpRequestKey{}).(context.Context); ok {
		// Streamable HTTP: the client hanging up cancels the call.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(rc, cancel)()
	}
	if len(s.passHeaders) > 0 && in.hdr != nil {
		ctx = context.WithValue(ctx, inboundHeaderKey{}, in.hdr)
	}
	rec := &callRecord{requestID: requestIDFrom(in.hdr), trace: newTraceContext(in.meta, in.hdr)}
	s.metrics.CallStarted(name)
	var args map[string]any
	defer func() {
		if p := recover(); p != nil {
			s.logger.Error("tool handler panicked", "tool", name, "request_id", rec.requestID, "panic", fmt.Sprint(p))
			rec.kind, res, err = "internal", nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
				Message: fmt.Sprintf("internal error in tool %s (request %s); the server logged it and serves on", name, rec.requestID)}
		}
		d := time.Since(start)
		outcome := "ok"
		if rec.kind != "" {
			outcome = "error"
		}
		s.metrics.CallFinished(name, outcome, rec.kind, d)
		s.logCall(ctx, bt, args, rec, d)
	}()
	args, res, err = s.callTool(ctx, bt, in, rec)
	return res, err
}

// panicked logs a panic recovered in a goroutine that ran part of a call
// (a step) and returns the call's error in the tool's terms; the process
// serves on.
func (s *Server) panicked(bt *boundTool, rec *callRecord, p any) *callError {
	s.logger.Error("tool step panicked", "tool", bt.spec.Name, "request_id", rec.requestID, "panic", fmt.Sprint(p))
	return internalFault(bt, rec)
}

// fail records e and renders it.
func (rec *callRecord) fail(e *callError) *mcp.CallToolResult {
	rec.kind = e.kind
	if e.status != 0 {
		rec.status = e.status
	}
	return e.result()
}

// callTool runs one call and returns the decoded arguments (for the log
// record) and the result, or a JSON-RPC error for a fault of the
// protocol fields only a client sends (a bad requestState).
func (s *Server) callTool(ctx context.Context, bt *boundTool, in callIn, rec *callRecord) (map[string]any, *mcp.CallToolResult, error) {
	args, cerr := s.validArgs(bt, in.raw)
	if cerr != nil {
		return args, rec.fail(cerr), nil
	}
	// One deadline for the whole call: slot waits, retries and backoff.
	ctx, cancel := context.WithTimeout(ctx, bt.timeout)
	defer cancel()
	// Access: who calls, and may they use this tool now.
	ctx, owner, cerr := s.admit(ctx, bt, in.ti)
	if cerr != nil {
		return args, rec.fail(cerr), nil
	}
	call := &Call{Tool: bt.spec, Args: args, Caller: callerClaims(ctx), owner: owner, in: in, rec: rec}
	res, err := s.runMiddleware(ctx, bt, call)
	if err != nil {
		ce := asCallError(bt, err, rec)
		if ce.protocol {
			rec.kind = ce.kind
			return call.Args, nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: ce.msg}
		}
		return call.Args, rec.fail(ce), nil
	}
	if res.IsError && rec.kind == "" {
		rec.kind = errorKindOf(res)
	}
	return call.Args, res, nil
}

// validArgs decodes the arguments, drops nulls of optional inputs and
// decodes objects sent as JSON strings (normalizeArgs), checks them
// against the input schema, then applies defaults.
func (s *Server) validArgs(bt *boundTool, raw json.RawMessage) (map[string]any, *callError) {
	schema, err := bt.inputSchema()
	if err != nil {
		s.logger.Error("tool input schema does not compile", "tool", bt.spec.Name, "error", err)
		return nil, &callError{kind: KindInternal, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s cannot check its arguments: its %v. Do not retry; tell the user the tool has a fault.", bt.spec.Name, err)}
	}
	args, msg := decodeArguments(raw)
	if msg == "" {
		jsonschema.NormalizeArgs(schema, args)
		msg = checkArgs(bt, args)
	}
	if msg != "" {
		return args, inputFailure(msg)
	}
	jsonschema.ApplyDefaults(schema, args)
	return args, nil
}

// checkArgs returns the validation message for args, or "". The input
// schema compiled (validArgs checked first).
func checkArgs(bt *boundTool, args map[string]any) string {
	schema, _ := bt.inputSchema()
	v := &jsonschema.Validator{}
	v.Check(schema, args, "", 0)
	if v.Failed() {
		return jsonschema.Message(v)
	}
	if bt.plan != nil {
		return bt.plan.checkAction(args)
	}
	return ""
}

// run does the work of a call whose arguments and caller passed: handles,
// the user's answers, then the tool's own work.
func (s *Server) run(ctx context.Context, bt *boundTool, call *Call) (*mcp.CallToolResult, error) {
	callArgs, cerr := s.resolveHandles(ctx, bt, call.Args, call.owner)
	if cerr != nil {
		return nil, cerr
	}
	// The caller's own upstream accounts come before questions to the
	// user: connecting first spares a second confirmation.
	ctx, early := s.attachTokens(ctx, bt, call)
	if early != nil && early.err != nil {
		return nil, early.err
	} else if early != nil {
		return early.res, nil
	}
	if ir, cerr := s.interact(ctx, bt, call.in.req, call.Args, callArgs, call.owner); cerr != nil {
		return nil, cerr
	} else if ir != nil {
		return ir, nil
	}
	var res *mcp.CallToolResult
	switch {
	case bt.spec.DisconnectsAccount:
		res, cerr = s.runDisconnect(ctx, bt, call)
	case bt.spec.Handler != nil:
		res, cerr = s.runHandler(ctx, bt, call, callArgs)
	case bt.plan != nil:
		res, cerr = s.runPlan(ctx, bt, call, callArgs)
	case bt.op == nil:
		res, cerr = s.runState(ctx, bt, call.Args, callArgs, call.owner)
	default:
		res, cerr = s.runOperation(ctx, bt, callArgs, call.rec)
	}
	if tokens := callTokens(ctx); len(tokens) > 0 {
		if cerr != nil && cerr.status == http.StatusUnauthorized {
			return s.tokenRefused(ctx, bt, call, tokens)
		}
		res, cerr = withoutUserTokens(res, cerr, tokens)
	}
	if cerr != nil {
		return nil, cerr
	}
	s.consumeHandle(ctx, bt, call.Args, res)
	return s.limitSize(ctx, bt, call.owner, s.addHandle(ctx, bt, res, call.owner)), nil
}

// runHandler runs a hand-written tool.
func (s *Server) runHandler(ctx context.Context, bt *boundTool, call *Call, args map[string]any) (*mcp.CallToolResult, *callError) {
	hc := *call
	hc.Args = args
	out, err := bt.spec.Handler(ctx, &hc)
	if err != nil {
		if !isToolError(err) {
			s.logger.Error("hand-written tool failed", "tool", bt.spec.Name, "request_id", call.rec.requestID, "error", err)
		}
		return nil, asCallError(bt, err, call.rec)
	}
	// Go values (structs) become plain JSON values, which the output
	// schema and shaping work on.
	b, err := json.Marshal(out)
	if err != nil {
		return nil, asCallError(bt, err, call.rec)
	}
	v, err := jsonschema.DecodeJSON(string(b))
	if err != nil {
		return nil, asCallError(bt, err, call.rec)
	}
	return s.finishResult(bt, v)
}

// Middleware wraps the calls of a server's tools (Options.Middleware):
// before calling next it may inspect, rewrite (Call.Args) or refuse the
// call (return a *ToolError); after, it may transform or redact the
// result. It runs after argument validation and the access checks;
// rewritten arguments are validated again, and a success it changes is
// checked against the tool's output schema again.
type Middleware struct {
	// Tools limits the middleware to these tools; empty: every tool.
	Tools []string
	// Wrap returns the handler that runs instead of next.
	Wrap func(next CallFunc) CallFunc
}

// CallFunc handles one call.
type CallFunc func(ctx context.Context, call *Call) (*mcp.CallToolResult, error)

// ToolError fails a call with a message for the model. A Handler or a
// Middleware returns it; Kind is one of the error kinds documented in
// docs/runtime.md ("invalid_input", "forbidden", "not_found", ...).
type ToolError struct {
	Kind      string
	Message   string
	Retryable bool
}

func (e *ToolError) Error() string { return e.Kind + ": " + e.Message }

// runMiddleware runs the tool's middleware chain around run.
func (s *Server) runMiddleware(ctx context.Context, bt *boundTool, call *Call) (*mcp.CallToolResult, error) {
	h := CallFunc(func(ctx context.Context, c *Call) (*mcp.CallToolResult, error) {
		if c.rewritten() {
			if msg := checkArgs(bt, c.Args); msg != "" {
				return nil, inputFailure(msg)
			}
		}
		return s.run(ctx, bt, c)
	})
	if len(bt.middleware) == 0 {
		return h(ctx, call)
	}
	for i := len(bt.middleware) - 1; i >= 0; i-- {
		h = bt.middleware[i](h)
	}
	call.snapshot()
	res, err := h(ctx, call)
	if err != nil || res == nil || res.IsError || res.InputRequests != nil {
		return res, err
	}
	// The middleware may have changed a success: it must still keep the
	// tool's promise.
	if cerr := s.checkOutput(bt, res); cerr != nil {
		return nil, cerr
	}
	return res, nil
}

// asCallError maps an error of a handler or middleware onto a callError:
// a *callError or *ToolError keeps its words, anything else is an
// internal error whose text the model does not see.
func asCallError(bt *boundTool, err error, rec *callRecord) *callError {
	var ce *callError
	if errors.As(err, &ce) {
		return ce
	}
	var te *ToolError
	if errors.As(err, &te) {
		kind := te.Kind
		if kind == "" {
			kind = KindInvalidInput
		}
		return &callError{kind: kind, retryable: te.Retryable, retryAfter: retryAfterUnknown, msg: te.Message}
	}
	return internalFault(bt, rec)
}

// internalFault is the error of a call that failed inside this server;
// the model reads no Go error text.
func internalFault(bt *boundTool, rec *callRecord) *callError {
	return &callError{kind: KindInternal, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("%s failed inside this server (request %s). Do not retry unchanged; tell the user the tool has a fault.", bt.spec.Name, rec.requestID)}
}

// isToolError reports whether err carries words for the model.
func isToolError(err error) bool {
	var ce *callError
	var te *ToolError
	return errors.As(err, &ce) || errors.As(err, &te)
}

// errorKindOf reads the kind of an error result a middleware made.
func errorKindOf(res *mcp.CallToolResult) string {
	if info, ok := res.Meta[ErrorMetaKey].(ErrorInfo); ok {
		return info.Kind
	}
	return KindInternal
}

// Call is one tool call as a Handler or a Middleware sees it.
type Call struct {
	// Tool is the called tool's definition.
	Tool *Tool
	// Args are the validated arguments, defaults applied; numbers are
	// json.Number. A Middleware may change them before calling next.
	Args map[string]any
	// Caller holds the verified identity claims of the caller ("sub",
	// "scope", ...); nil for anonymous callers.
	Caller map[string]string

	owner  string
	in     callIn
	rec    *callRecord
	before string // the arguments as the middleware got them
}

// snapshot remembers the arguments before the middleware runs.
func (c *Call) snapshot() {
	b, _ := json.Marshal(c.Args)
	c.before = string(b)
}

// rewritten reports whether a middleware changed the arguments.
func (c *Call) rewritten() bool {
	if c.before == "" {
		return false
	}
	b, _ := json.Marshal(c.Args)
	return string(b) != c.before
}

// Subject is the caller's "sub" claim, "" for anonymous callers.
func (c *Call) Subject() string { return c.Caller["sub"] }

// matchesTool reports whether a middleware applies to tool.
func (m Middleware) matchesTool(tool string) bool {
	if len(m.Tools) == 0 {
		return true
	}
	for _, t := range m.Tools {
		if strings.EqualFold(t, tool) {
			return true
		}
	}
	return false
}
