package runtime

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

// mainConfig is the parsed command line.
type mainConfig struct {
	transport, addr, baseURL, logLevel, logFormat string
	timeout                                       time.Duration
	maxConcurrent                                 int
	// State and access; empty: the environment decides.
	handleStore, tokensFile, jwks, issuer, audience, resource string
	insecureNoAuth, insecureAnyAudience                       bool
	// Streamable HTTP.
	listener       listenerConfig
	allowedOrigins string
	schemaProfile  SchemaProfile
}

// Main is a generated server's command: it parses args, builds the
// server from def and opts (flags win over opts) and serves stdio or
// Streamable HTTP. Exit codes: 0 ok, 1 runtime failure, 2 usage error.
// Logs go to stderr only: on stdio, stdout is the protocol channel.
func Main(def *ServerDef, opts Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, code := parseFlags(def, args, stderr)
	if code >= 0 {
		return code
	}
	// One log record per call: the records of a few milliseconds leave
	// in one write, all of them before Main returns.
	logOut := newLogWriter(stderr)
	defer logOut.Close()
	logger, err := newLogger(cfg, logOut)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	srv, err := NewServer(def, cfg.apply(opts, logger))
	if err != nil {
		logger.Error("cannot start", "error", err)
		return 1
	}
	if os.Getenv("GOGC") == "" {
		// Set once the tool table is built, with the default target until
		// then (start-up garbage, mostly the SDK's, would otherwise become
		// RSS): a higher GC target trades some memory for less CPU per
		// call, under a soft limit that keeps a small server's RSS low.
		// A fixed limit below the heap start-up needs made a 1,123-tool
		// server spend a third of its start in ~170 collections.
		debug.SetGCPercent(400)
		if os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(softMemoryLimit(heapInUse()))
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.transport == "http" {
		err = serveHTTP(ctx, srv, cfg.addr, &cfg.listener, logger)
	} else {
		logger.Info("serving MCP on stdio", "server", def.Name)
		in, restore := pollableStdin(stdin)
		err = srv.RunStdio(ctx, in, stdout)
		restore()
	}
	if err != nil {
		logger.Error("server stopped", "error", err)
		return 1
	}
	return 0
}

// softMemoryLimit is the GC's soft memory limit for a server whose heap
// holds inUse bytes once built: 13 MiB keeps a small server's peak RSS
// under 20 MiB under load (about 18 MiB at concurrency 8); a large tool
// table gets twice its heap, since a limit at or below the live heap
// leaves the GC running without pause.
func softMemoryLimit(inUse uint64) int64 {
	return max(13<<20, 2*int64(inUse))
}

// heapInUse is the bytes of heap objects, live or not yet collected.
// Read once at start: ReadMemStats stops the world for microseconds,
// while importing runtime/metrics costs every process (the generator's
// too) 0.17 ms of package initialisation.
func heapInUse() uint64 {
	var ms goruntime.MemStats
	goruntime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// apply sets the options the command line gave over opts.
func (cfg *mainConfig) apply(opts Options, logger *slog.Logger) Options {
	opts.Logger = logger
	opts.Timeout = cfg.timeout
	opts.MaxConcurrent = cfg.maxConcurrent
	if cfg.baseURL != "" {
		opts.BaseURL = cfg.baseURL
	}
	if cfg.handleStore != "" {
		opts.HandleStoreURL = cfg.handleStore
	}
	a := AuthOptions{}
	if opts.Auth != nil {
		a = *opts.Auth
	}
	for _, f := range []struct {
		dst *string
		v   string
	}{{&a.TokensFile, cfg.tokensFile}, {&a.JWKS, cfg.jwks}, {&a.Issuer, cfg.issuer}, {&a.Audience, cfg.audience}, {&a.Resource, cfg.resource}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	a.InsecureAnyAudience = a.InsecureAnyAudience || cfg.insecureAnyAudience
	opts.Auth = &a
	opts.InsecureNoAuth = opts.InsecureNoAuth || cfg.insecureNoAuth
	for _, o := range strings.Split(cfg.allowedOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			opts.AllowedOrigins = append(opts.AllowedOrigins, o)
		}
	}
	if cfg.schemaProfile != "" {
		opts.SchemaProfile = cfg.schemaProfile
	}
	return opts
}

// parseFlags returns the config and -1, or an exit code when the program
// must stop (0 after -h, 2 on usage errors).
func parseFlags(spec *ServerDef, args []string, stderr io.Writer) (*mainConfig, int) {
	cfg := &mainConfig{}
	fs := flag.NewFlagSet(spec.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.transport, "transport", "stdio", "transport: stdio or http")
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address for --transport http")
	fs.StringVar(&cfg.baseURL, "base-url", "", "upstream API base URL (default "+baseURLDefault(spec)+")")
	fs.DurationVar(&cfg.timeout, "timeout", defaultTimeout, "timeout of each tool call, retries included (tools may set their own)")
	fs.IntVar(&cfg.maxConcurrent, "max-concurrent", orDefault(spec.MaxConcurrent, defaultMaxConcurrent), "upstream calls in flight at most, server-wide")
	prefix := envPrefix(spec)
	fs.StringVar(&cfg.handleStore, "handle-store", "", "handle store: memory, or a Redis URL: redis://HOST:PORT/DB, rediss:// (TLS), redis+sentinel://S1:P1,S2:P2/DB?master=NAME or redis+cluster://N1:P1,N2:P2 (default $"+prefix+"_HANDLE_STORE, else memory)")
	fs.StringVar(&cfg.tokensFile, "auth-tokens-file", "", "require bearer tokens on HTTP: file of TOKEN SUBJECT [SCOPE...] lines (also $"+prefix+"_AUTH_TOKENS_FILE)")
	fs.StringVar(&cfg.jwks, "auth-jwks", "", "require bearer JWTs (RS256/ES256) signed by this JWKS URL or file (also $"+prefix+"_AUTH_JWKS)")
	fs.StringVar(&cfg.issuer, "auth-issuer", "", "required iss claim of JWTs (also $"+prefix+"_AUTH_ISSUER)")
	fs.StringVar(&cfg.audience, "auth-audience", "", "required aud claim of JWTs, needed with --auth-jwks: what the authorization server names this server in tokens, usually its public URL (also $"+prefix+"_AUTH_AUDIENCE)")
	fs.BoolVar(&cfg.insecureAnyAudience, "auth-insecure-any-audience", false, "accept JWTs issued for any audience, without --auth-audience (development only: a token minted for another service is accepted)")
	fs.StringVar(&cfg.resource, "auth-resource", "", "public URL of the MCP endpoint, stated in the OAuth protected-resource metadata published with --auth-issuer (default: each request's scheme and host, path /mcp; also $"+prefix+"_AUTH_RESOURCE)")
	fs.BoolVar(&cfg.insecureNoAuth, "insecure-no-auth", false, "serve tools that need scopes over HTTP without authentication (development only: every caller gets every scope)")
	fs.StringVar(&cfg.allowedOrigins, "allowed-origins", "", "comma-separated browser origins (https://app.example.com) allowed to call --transport http; any other Origin header gets 403")
	l := &cfg.listener
	fs.DurationVar(&l.readHeaderTimeout, "http-read-header-timeout", defaultReadHeaderTimeout, "time a client has to send a request's headers")
	fs.DurationVar(&l.readTimeout, "http-read-timeout", defaultReadTimeout, "time a client has to send a whole request, headers and body (tool calls may run longer)")
	fs.DurationVar(&l.writeTimeout, "http-write-timeout", 0, "time to answer a request, the tool call included (default: read timeout + longest tool timeout + "+defaultWriteSlack.String()+")")
	fs.DurationVar(&l.idleTimeout, "http-idle-timeout", defaultIdleTimeout, "keep-alive connections without a request for this long are closed")
	fs.IntVar(&l.maxConnections, "http-max-connections", defaultMaxConnections, "client connections open at once at most; more wait to be accepted")
	fs.Func("schema-profile", "advertise tool schemas in this profile to every client: complete, portable, nullable or flat (default: chosen per client from its name; also $"+prefix+"_SCHEMA_PROFILE)", func(v string) (err error) {
		cfg.schemaProfile, err = ParseSchemaProfile(v)
		return err
	})
	fs.StringVar(&cfg.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&cfg.logFormat, "log-format", "text", "log format: text or json")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s [flags]\n\nMCP server for %s.\n\nFlags:\n", spec.Name, titleOr(spec))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, 0
		}
		return nil, 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "unexpected argument %q\n", fs.Arg(0))
		return nil, 2
	}
	if cfg.transport != "stdio" && cfg.transport != "http" {
		fmt.Fprintf(stderr, "invalid --transport %q: use stdio or http\n", cfg.transport)
		return nil, 2
	}
	if cfg.maxConcurrent <= 0 {
		fmt.Fprintf(stderr, "invalid --max-concurrent %d: must be positive\n", cfg.maxConcurrent)
		return nil, 2
	}
	if cfg.timeout <= 0 {
		fmt.Fprintf(stderr, "invalid --timeout %s: must be positive\n", cfg.timeout)
		return nil, 2
	}
	if err := cfg.listener.validate(); err != nil {
		fmt.Fprintln(stderr, err)
		return nil, 2
	}
	return cfg, -1
}

