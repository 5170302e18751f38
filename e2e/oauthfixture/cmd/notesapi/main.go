// Command notesapi is the real upstream of the end-to-end tests of
// per-user upstream credentials: a small notes API (openapi.yaml, served
// at /openapi.yaml) that accepts only RS256 JWT access tokens of one
// issuer, checked against the issuer's JWKS (signature, iss, aud, exp,
// and the operation's scope), optionally introspected at the issuer so
// that revoked tokens stop working at once, and keeps each subject's
// notes apart. Every request is appended to --log as one JSON line with
// the SHA-256 of its Authorization header, so a test can check on the
// wire which tokens reached the API. It listens on 127.0.0.1 only.
//
//	notesapi --issuer http://127.0.0.1:9998 --audience notes-mcp \
//	  --introspect notes-api:secret --log /tmp/notes.log
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	_ "embed"
)

//go:embed openapi.yaml
var spec []byte

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "notesapi:", err)
		os.Exit(1)
	}
}

func run() error {
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on (port 0: a free one)")
	issuer := flag.String("issuer", "", "issuer URL of the authorization server whose tokens are accepted (required)")
	audience := flag.String("audience", "", "AUD,... of which a token's aud claim must hold one (required)")
	introspect := flag.String("introspect", "", "CLIENT_ID:SECRET to introspect every token at the issuer (revoked tokens then fail at once)")
	logPath := flag.String("log", "", "file to append one JSON line per request to (method, path, SHA-256 of the Authorization header, subject, status)")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("--addr %q: listen on a loopback address such as 127.0.0.1:0", *addr)
	}
	if *issuer == "" || *audience == "" {
		return errors.New("--issuer and --audience are required")
	}
	ver, err := newVerifier(*issuer, splitList(*audience), *introspect)
	if err != nil {
		return err
	}
	log, err := openRequestLog(*logPath)
	if err != nil {
		return err
	}
	defer log.Close()

	api := &notesAPI{verify: ver, notes: newNoteStore(), log: log}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api.routes(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("notes api listening on http://%s/v1\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
