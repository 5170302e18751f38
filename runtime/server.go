package runtime

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
	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Server is a generated MCP server: its tools call the upstream HTTP API
// described by the OpenAPI document. Create it with New; serve it with
// RunStdio, HTTPHandler, or MCPServer for custom transports. It is safe for
// concurrent use.
type Server struct {
	spec *ServerDef
	mcp  *mcp.Server
	// resources are the tools served as resources (resources.go).
	resources []*boundResource
	baseURL   string // absolute, without trailing slash
	baseHost  string
	client    *http.Client
	logger    *slog.Logger
	timeout   time.Duration
	userAgent string
	creds     *credentialSet
	getenv    func(string) string

	httpOnce    sync.Once
	httpHandler http.Handler

	// inflight counts requests being handled, so stdio can finish them
	// before acting on end of input or a shutdown signal.
	inflight atomic.Int64
	// draining refuses new tool calls while shutting down.
	draining atomic.Bool

	// advertised are the tools tools/list shows, and profiles their
	// entries per schema profile.
	advertised []*Tool
	profiles   advertisedTools
	// unregistered are the tools the SDK is given on first use
	// (sdk_register.go).
	unregistered []sdkTool
	sdkOnce      sync.Once

	limiter     *limiter // upstream calls in flight, server-wide
	metrics     Metrics
	maxRequest  int64
	maxResponse int64
	maxTimeout  time.Duration // the longest tool timeout, for draining

	// State and access.
	now         func() time.Time
	handles     *handleManager
	signer      *stateSigner
	auth        *authenticator // nil: the HTTP transport is open
	upstream    *upstreamAuth  // nil: no per_user or exchange scheme
	rate        *rateLimiter   // server-wide per-caller limit; nil: none
	passHeaders []string
	stdioClaims map[string]string // $PREFIX_STDIO_CALLER, for stdio only
	stdio       atomic.Bool
	// insecureNoAuth: Options.InsecureNoAuth.
	insecureNoAuth bool
	// origins are the browser origins allowed on Streamable HTTP
	// (Options.AllowedOrigins).
	origins map[string]bool

	// tools are the bound tools by name: the definition's and
	// Options.Tools.
	tools map[string]*boundTool
	// callOperation serves discovery mode's call_operation, which is no
	// bound tool (it dispatches to one); nil without discovery.
	callOperation *discovery

	// impl names the server in results (the SDK's serverInfo).
	impl *mcp.Implementation
	// exposed: MCPServer was called, so SDK middleware may exist that
	// the stdio fast path would skip; it stays off.
	exposed atomic.Bool
	// fastPathOff turns the fast paths off (gateFastPath; tests compare
	// both); fastCalls counts the calls they served; httpFast is the HTTP
	// handler's fast path, nil while none is built or it is off.
	fastPathOff bool
	fastCalls   atomic.Int64
	httpFast    *fastpath.HTTP
	// shapeCacheBytes bounds httpFast's shape cache; 0: the engine's
	// default (tests flood a smaller one).
	shapeCacheBytes int
}

// boundTool is a tool compiled once at newServer, but for its input
// schema (inputSchema).
type boundTool struct {
	spec *Tool
	// schema is the compiled input schema, set by inputSchema.
	schemaOnce sync.Once
	schema     *jsonschema.Node
	schemaErr  error
	op         *compiledOp
	output     *jsonschema.Node // nil: not checked
	sensitive  *sensitiveSet
	timeout    time.Duration
	limiter    *limiter // this tool's calls in flight; nil: unlimited
	// plan runs aggregated and action tools; nil for one-operation tools.
	plan *plan
	// update creates or grows a state handle; nil unless UpdatesHandle.
	update *compiledUpdate
	// confirm is the compiled confirmation question; nil: none.
	confirm *compiledExpr
	// askSchemas check the user's answers, by input.
	askSchemas map[string]*jsonschema.Node
	// rate is this tool's own per-caller limit; nil: the server's.
	rate *rateLimiter
	// claims are the identity claims the tool's bindings read; a call
	// needs all of them.
	claims []string
	// middleware wraps the tool's calls, outermost first.
	middleware []func(CallFunc) CallFunc
	// userNeeds are the per_user and exchange schemes the tool's
	// operations authenticate with, and the scopes to ask for each.
	userNeeds userNeeds
	// fast is the tool's handler on the fast paths (fastHandler), used
	// only while fastTool(bt) holds.
	fast fastpath.Handler
}

