// Command multi serves two generated MCP servers from one binary: the
// petstore at /petstore/mcp and the after-sales service at
// /aftersales/mcp. They share one handle store (memory, or Redis with
// --handle-store redis://...: keys are namespaced per server), one
// upstream HTTP client and one authentication configuration, so a token
// works for both and a replica set shares every handle.
//
//	go run ./examples/multi --addr 127.0.0.1:8080 \
//	    --petstore-url http://127.0.0.1:8081/api/v3 --aftersales-url http://127.0.0.1:8082/api \
//	    --auth-tokens-file tokens.txt
package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/oa2mcp/oa2mcp/examples/aftersales"
	"github.com/oa2mcp/oa2mcp/examples/petstore"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/redisstore"
)

// shared is what the servers of one binary share.
type shared struct {
	store  runtime.HandleStore
	client *http.Client
	auth   *runtime.AuthOptions
	logger *slog.Logger
}

// urls are the two upstream APIs.
type urls struct{ petstore, aftersales string }

// newMux builds both servers on the shared parts and mounts them.
func newMux(sh shared, up urls) (*http.ServeMux, func(), error) {
	pet, err := petstore.New(petstore.Options{BaseURL: up.petstore, HTTPClient: sh.client, HandleStore: sh.store, Auth: sh.auth, Logger: sh.logger})
	if err != nil {
		return nil, nil, fmt.Errorf("petstore: %w", err)
	}
	as, err := aftersales.New(aftersales.Options{BaseURL: up.aftersales, HTTPClient: sh.client, HandleStore: sh.store, Auth: sh.auth, Logger: sh.logger})
	if err != nil {
		return nil, nil, fmt.Errorf("aftersales: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/petstore/mcp", pet.HTTPHandler())
	mux.Handle("/aftersales/mcp", as.HTTPHandler())
	return mux, func() { pet.Drain(5 * time.Second); as.Drain(5 * time.Second) }, nil
}

// newSharedClient is one upstream client for both servers: pooled
// connections per API host, and a timeout as a last guard.
func newSharedClient() *http.Client {
	t := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 64,
		IdleConnTimeout:     90 * time.Second,
	}
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	petURL := flag.String("petstore-url", "", "petstore API base URL")
	asURL := flag.String("aftersales-url", "", "after-sales API base URL")
	storeURL := flag.String("handle-store", "memory", "handle store shared by both servers: memory or redis://HOST:PORT/DB")
	tokens := flag.String("auth-tokens-file", "", "bearer tokens accepted by both servers: TOKEN SUBJECT [SCOPE...] per line")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	store := runtime.NewMemoryHandleStore(0, nil)
	if *storeURL != "memory" {
		var err error
		if store, err = redisstore.Open(*storeURL); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	sh := shared{store: store, client: newSharedClient(), auth: &runtime.AuthOptions{TokensFile: *tokens}, logger: logger}
	mux, drain, err := newMux(sh, urls{petstore: *petURL, aftersales: *asURL})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer drain()
	logger.Info("serving", "petstore", "http://"+*addr+"/petstore/mcp", "aftersales", "http://"+*addr+"/aftersales/mcp")
	hs := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := hs.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
