package rt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a generated MCP server: its tools call the upstream HTTP API
// described by the OpenAPI document. Create it with New; serve it with
// RunStdio, HTTPHandler, or MCPServer for custom transports. It is safe for
// concurrent use.
type Server struct {
	spec      *serverSpec
	mcp       *mcp.Server
	baseURL   string // absolute, without trailing slash
	baseHost  string
	client    *http.Client
	logger    *slog.Logger
	timeout   time.Duration
	userAgent string
	creds     *credentialSet

	httpOnce    sync.Once
	httpHandler http.Handler

	// inflight counts requests being handled, so stdio can finish them
	// before acting on end of input.
	inflight atomic.Int64
}

// boundTool is a tool compiled once at newServer.
type boundTool struct {
	spec   *toolSpec
	schema *schemaNode
	op     *compiledOp
}

// newServer compiles spec and registers its tools. Errors name what is
// misconfigured (base URL, schema, path template, security scheme).
func newServer(spec *serverSpec, options Options) (*Server, error) {
	opts := options.withDefaults()
	base, err := resolveBaseURL(spec, &opts)
	if err != nil {
		return nil, err
	}
	creds, err := newCredentialSet(spec.Security, opts.Getenv)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(base)
	s := &Server{
		spec: spec, baseURL: base, baseHost: u.Host,
		client:    newUpstreamClient(&opts),
		logger:    opts.Logger,
		timeout:   opts.Timeout,
		userAgent: userAgent(spec),
		creds:     creds,
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: spec.Name, Title: spec.Title, Version: versionOr(spec.Version)},
		&mcp.ServerOptions{
			Instructions: spec.Instructions,
			Logger:       quietSDKLogger(opts.Logger),
			// Static tool list, no logging; empty prompts and resources
			// capabilities keep strict clients' discovery calls happy.
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{},
				Prompts:   &mcp.PromptCapabilities{},
				Resources: &mcp.ResourceCapabilities{},
			},
		})
	s.mcp.AddReceivingMiddleware(s.countInflight)
	for _, ts := range spec.Tools {
		bt, err := s.bindTool(ts)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", ts.Name, err)
		}
		s.mcp.AddTool(mcpTool(ts), s.toolHandler(bt))
	}
	return s, nil
}

// quietSDKLogger passes the SDK's own records only at warn and above,
// unless debug logging is on: stateless HTTP opens a session per request
// and the SDK logs each one at info.
func quietSDKLogger(l *slog.Logger) *slog.Logger {
	return slog.New(&sdkLogHandler{h: l.Handler()})
}

type sdkLogHandler struct{ h slog.Handler }

func (q *sdkLogHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return q.h.Enabled(ctx, level) && (level >= slog.LevelWarn || q.h.Enabled(ctx, slog.LevelDebug))
}

func (q *sdkLogHandler) Handle(ctx context.Context, r slog.Record) error { return q.h.Handle(ctx, r) }

func (q *sdkLogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &sdkLogHandler{h: q.h.WithAttrs(as)}
}

func (q *sdkLogHandler) WithGroup(name string) slog.Handler {
	return &sdkLogHandler{h: q.h.WithGroup(name)}
}

func versionOr(v string) string {
	if v == "" {
		return "0.0.0"
	}
	return v
}

func userAgent(spec *serverSpec) string {
	return spec.Name + "-mcp/" + versionOr(spec.Version) + " (oa2mcp)"
}

