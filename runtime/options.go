package runtime

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// Options configures a generated MCP server. The zero value is usable: the
// base URL then comes from the environment or the OpenAPI document.
type Options struct {
	// BaseURL of the upstream API, e.g. "https://api.example.com/v1". It
	// overrides the environment variable and the document's first server.
	BaseURL string
	// HTTPClient calls the upstream. If nil, a client tuned for concurrent
	// calls is created. Ignored when Upstream is set.
	HTTPClient *http.Client
	// Upstream, if set, serves upstream calls in process, without network:
	// requests are handed to its ServeHTTP. Useful for tests and for
	// embedding the MCP server next to the API it fronts.
	Upstream http.Handler
	// Logger receives one record per tool call and diagnostics. If nil,
	// nothing is logged. A tool call's record has no source (its program
	// counter is 0), so a handler with AddSource adds none to it.
	Logger *slog.Logger
	// Timeout bounds each tool call, retries included, unless the tool
	// sets its own; default 10s.
	Timeout time.Duration
	// MaxConcurrent bounds upstream calls in flight server-wide; further
	// calls wait for a slot within their timeout. Default: the generated
	// setting, else 64.
	MaxConcurrent int
	// Getenv reads configuration and credentials; default os.Getenv.
	Getenv func(string) string

	// Auth makes the HTTP transport require bearer tokens (static or JWT);
	// the environment adds to it (see docs/state-and-auth.md).
	Auth *AuthOptions
	// HandleStore keeps handles; default the store named by
	// HandleStoreURL or $PREFIX_HANDLE_STORE, else in memory.
	HandleStore HandleStore
	// HandleStoreURL is "memory" or a URL OpenHandleStore opens (for
	// github.com/oa2mcp/oa2mcp/runtime/redisstore, a redis:// URL).
	HandleStoreURL string
	// OpenHandleStore opens a handle store named by a URL other than
	// "memory", e.g. redisstore.Open; nil: only the memory store.
	OpenHandleStore func(url string) (HandleStore, error)
	// Metrics receives per-call measurements, e.g. prommetrics.New(def);
	// nil: none.
	Metrics Metrics

	// Tools are hand-written tools served next to the definition's (see
	// NewTool); they get the same validation, access checks, limits,
	// logging, metrics and error mapping.
	Tools []*Tool
	// Middleware wraps tool calls, first outermost; see Middleware.
	Middleware []Middleware
	// InsecureNoAuth serves tools that declare scopes over Streamable
	// HTTP without authentication, every caller holding every scope. For
	// local development only; the server says so loudly at start. Without
	// it, such tools refuse unauthenticated HTTP calls. (stdio serves one
	// local user and is not affected.)
	InsecureNoAuth bool
	// NoFastPath sends every tool call through go-sdk's own decoding
	// and encoding instead of the fast paths that answer the calls whose
	// outcome is known to be the SDK's, byte for byte, at about a third
	// of the CPU (docs/benchmarks.md). $PREFIX_FAST_PATH=off and the build
	// tag oa2mcp_nofastpath do the same; the fast paths also stay off
	// when the linked go-sdk is not a version they were tested against.
	NoFastPath bool

	// AllowedOrigins are the browser origins (such as
	// "https://app.example.com") whose pages may call the Streamable HTTP
	// endpoint; any other Origin header gets 403, but for a page of the
	// server's own loopback origin. Requests without Origin (no browser)
	// are not affected.
	AllowedOrigins []string
	// StateKey signs requestState values (at least 32 characters);
	// default $PREFIX_STATE_KEY, else a random key per process.
	StateKey string
	// SchemaProfile, when set, is the form of the tool schemas every
	// client is shown; default $PREFIX_SCHEMA_PROFILE, else one chosen per
	// client from its declared name (docs/schemas.md, "Schema profiles").
	// Calls are validated against the full schemas either way.
	SchemaProfile SchemaProfile
	// Now is the clock of handle expiry, request states and rate limits;
	// default time.Now. Tests set it.
	Now func() time.Time
	// UpstreamTokens, when set, supplies callers' tokens of per_user and
	// exchange schemes instead of the built-in flows and token store
	// (an application that keeps users' tokens itself; the call-case
	// driver). $PREFIX_TOKEN_KEY and $PREFIX_PUBLIC_URL are then not read.
	UpstreamTokens UpstreamTokenFunc
}