func titleOr(spec *ServerDef) string {
	if spec.Title != "" {
		return spec.Title
	}
	return spec.Name
}

func baseURLDefault(spec *ServerDef) string {
	d := spec.DefaultBaseURL
	if d == "" {
		d = "none"
	}
	return "$" + baseURLEnv(spec) + ", else " + d
}

func newLogger(cfg *mainConfig, stderr io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return nil, fmt.Errorf("invalid --log-level %q: use debug, info, warn or error", cfg.logLevel)
	}
	switch strings.ToLower(cfg.logFormat) {
	case "text":
		return slog.New(newTextCallHandler(stderr, level)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level})), nil
	}
	return nil, fmt.Errorf("invalid --log-format %q: use text or json", cfg.logFormat)
}

// httpMux routes /mcp, /healthz, /metrics (with metrics), the OAuth
// protected-resource metadata (with an authorization server) and the
// account connection endpoints (with per_user schemes).
func httpMux(srv *Server) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler())
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if srv.draining.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, "draining")
			return
		}
		io.WriteString(w, "ok")
	})
	if h := srv.metrics.Handler(); h != nil {
		mux.Handle("/metrics", h)
	}
	if h := srv.UpstreamAuthHandler(); h != nil {
		// Outside /mcp authentication: the browser has no MCP token; the
		// flow's state authenticates it.
		mux.Handle(startPath, h)
		mux.Handle(callbackPath, h)
		mux.Handle(signedInPath, h)
	}
	if h := srv.ProtectedResourceHandler(); h != nil {
		mux.Handle(wellKnownResource, h)
		mux.Handle(wellKnownResource+"/", h)
	}
	return mux
}

// serveHTTP serves /mcp, /healthz and (with metrics) /metrics until ctx
// is done, then drains in-flight calls.
func serveHTTP(ctx context.Context, srv *Server, addr string, lc *listenerConfig, logger *slog.Logger) error {
	mux := httpMux(srv)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ln := newLimitListener(l, lc.maxConnections)
	hs := lc.server(mux, srv.maxTimeout)
	hs.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	logger.Info("listening on http://" + ln.Addr().String() + "/mcp")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down: draining calls in flight")
	srv.draining.Store(true)
	shutCtx, cancel := context.WithTimeout(context.Background(), srv.maxTimeout+5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutCtx); err != nil {
		return err
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
