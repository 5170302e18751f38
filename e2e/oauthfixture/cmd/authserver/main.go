// Command authserver is the OpenID provider of the end-to-end tests: the
// zitadel/oidc example provider (authorization code with PKCE, refresh
// tokens, RFC 8693 token exchange, revocation, introspection, a form
// login) around a storage that issues RS256 JWT access tokens with a
// configurable lifetime. It listens on 127.0.0.1 only and prints its
// issuer URL as the first line of stdout.
//
//	authserver --addr 127.0.0.1:0 \
//	  --client mcp-client::http://127.0.0.1:6274/oauth/callback \
//	  --client notes-mcp:s3cret:http://127.0.0.1:8080/oauth2/callback \
//	  --access-token-lifetime 5m
//
// Users alice and bob sign in with the passwords --users gives (default
// alice:alice-password,bob:bob-password); their subject is their name.
// POST /admin/revoke?sub=NAME revokes every token issued to that user, as
// a user who removes an application's access in their account would.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "authserver:", err)
		os.Exit(1)
	}
}

func run() error {
	var clients clientFlags
	addr := flag.String("addr", "127.0.0.1:0", "loopback address to listen on (port 0: a free one)")
	lifetime := flag.Duration("access-token-lifetime", 5*time.Minute, "lifetime of access tokens (short ones exercise refresh)")
	users := flag.String("users", "alice:alice-password,bob:bob-password", "NAME:PASSWORD,... of the users who can sign in")
	denyExchange := flag.String("deny-exchange", "", "NAME,... of users whose tokens token exchange refuses (access_denied)")
	flag.Var(&clients, "client", "ID:SECRET:REDIRECT[,REDIRECT...] registers a client; an empty SECRET makes a public (PKCE) client (repeatable)")
	flag.Parse()

	host, _, err := net.SplitHostPort(*addr)
	if err != nil || !net.ParseIP(host).IsLoopback() {
		return fmt.Errorf("--addr %q: listen on a loopback address such as 127.0.0.1:0", *addr)
	}
	userStore, err := parseUsers(*users)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	issuer := "http://" + ln.Addr().String()

	storage.RegisterClients(clients.registered...)
	store := newFixtureStorage(storage.NewStorage(userStore), *lifetime, splitList(*denyExchange))
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	router := exampleop.SetupServer(issuer, store, logger, false)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /admin/revoke", store.revokeSubjectHandler)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		// RFC 8414 metadata, which MCP clients look for first: the same
		// document as the OpenID discovery one.
		r.URL.Path = "/.well-known/openid-configuration"
		router.ServeHTTP(w, r)
	})
	mux.Handle("/", router)

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Println(issuer)
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
