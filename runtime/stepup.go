package runtime

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Step-up (RFC 6750 §3.1, MCP authorization): a tools/call whose
// Mcp-Name header names a tool needing scopes the caller's verified
// token lacks is answered 403 with WWW-Authenticate error
// "insufficient_scope" and the scopes the tool needs, before its body is
// read, so the client can ask the authorization server for more. Only a
// server that names its authorization server (--auth-issuer, with
// protected-resource metadata) challenges: with static tokens there is
// no one to ask, and the forbidden tool error (admit in access.go) tells
// the model more. Calls without the header (clients before 2026-07-28)
// get that error too.
func (s *Server) stepUp(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ti := auth.TokenInfoFromContext(r.Context())
		meta := s.auth.metadataURL(r)
		if ti == nil || meta == "" || r.Method != http.MethodPost || r.Header.Get("Mcp-Method") != "tools/call" {
			next.ServeHTTP(w, r)
			return
		}
		bt := s.tools[r.Header.Get("Mcp-Name")]
		if bt == nil || len(bt.spec.Scopes) == 0 || len(missingScopes(bt.spec.Scopes, ti.Scopes)) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		// Ask for what the token has and what the tool needs, so that a
		// new token keeps the caller's other rights.
		want := sortedSet(append(append([]string(nil), ti.Scopes...), bt.spec.Scopes...))
		v := fmt.Sprintf("Bearer realm=%q, error=\"insufficient_scope\", scope=%q, error_description=%q", s.auth.realm, strings.Join(want, " "),
			"the tool "+bt.spec.Name+" needs the scope "+strings.Join(missingScopes(bt.spec.Scopes, ti.Scopes), " and "))
		v += fmt.Sprintf(", resource_metadata=%q", meta)
		w.Header().Set("WWW-Authenticate", v)
		http.Error(w, "insufficient_scope: the access token lacks a scope this tool needs", http.StatusForbidden)
	})
}
