package runtime

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// The OAuth protected-resource metadata (RFC 9728) of an HTTP server whose
// tokens come from an authorization server (AuthOptions.Issuer). An MCP
// client that gets a 401 reads the metadata URL from the challenge, finds
// the authorization server there and asks it for a token for this
// resource; without it such a client can only give up.

// wellKnownResource is the well-known path prefix of the metadata.
const wellKnownResource = "/.well-known/oauth-protected-resource"

// publishesMetadata reports whether there is an authorization server to
// point at: static tokens alone come from no such server.
func (a *authenticator) publishesMetadata() bool { return a.issuer != "" }

// resourceURL is the resource a request is for: AuthOptions.Resource, else
// the MCP endpoint at the request's scheme and host. mcpPath is the
// endpoint's path.
func (a *authenticator) resourceURL(r *http.Request, mcpPath string) string {
	if a.resource != "" {
		return a.resource
	}
	return requestOrigin(r) + mcpPath
}

// metadataURL is where the metadata of the resource r asks for lives: the
// well-known prefix before the resource's path (RFC 9728 §3.1); "" when
// there is none, or the request's host makes no URL.
func (a *authenticator) metadataURL(r *http.Request) string {
	if !a.publishesMetadata() {
		return ""
	}
	u, err := url.Parse(a.resourceURL(r, r.URL.Path))
	if err != nil {
		return ""
	}
	u.Path, u.RawPath = wellKnownResource+u.Path, ""
	return u.String()
}

// requestOrigin is scheme://host of a request, as the client addressed
// it (X-Forwarded-Proto from a proxy that ended TLS).
func requestOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host
}

// resourceMetadata is the document RFC 9728 §2 defines.
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
}

// ProtectedResourceHandler serves the OAuth protected-resource metadata
// at /.well-known/oauth-protected-resource[/PATH], where PATH is the MCP
// endpoint's path (Main mounts /mcp); nil when the server verifies no
// tokens of an authorization server. Embedders serving HTTPHandler mount
// it at the root of the same host.
func (s *Server) ProtectedResourceHandler() http.Handler {
	a := s.auth
	if a == nil || !a.publishesMetadata() {
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		path := strings.TrimPrefix(r.URL.Path, wellKnownResource)
		if path == "" {
			path = "/mcp"
		}
		doc := resourceMetadata{
			Resource:               a.resourceURL(r, path),
			AuthorizationServers:   []string{a.issuer},
			ScopesSupported:        s.allScopes(),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           titleOr(s.spec),
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		json.NewEncoder(w).Encode(doc)
	})
}

// allScopes lists every scope a tool of the server needs, sorted: the
// definition's and the hand-written ones (Options.Tools).
func (s *Server) allScopes() []string {
	tools := make([]*Tool, 0, len(s.tools))
	for _, bt := range s.tools {
		tools = append(tools, bt.spec)
	}
	return toolScopes(tools)
}