// NewServer compiles spec and registers its tools. Errors name what is
// misconfigured (base URL, schema, path template, security scheme).
func NewServer(spec *ServerDef, options Options) (*Server, error) {
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
		client:    withRedirectPolicy(newUpstreamClient(&opts), u, spec.RedirectHosts),
		logger:    opts.Logger,
		timeout:   opts.Timeout,
		userAgent: userAgent(spec),
		creds:     creds,
		getenv:    opts.Getenv,
		metrics:   opts.Metrics,
		now:       opts.Now,
	}
	if err := s.initAccess(spec, &opts); err != nil {
		return nil, err
	}
	if err := s.gateFastPath(&opts); err != nil {
		return nil, err
	}
	if s.origins, err = parseOrigins(opts.AllowedOrigins); err != nil {
		return nil, err
	}
	s.maxRequest = int64(orDefault(spec.MaxRequestBytes, defaultMaxRequestBytes))
	s.maxResponse = int64(orDefault(spec.MaxResponseBytes, defaultMaxResponseBytes))
	s.limiter = newLimiter(orDefault(opts.MaxConcurrent, orDefault(spec.MaxConcurrent, defaultMaxConcurrent)))
	s.impl = &mcp.Implementation{Name: spec.Name, Title: spec.Title, Version: versionOr(spec.Version)}
	var completions func(context.Context, *mcp.CompleteRequest) (*mcp.CompleteResult, error)
	if specCompletes(spec, opts.Tools) {
		completions = s.complete // declares the capability
	}
	s.mcp = mcp.NewServer(s.impl,
		&mcp.ServerOptions{
			CompletionHandler: completions,
			Instructions:      spec.Instructions,
			Logger:            quietSDKLogger(opts.Logger),
			// Static tool list, no logging; empty prompts and resources
			// capabilities keep strict clients' discovery calls happy.
			Capabilities: &mcp.ServerCapabilities{
				Tools:     &mcp.ToolCapabilities{},
				Prompts:   &mcp.PromptCapabilities{},
				Resources: &mcp.ResourceCapabilities{},
			},
		})
	s.mcp.AddReceivingMiddleware(s.countInflight, s.profileMiddleware, s.screenReads)
	if s.profiles.forced, err = forcedProfile(&opts, s.getenv, spec); err != nil {
		return nil, err
	}
	if err := s.addTools(spec.Tools, opts.Tools, opts.Middleware); err != nil {
		return nil, err
	}
	s.addResultResource()
	if err := s.addResources(spec.Resources); err != nil {
		return nil, err
	}
	if err := s.addDiscovery(spec.Discovery, opts.Middleware); err != nil {
		return nil, err
	}
	return s, nil
}

// addTools binds and registers the tools: the definition's and the
// hand-written ones, each with the middleware that applies to it.
func (s *Server) addTools(generated, written []*Tool, middleware []Middleware) error {
	tools := append(append([]*Tool(nil), generated...), written...)
	s.tools = make(map[string]*boundTool, len(tools))
	for i, ts := range tools {
		if s.tools[ts.Name] != nil {
			return fmt.Errorf("tool %q is defined twice (a hand-written tool may not reuse a generated tool's name)", ts.Name)
		}
		bt, err := s.bindTool(ts, i >= len(generated))
		if err != nil {
			return fmt.Errorf("tool %q: %w", ts.Name, err)
		}
		for _, m := range middleware {
			if m.Wrap != nil && m.matchesTool(ts.Name) {
				bt.middleware = append(bt.middleware, m.Wrap)
			}
		}
		s.tools[ts.Name] = bt
		s.maxTimeout = max(s.maxTimeout, bt.timeout)
		if err := s.addMCPTool(ts, s.toolHandler(bt)); err != nil {
			return fmt.Errorf("tool %q: %w", ts.Name, err)
		}
	}
	return nil
}

