// Command conformance-backend serves the conformance fixture API
// (examples/conformance/backend) over HTTP under /api.
//
// Usage:
//
//	conformance-backend [--addr 127.0.0.1:8082]
//
// Use --addr 127.0.0.1:0 to pick a free port; the bound address is printed
// on stdout as "conformance backend listening on http://ADDR/api".
// SIGINT or SIGTERM shuts the server down.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/oa2mcp/oa2mcp/examples/conformance/backend"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8082", "address to listen on (host:port; port 0 picks a free port)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: backend.NewHandler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("conformance backend listening on http://%s%s\n", ln.Addr(), backend.BasePath)
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
