// Command aftersales-backend serves the in-memory after-sales (returns and
// repairs) API (examples/aftersales/backend) over HTTP under /api.
//
// Usage:
//
//	aftersales-backend [--addr 127.0.0.1:8082] [--api-key KEY]
//
// Use --addr 127.0.0.1:0 to pick a free port; the bound address is printed
// on stdout (and logged on stderr) as
// "aftersales backend listening on http://ADDR/api". With --api-key every
// request must carry that key in the X-API-Key header; without it the
// header is ignored. SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/oa2mcp/oa2mcp/examples/aftersales/backend"
)

// shutdownTimeout bounds the graceful shutdown.
const shutdownTimeout = 5 * time.Second

func main() {
	addr := flag.String("addr", "127.0.0.1:8082", "address to listen on (host:port; port 0 picks a free port)")
	apiKey := flag.String("api-key", "", "require this key in the X-API-Key header (default: no check)")
	flag.Parse()
	logger := log.New(os.Stderr, "aftersales-backend: ", log.LstdFlags)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr, *apiKey, os.Stdout, logger); err != nil {
		logger.Print(err)
		stop()
		os.Exit(1)
	}
}

// run listens on addr, announces the bound URL on out and serves until ctx
// is cancelled, then shuts down gracefully. A non-empty apiKey is required
// on every request.
func run(ctx context.Context, addr, apiKey string, out io.Writer, logger *log.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           logRequests(backend.RequireAPIKey(backend.NewHandler(), apiKey), logger),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          logger,
	}
	msg := fmt.Sprintf("aftersales backend listening on http://%s%s", ln.Addr(), backend.BasePath)
	fmt.Fprintln(out, msg)
	logger.Print(msg)
	if apiKey != "" {
		logger.Print("requests must carry the configured " + backend.APIKeyHeader + " header")
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Print("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// statusWriter remembers the status code written through it.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

// logRequests logs one line per request: method, URI, status and duration.
// The API key is never logged.
func logRequests(next http.Handler, logger *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		logger.Printf("%s %s -> %d (%s)", r.Method, r.URL.RequestURI(), sw.status, time.Since(start).Round(time.Microsecond))
	})
}