func orDefault(v, def int) int {
	if v > 0 {
		return v
	}
	return def
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

func userAgent(spec *ServerDef) string {
	return spec.Name + "-mcp/" + versionOr(spec.Version) + " (oa2mcp)"
}

// inputSchema compiles the tool's input schema on first use: a server
// with a large tool table starts without compiling a schema per tool
// (1,123 of them took a third of a Kubernetes server's NewServer and two
// thirds of its heap), since the generator compiled every schema it wrote
// (CompileSchema). An error is the call's and the log's (validArgs).
func (bt *boundTool) inputSchema() (*jsonschema.Node, error) {
	bt.schemaOnce.Do(func() {
		if bt.schema, bt.schemaErr = jsonschema.CompileNode(bt.spec.InputSchema); bt.schemaErr != nil {
			bt.schemaErr = fmt.Errorf("input schema does not compile: %w", bt.schemaErr)
		}
	})
	return bt.schema, bt.schemaErr
}

// bindTool compiles a tool; a hand-written tool (eager) has its input
// schema compiled now, since no generator checked it, a generated one on
// its first call.
func (s *Server) bindTool(ts *Tool, eager bool) (*boundTool, error) {
	var err error
	var op *compiledOp
	if ts.Op != nil {
		if op, err = compileOp(ts.Op, s.creds); err != nil {
			return nil, err
		}
		op.retry = newRetryPolicy(s.spec, ts.Op, op.method)
	}
	p, err := s.compilePlan(ts)
	if err != nil {
		return nil, err
	}
	upd, err := compileUpdate(ts.UpdatesHandle)
	if err != nil {
		return nil, err
	}
	if op == nil && p == nil && upd == nil && ts.Handler == nil && !ts.DisconnectsAccount && s.handles.stateInput(ts) == "" {
		return nil, fmt.Errorf("tool %s has no operation, steps or actions", ts.Name)
	}
	bt := &boundTool{spec: ts, op: op, plan: p, update: upd,
		sensitive: newSensitiveSet(s.spec.Handles, s.spec.Sensitive, ts.Sensitive),
		timeout:   s.timeout,
		limiter:   newLimiter(ts.MaxConcurrent),
	}
	bt.fast = s.fastHandler(bt)
	if ts.TimeoutMillis > 0 {
		bt.timeout = time.Duration(ts.TimeoutMillis) * time.Millisecond
	}
	if strings.TrimSpace(ts.OutputSchema) != "" {
		if bt.output, err = jsonschema.CompileNode(ts.OutputSchema); err != nil {
			return nil, fmt.Errorf("output schema: %w", err)
		}
	}
	if err := s.bindAccess(bt); err != nil {
		return nil, err
	}
	if err := s.bindUpstreamAuth(bt); err != nil {
		return nil, err
	}
	if eager {
		if _, err := bt.inputSchema(); err != nil {
			return nil, err
		}
	}
	return bt, nil
}

// registeredForm is the form of the tools the SDK holds: the default
// profile, with x-mcp-header, which the SDK reads to check the
// Mcp-Param-* headers of each call.
func registeredForm() schemaForm {
	return schemaForm{profile: ProfilePortable, mcpHeaders: true}
}

// mcpTool builds the tool as form advertises it (schema_advertise.go).
// Annotations are always written out: the protocol defaults (destructive,
// open world) are the unsafe ones.
func mcpTool(ts *Tool, form schemaForm) *mcp.Tool {
	schema := ts.InputSchema
	if strings.TrimSpace(schema) == "" {
		schema = `{"type":"object","additionalProperties":false}`
	}
	destructive, openWorld := ts.Destructive, ts.OpenWorld
	var output any
	if strings.TrimSpace(ts.OutputSchema) != "" {
		output = json.RawMessage(advertiseSchema(ts.OutputSchema, form, true))
	}
	return &mcp.Tool{
		OutputSchema: output,
		Name:         ts.Name,
		Title:        ts.Title,
		Description:  shortDescription(ts.Description),
		InputSchema:  json.RawMessage(advertiseSchema(schema, form, false)),
		// annotations.title would repeat Title, which every client since
		// 2025-06-18 reads; every byte of tools/list costs model context.
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    ts.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  ts.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
}

// MCPServer returns the underlying go-sdk server, e.g. to serve it over a
// custom transport or add middleware. RunStdio then serves every request
// through the SDK (no fast path), so such middleware always runs.
func (s *Server) MCPServer() *mcp.Server {
	s.exposed.Store(true)
	return s.sdk()
}

// HTTPHandler returns a Streamable HTTP handler for the server. It is
// stateless, which lets clients negotiate protocol revision 2026-07-28
// while older clients that send initialize keep working, and it answers
// with plain JSON rather than event streams, except to a request that
// asks for progress (progress.go).
func (s *Server) HTTPHandler() http.Handler {
	s.httpOnce.Do(func() {
		sdkServer := s.sdk()
		getServer := func(*http.Request) *mcp.Server { return sdkServer }
		sdk := progressStreams{
			json:   mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: quietSDKLogger(s.logger)}),
			stream: mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true, Logger: quietSDKLogger(s.logger)}),
		}
		// The SDK detaches a call's context from its HTTP request but
		// keeps the request's context values: carry the request's own
		// context along, so a client that hangs up cancels the call and
		// its upstream requests (see handle).
		carried := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			sdk.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), httpRequestKey{}, r.Context())))
		})
		// Tool calls the SDK is known to accept take a fast path
		// (runtime/internal/fastpath).
		var inner http.Handler = carried
		if s.fastPathOn() {
			s.httpFast = fastpath.NewHTTP(fastHost{s}, carried, s.shapeCacheBytes)
			inner = s.httpFast
		}
		// Hostile peers meet the Origin check first, then authentication
		// (a caller without a valid token has no body read), then the
		// body and batch bounds (httpguard.go).
		inner = bodyGuard{next: inner}
		if s.auth != nil {
			inner = s.auth.requireAuth(s.stepUp(inner))
		}
		s.httpHandler = &httpGuard{origins: s.origins, next: inner}
		if scoped := s.scopedTools(); s.auth == nil && len(scoped) > 0 {
			if s.insecureNoAuth {
				s.logger.Warn("INSECURE: serving tools that need scopes over HTTP WITHOUT AUTHENTICATION: every caller may use them", "tools", strings.Join(scoped, ", "))
			} else {
				s.logger.Warn("no authentication configured: tools that need scopes refuse calls over HTTP; configure bearer tokens or JWTs (--auth-tokens-file, --auth-jwks)", "tools", strings.Join(scoped, ", "))
			}
		}
	})
	return s.httpHandler
}