func (s *Server) bindTool(ts *toolSpec) (*boundTool, error) {
	schema, err := compileSchema(ts.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	op, err := compileOp(ts.Op, s.creds)
	if err != nil {
		return nil, err
	}
	return &boundTool{spec: ts, schema: schema, op: op}, nil
}

// mcpTool builds the advertised tool. Annotations are always written out:
// the protocol defaults (destructive, open world) are the unsafe ones.
func mcpTool(ts *toolSpec) *mcp.Tool {
	schema := ts.InputSchema
	if strings.TrimSpace(schema) == "" {
		schema = `{"type":"object","additionalProperties":false}`
	}
	destructive, openWorld := ts.Destructive, ts.OpenWorld
	return &mcp.Tool{
		Name:        ts.Name,
		Title:       ts.Title,
		Description: ts.Description,
		InputSchema: json.RawMessage(schema),
		Annotations: &mcp.ToolAnnotations{
			Title:           ts.Title,
			ReadOnlyHint:    ts.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  ts.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
}

// MCPServer returns the underlying go-sdk server, e.g. to serve it over a
// custom transport or add middleware.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// HTTPHandler returns a Streamable HTTP handler for the server. It is
// stateless, which lets clients negotiate protocol revision 2026-07-28
// while older clients that send initialize keep working, and it answers
// with plain JSON rather than event streams.
func (s *Server) HTTPHandler() http.Handler {
	s.httpOnce.Do(func() {
		s.httpHandler = mcp.NewStreamableHTTPHandler(
			func(*http.Request) *mcp.Server { return s.mcp },
			&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: quietSDKLogger(s.logger)})
	})
	return s.httpHandler
}

// RunStdio serves one client over newline-delimited JSON on stdin and
// stdout until the client disconnects or ctx is cancelled. Cancellation is
// a normal shutdown and returns nil.
func (s *Server) RunStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	t := &mcp.IOTransport{Reader: &drainingReader{r: stdin, s: s, limit: s.timeout + time.Second}, Writer: nopWriteCloser{stdout}}
	ss, err := s.mcp.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		ss.Close()
		<-done
		return nil
	}
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)) {
		return nil
	}
	return err
}

// countInflight is a receiving middleware tracking requests in progress.
func (s *Server) countInflight(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		return next(ctx, method, req)
	}
}

// drainingReader delays end of input until the requests already read are
// answered: the SDK closes the connection at EOF and would drop their
// responses, which breaks scripted use such as `printf ... | server`.
type drainingReader struct {
	r     io.Reader
	s     *Server
	limit time.Duration
}

func (d *drainingReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err == io.EOF {
		// A short grace lets the last requests read reach their handlers.
		time.Sleep(20 * time.Millisecond)
		deadline := time.Now().Add(d.limit)
		for d.s.inflight.Load() > 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	return n, err
}

func (d *drainingReader) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// toolHandler wraps one tool: validation, the upstream call, the result
// mapping and one log record. It never returns a Go error, which would
// become a JSON-RPC error the model cannot act on.
func (s *Server) toolHandler(bt *boundTool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		start := time.Now()
		var raw json.RawMessage
		if req != nil && req.Params != nil {
			raw = req.Params.Arguments
		}
		res, kind, status := s.callTool(ctx, bt, raw)
		s.logCall(ctx, bt, kind, status, time.Since(start))
		return res, nil
	}
}

func (s *Server) logCall(ctx context.Context, bt *boundTool, kind string, status int, d time.Duration) {
	if !s.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	outcome := "ok"
	if kind != "" {
		outcome = "error"
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, "tools/call",
		slog.String("tool", bt.spec.Name),
		slog.String("outcome", outcome),
		slog.String("error_kind", kind),
		slog.Int("status", status),
		slog.Float64("latency_ms", float64(d.Microseconds())/1000))
}