const defaultTimeout = 10 * time.Second

func (o *Options) withDefaults() Options {
	out := *o
	if out.Getenv == nil {
		out.Getenv = os.Getenv
	}
	if out.Timeout <= 0 {
		out.Timeout = defaultTimeout
	}
	if out.Logger == nil {
		out.Logger = slog.New(slog.DiscardHandler)
	}
	if out.Now == nil {
		out.Now = time.Now
	}
	if out.Metrics == nil {
		out.Metrics = noMetrics{}
	}
	return out
}

// resolveBaseURL applies the precedence Options.BaseURL, then the
// environment variable, then the document's default, and insists on an
// absolute http(s) URL so a relative server entry fails at start-up, not
// on the first call.
func resolveBaseURL(spec *ServerDef, opts *Options) (string, error) {
	raw, from := opts.BaseURL, "the BaseURL option"
	if raw == "" {
		raw, from = opts.Getenv(baseURLEnv(spec)), "$"+baseURLEnv(spec)
	}
	if raw == "" {
		raw, from = spec.DefaultBaseURL, "the OpenAPI document"
	}
	if raw == "" {
		return "", fmt.Errorf("no upstream base URL: set %s or pass --base-url", envHint(spec))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("upstream base URL %q from %s is invalid: %v", raw, from, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("upstream base URL %q from %s is not an absolute http(s) URL: set %s or pass --base-url", raw, from, envHint(spec))
	}
	u.RawQuery, u.Fragment = "", ""
	return strings.TrimRight(u.String(), "/"), nil
}

func envHint(spec *ServerDef) string { return "$" + baseURLEnv(spec) }

// newUpstreamClient returns the one client a Server shares across calls.
// The default transport keeps only 2 idle connections per host, which
// costs a reconnect per call under concurrency.
func newUpstreamClient(opts *Options) *http.Client {
	if opts.Upstream != nil {
		return &http.Client{Transport: handlerTransport{h: opts.Upstream}}
	}
	if opts.HTTPClient != nil {
		return opts.HTTPClient
	}
	dial := (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ExpectContinueTimeout: time.Second,
		// The default (10 MiB) lets a hostile upstream park megabytes of
		// headers per call in memory.
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
	}
	return &http.Client{Transport: newDirectTransport(t, dial)}
}

// handlerTransport is a RoundTripper that serves requests with an
// in-process http.Handler.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in := req.Clone(ctx)
	in.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	in.Host = req.URL.Host
	if in.Body == nil {
		in.Body = http.NoBody
	}
	w := &memResponseWriter{header: http.Header{}}
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		t.h.ServeHTTP(w, in)
	}()
	select {
	case p := <-done:
		if req.Body != nil {
			req.Body.Close()
		}
		if p != nil {
			return nil, fmt.Errorf("in-process upstream panicked: %v", p)
		}
	case <-ctx.Done():
		// The handler keeps running; its writer is never read again.
		return nil, ctx.Err()
	}
	return w.response(req), nil
}

// memResponseWriter records a response in memory, like
// httptest.ResponseRecorder without the test dependency.
type memResponseWriter struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (w *memResponseWriter) Header() http.Header { return w.header }

func (w *memResponseWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 {
		w.code = code
	}
}

func (w *memResponseWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.body.Write(p)
}

// Flush lets streaming handlers type-assert http.Flusher.
func (w *memResponseWriter) Flush() {}

func (w *memResponseWriter) response(req *http.Request) *http.Response {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if w.header.Get("Content-Type") == "" && w.body.Len() > 0 {
		w.header.Set("Content-Type", http.DetectContentType(w.body.Bytes()))
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.code, http.StatusText(w.code)),
		StatusCode:    w.code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}
}