// RunStdio serves one client over newline-delimited JSON on stdin and
// stdout until the client disconnects or ctx is cancelled. Cancellation is
// a normal shutdown and returns nil. Tool calls the SDK is known to
// accept are served on a fast path (runtime/internal/fastpath), the rest
// by the SDK.
func (s *Server) RunStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	s.stdio.Store(true)
	return s.ServeIO(ctx, stdin, stdout)
}

// ServeIO serves one client over newline-delimited JSON read from r and
// written to w, as RunStdio serves stdin and stdout (fast path included)
// but without the stdio caller identity: for an in-process client, give
// it an mcp.IOTransport over the other ends of two io.Pipes. Unlike
// connecting MCPServer() to the SDK's in-memory transports, tool calls
// skip the SDK's per-request decoding.
func (s *Server) ServeIO(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	fctx, stopFast := context.WithCancel(ctx)
	defer stopFast()
	// Responses finishing together leave in one write (groupWriter).
	// The engine's reader answers lines that are no message itself and,
	// unless the fast path is off, serves fast calls.
	fp := fastpath.NewStdio(fctx, fastHost{s}, s.fastPathOn(), stdin, newGroupWriter(stdout))
	busy := func() bool { return s.inflight.Load() > 0 || fp.Unanswered() > 0 }
	t := &mcp.IOTransport{Reader: &drainingReader{r: fp.Reader(), busy: busy, limit: s.timeout + time.Second}, Writer: nopWriteCloser{fp.Writer()}}
	ss, err := s.sdk().Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	fp.Attach(ss)
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		// Refuse new calls, let the ones in flight answer, then close.
		s.draining.Store(true)
		s.waitIdle(s.maxTimeout + time.Second)
		ss.Close()
		<-done
		return nil
	}
	if err != nil && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe)) {
		return nil
	}
	return err
}

