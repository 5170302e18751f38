// Command embedded shows the generated petstore package used as a library:
// one binary serves the petstore REST API at /api/v3 and its MCP server at
// /mcp on the same mux, and the MCP tools reach the API in process through
// Options.Upstream, without a network hop or a second port.
//
//	go run ./examples/embedded --addr 127.0.0.1:8080
//	# REST: curl http://127.0.0.1:8080/api/v3/pet/1
//	# MCP:  Streamable HTTP at http://127.0.0.1:8080/mcp
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/oa2mcp/oa2mcp/examples/petstore"
	"github.com/oa2mcp/oa2mcp/examples/petstore/backend"
)

// internalBaseURL is where the MCP tools believe the API lives. With
// Options.Upstream set no connection is made: only its path matters.
const internalBaseURL = "http://petstore.internal" + backend.BasePath

// newMux mounts the API and the MCP endpoint on one mux. api serves both
// the outside world and, in process, the MCP tools.
func newMux(api http.Handler, logger *slog.Logger) (*http.ServeMux, error) {
	srv, err := petstore.New(petstore.Options{
		BaseURL:  internalBaseURL,
		Upstream: api,
		Logger:   logger,
		Timeout:  5 * time.Second,
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(backend.BasePath+"/", api)
	mux.Handle("/mcp", srv.HTTPHandler())
	return mux, nil
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	mux, err := newMux(backend.NewHandler(), logger)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	logger.Info("serving", "api", "http://"+*addr+backend.BasePath, "mcp", "http://"+*addr+"/mcp")
	hs := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