// callTool runs one call; kind is "" on success, status is the upstream
// HTTP status or 0.
func (s *Server) callTool(ctx context.Context, bt *boundTool, raw json.RawMessage) (res *mcp.CallToolResult, kind string, status int) {
	args, msg := decodeArguments(raw)
	if msg == "" {
		v := &validator{}
		v.check(bt.schema, args, "", 0)
		if v.failed() {
			msg = validationMessage(v)
		}
	}
	if msg != "" {
		return textResult(msg, true), kindInput, 0
	}
	applyDefaults(bt.schema, args)
	req, err := s.buildRequest(ctx, bt.op, args)
	if err != nil {
		return inputErrorResult(err), kindInput, 0
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	return s.roundTrip(ctx, bt.op, req.WithContext(ctx))
}

func inputErrorResult(err error) *mcp.CallToolResult {
	var ie *inputError
	if errors.As(err, &ie) {
		return textResult("Invalid arguments: "+ensurePeriod(ie.msg)+" Fix the value and call again.", true)
	}
	return textResult("The request could not be built: "+ensurePeriod(err.Error()), true)
}

// decodeArguments decodes the arguments object with UseNumber, so large
// integers and exact decimals survive. Absent or null arguments are {}.
func decodeArguments(raw json.RawMessage) (map[string]any, string) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return map[string]any{}, ""
	}
	if trimmed[0] != '{' {
		return nil, "Invalid arguments: the arguments must be a JSON object of named parameters. Fix them and call again."
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var args map[string]any
	if err := dec.Decode(&args); err != nil {
		return nil, "Invalid arguments: they are not valid JSON (" + err.Error() + "). Fix them and call again."
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, ""
}

// buildRequest assembles the upstream request from validated arguments.
func (s *Server) buildRequest(ctx context.Context, op *compiledOp, args map[string]any) (*http.Request, error) {
	path, err := op.buildPath(args)
	if err != nil {
		return nil, err
	}
	body, contentType, err := op.buildBody(args)
	if err != nil {
		return nil, err
	}
	var query strings.Builder
	query.WriteString(op.buildQuery(args))
	req, err := http.NewRequestWithContext(ctx, op.method, s.baseURL+path, body)
	if err != nil {
		return nil, err
	}
	if req.URL.Host != s.baseHost {
		// Unreachable given the escaping; a last guard against host changes.
		return nil, inputErrorf("the path arguments would change the API host")
	}
	if err := s.setHeaders(req, op, args, contentType); err != nil {
		return nil, err
	}
	op.auth.apply(req, &query)
	if op.auth.required && len(op.auth.creds) == 0 {
		s.logger.LogAttrs(ctx, slog.LevelDebug, "calling without credentials",
			slog.String("operation", op.pathLabel), slog.String("set", strings.Join(op.auth.needed, ", ")))
	}
	req.URL.RawQuery = query.String()
	return req, nil
}

func (s *Server) setHeaders(req *http.Request, op *compiledOp, args map[string]any, contentType string) error {
	req.Header.Set("User-Agent", s.userAgent)
	req.Header.Set("Accept", "application/json, application/problem+json;q=0.9, */*;q=0.5")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, p := range op.headers {
		v, ok := args[p.Arg]
		if !ok || v == nil {
			continue
		}
		hv, err := headerValue(p, v)
		if err != nil {
			return err
		}
		req.Header.Set(p.Name, hv)
	}
	if c := op.cookieHeader(args); c != "" {
		req.Header.Set("Cookie", c)
	}
	return nil
}

// roundTrip sends the request and maps the outcome onto a result.
func (s *Server) roundTrip(ctx context.Context, op *compiledOp, req *http.Request) (*mcp.CallToolResult, string, int) {
	resp, err := s.client.Do(req)
	if err != nil {
		res, kind := s.transportError(ctx, op, err)
		return res, kind, 0
	}
	defer resp.Body.Close()
	b, err := readUpstreamBody(resp)
	if err != nil && len(b.data) == 0 && resp.ContentLength != 0 {
		res, kind := s.transportError(ctx, op, err)
		return res, kind, resp.StatusCode
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res, kind := s.upstreamError(op, resp, b)
		return res, kind, resp.StatusCode
	}
	res := successResult(resp.StatusCode, b)
	if len(s.creds.secrets) > 0 {
		redactResult(res, s.creds)
	}
	return res, "", resp.StatusCode
}

// redactResult removes configured secrets that an API echoed back.
func redactResult(res *mcp.CallToolResult, cs *credentialSet) {
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		red := cs.redact(tc.Text)
		if red == tc.Text {
			continue
		}
		tc.Text = red
		// The structured copy carries the same secret: drop it rather
		// than re-encode.
		res.StructuredContent = nil
	}
}