// InMemoryTransport connects an MCP client in this process to the
// server: it returns the client's end of a pair of pipes that ServeIO
// serves until ctx ends or the client closes. Tool calls take the fast
// path, which connecting MCPServer() to the SDK's in-memory transports
// does not (about 3x the cost of a direct HTTP call instead of 4.5x; see
// docs/benchmarks.md).
func (s *Server) InMemoryTransport(ctx context.Context) mcp.Transport {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		err := s.ServeIO(ctx, inR, outW)
		if err != nil {
			s.logger.Error("in-memory session ended", "error", err)
		}
		inR.Close()
		outW.Close()
	}()
	return &mcp.IOTransport{Reader: outR, Writer: inW}
}

// countInflight is a receiving middleware tracking requests in progress;
// while draining it answers new tool calls with a retryable error.
func (s *Server) countInflight(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" && s.draining.Load() {
			return (&callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
				msg: "This MCP server is shutting down and accepts no new calls. Retry in a few seconds, once it has restarted."}).result(), nil
		}
		s.inflight.Add(1)
		defer s.inflight.Add(-1)
		return next(ctx, method, req)
	}
}

// waitIdle waits until no request is in flight, at most limit.
func (s *Server) waitIdle(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for s.inflight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// Drain makes the server refuse new tool calls and waits, at most limit,
// for the calls in flight to finish. Call it before closing a custom
// transport; RunStdio and the --transport http main do so themselves.
func (s *Server) Drain(limit time.Duration) {
	s.draining.Store(true)
	s.waitIdle(limit)
}

// drainingReader delays end of input until the requests already read are
// answered, at most limit: the SDK closes the connection at EOF and
// would drop their responses, which breaks scripted use such as
// `printf ... | server`. busy reports requests read and not answered:
// calls in the handlers and requests the SDK holds but has not
// dispatched yet (fastpath.Stdio.Unanswered).
type drainingReader struct {
	r     io.Reader
	busy  func() bool
	limit time.Duration
}

func (d *drainingReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err == io.EOF {
		deadline := time.Now().Add(d.limit)
		for d.busy() && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
	}
	return n, err
}

func (d *drainingReader) Close() error { return nil }

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// execute performs one upstream operation for a tool call: it builds the
// request, takes the tool's and the server's concurrency slots, and sends
// it with retries per op.retry until ctx's deadline. Aggregated tools call
// it once per step.
func (s *Server) execute(ctx context.Context, bt *boundTool, op *compiledOp, args map[string]any, rec *callRecord) (*upstreamResult, *callError) {
	req, err := s.buildRequest(ctx, op, args)
	if err != nil {
		return nil, buildFailure(err)
	}
	if req.ContentLength > s.maxRequest {
		return nil, &callError{kind: KindTooLarge, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The request body would be %d bytes; this server sends at most %s. Send less data (fewer items, shorter texts) and call again.", req.ContentLength, textkit.ByteSize(s.maxRequest))}
	}
	if h := op.retry.idemHeader; h != "" && req.Header.Get(h) == "" {
		// One key per tool call, repeated on every retry.
		req.Header.Set(h, newIdempotencyKey())
	}
	if rec.trace.state != "" {
		req.Header.Set("Tracestate", rec.trace.state)
	}
	if !bt.limiter.acquire(ctx) {
		return nil, s.saturated(ctx, bt, bt.limiter, "this tool")
	}
	defer bt.limiter.release()
	if !s.limiter.acquire(ctx) {
		return nil, s.saturated(ctx, bt, s.limiter, "this server")
	}
	defer s.limiter.release()
	return s.attempts(ctx, bt, op, args, req, rec)
}

// saturated is the error of a call that found no free upstream slot
// before its deadline.
func (s *Server) saturated(ctx context.Context, bt *boundTool, l *limiter, scope string) *callError {
	if errors.Is(ctx.Err(), context.Canceled) {
		return &callError{kind: KindCanceled, retryAfter: retryAfterUnknown, msg: "The call was cancelled by the client before it started."}
	}
	return &callError{kind: KindUnavailable, retryable: true, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("Too many calls are in progress (%s allows %d at once), and none finished within %s. Retry in a few seconds, and avoid calling many tools in parallel.", scope, l.size, bt.timeout)}
}

// attempts sends req, retrying per op.retry within ctx's deadline.
func (s *Server) attempts(ctx context.Context, bt *boundTool, op *compiledOp, args map[string]any, req *http.Request, rec *callRecord) (*upstreamResult, *callError) {
	deadline, _ := ctx.Deadline()
	var prev *callError // the last attempt's failure
	for n := 0; ; n++ {
		r := req
		if n > 0 {
			r = req.Clone(ctx)
			if req.GetBody != nil {
				body, err := req.GetBody()
				if err != nil {
					return nil, buildFailure(err)
				}
				r.Body = body
			}
		}
		r.Header.Set("Traceparent", rec.trace.header())
		res, cerr := s.roundTrip(ctx, bt, op, args, r, rec)
		if cerr == nil {
			return res, nil
		}
		if cerr.kind == KindTimeout && prev != nil && prev.kind != KindTimeout {
			// A retry the call's deadline cut short says less than the
			// failure that made it retry (a refused connection, a 503).
			prev.msg += fmt.Sprintf(" (This server retried %d times; the last retry ran out of time.)", n)
			return nil, prev
		}
		prev = cerr
		wait, ok := op.retry.wait(n, cerr, deadline)
		if !ok || s.draining.Load() || !sleepCtx(ctx, wait) {
			if n > 0 {
				cerr.msg += fmt.Sprintf(" (This server already retried %d times.)", n)
			}
			return nil, cerr
		}
		rec.retries++
		s.metrics.Retried(bt.spec.Name)
	}
}

func buildFailure(err error) *callError {
	var ie *inputError
	if errors.As(err, &ie) {
		return inputFailure("Invalid arguments: " + ensurePeriod(ie.msg) + " Fix the value and call again.")
	}
	return inputFailure("The request could not be built: " + ensurePeriod(err.Error()))
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
	if v, ok := plainjson.Decode(string(trimmed)); ok {
		return v.(map[string]any), "" // an object: trimmed starts with {
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
	s.passThrough(ctx, req)
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

// roundTrip sends one attempt and maps the outcome onto a decoded
// response or a callError.
func (s *Server) roundTrip(ctx context.Context, bt *boundTool, op *compiledOp, args map[string]any, req *http.Request, rec *callRecord) (*upstreamResult, *callError) {
	resp, err := s.client.Do(req)
	if err != nil {
		s.metrics.UpstreamResponse(bt.spec.Name, 0)
		return nil, s.transportError(ctx, bt, err, 0, false)
	}
	defer resp.Body.Close()
	rec.status = resp.StatusCode
	s.metrics.UpstreamResponse(bt.spec.Name, resp.StatusCode)
	b, err := readUpstreamBody(resp, s.maxResponse)
	if err != nil {
		return nil, s.transportError(ctx, bt, err, resp.StatusCode, true)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, s.withoutCallerSecrets(bt, args, s.upstreamError(bt, op, args, resp, b))
	}
	res, cerr := s.decodeSuccess(bt, resp.StatusCode, b)
	if res != nil {
		res.label, res.uri = op.pathLabel, callURI(bt, req)
	}
	return res, s.withoutCallerSecrets(bt, args, cerr)
}

// runOperation runs a one-operation tool.
func (s *Server) runOperation(ctx context.Context, bt *boundTool, args map[string]any, rec *callRecord) (*mcp.CallToolResult, *callError) {
	ur, cerr := s.execute(ctx, bt, bt.op, args, rec)
	if cerr != nil {
		return nil, cerr
	}
	return s.operationResult(bt, args, ur)
}

// Close releases the server's idle upstream connections. Serving stops
// when the transports are closed; Close does not wait for calls.
func (s *Server) Close() {
	s.client.CloseIdleConnections()
	if s.handles != nil {
		s.handles.store.Close()
	}
}

// withoutCallerSecrets removes from e's text what the caller sent under a
// hidden name: an upstream may echo a password or PIN in its error.
func (s *Server) withoutCallerSecrets(bt *boundTool, args map[string]any, e *callError) *callError {
	if e != nil {
		if vals := bt.sensitive.secretValues(args); len(vals) > 0 {
			e.msg = redactValues(e.msg, vals)
		}
	}
	return e
}
