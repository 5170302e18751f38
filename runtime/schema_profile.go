package runtime

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
)

// SchemaProfile names a form of the tool schemas that tools/list
// advertises (docs/schemas.md, "Schema profiles"). Calls are always
// validated against the full schema, whatever a client was shown.
type SchemaProfile string

const (
	// ProfileComplete is the full JSON Schema, with only the rewrites
	// safe for every client: for clients that read JSON Schema whole
	// (Claude's apps, the MCP Inspector).
	ProfileComplete SchemaProfile = "complete"
	// ProfilePortable keeps to what Gemini's Schema object and OpenAI's
	// strict mode share, saying every other constraint in descriptions;
	// the default, since most SDKs let the application name its client.
	ProfilePortable SchemaProfile = "portable"
	// ProfileNullable is ProfilePortable with every optional property
	// also accepting null: for the Python MCP SDK's default client name
	// ("mcp"), which both google-genai and the OpenAI Agents SDK send;
	// the latter makes every property required.
	ProfileNullable SchemaProfile = "nullable"
	// ProfileFlat is ProfilePortable without unions, each written out in
	// the description: for LangChain's MCP adapters, which drop every
	// union arm that is not an object.
	ProfileFlat SchemaProfile = "flat"
)

// schemaProfiles lists the profiles, for flags and messages.
var schemaProfiles = []SchemaProfile{ProfileComplete, ProfilePortable, ProfileNullable, ProfileFlat}

// ParseSchemaProfile reads a profile name; "" is "no profile forced".
func ParseSchemaProfile(s string) (SchemaProfile, error) {
	for _, p := range schemaProfiles {
		if s == string(p) {
			return p, nil
		}
	}
	if s == "" {
		return "", nil
	}
	return "", fmt.Errorf("unknown schema profile %q; use one of complete, portable, nullable, flat", s)
}

// profileForClient picks the profile for a client's declared name
// (clientInfo at initialize, or a 2026-07-28 request's _meta).
func profileForClient(name string) SchemaProfile {
	n := strings.ToLower(name)
	switch {
	case n == "mcp":
		return ProfileNullable
	case strings.Contains(n, "langchain"):
		return ProfileFlat
	case strings.HasPrefix(n, "claude"), strings.Contains(n, "inspector"):
		return ProfileComplete
	}
	return ProfilePortable
}

// advertisedTools holds each form's tools/list entries, built on first
// use: a server with a thousand tools rewrites only the forms its
// clients ask for.
type advertisedTools struct {
	forced SchemaProfile
	mu     sync.Mutex
	byName map[schemaForm]map[string]*mcp.Tool
}

// tools returns the entries of form p, by name.
func (a *advertisedTools) tools(s *Server, p schemaForm) map[string]*mcp.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.byName[p]; m != nil {
		return m
	}
	if a.byName == nil {
		a.byName = map[schemaForm]map[string]*mcp.Tool{}
	}
	m := make(map[string]*mcp.Tool, len(s.advertised))
	for _, ts := range s.advertised {
		m[ts.Name] = mcpTool(ts, p)
	}
	a.byName[p] = m
	return m
}

// profileMiddleware answers tools/list in the calling client's form.
// The SDK holds registeredForm's entries; another form's replace them by
// name, so paging and ordering stay the SDK's.
func (s *Server) profileMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		lr, ok2 := req.(*mcp.ListToolsRequest)
		if !ok || !ok2 {
			return res, err
		}
		p := s.profiles.forced
		if p == "" {
			var name string
			if ci := lr.ClientInfo(); ci != nil {
				name = ci.Name
			}
			p = profileForClient(name)
		}
		form := schemaForm{profile: p, mcpHeaders: lr.ProtocolVersion() >= fastpath.Protocol20260728}
		if form == registeredForm() {
			return res, nil
		}
		byName := s.profiles.tools(s, form)
		out := *list
		out.Tools = make([]*mcp.Tool, len(list.Tools))
		for i, t := range list.Tools {
			if alt := byName[t.Name]; alt != nil {
				out.Tools[i] = alt
			} else {
				out.Tools[i] = t
			}
		}
		return &out, nil
	}
}

// forcedProfile is the profile Options or $PREFIX_SCHEMA_PROFILE force,
// or "".
func forcedProfile(opts *Options, getenv func(string) string, spec *ServerDef) (SchemaProfile, error) {
	if opts.SchemaProfile != "" {
		return ParseSchemaProfile(string(opts.SchemaProfile))
	}
	env := envPrefix(spec) + "_SCHEMA_PROFILE"
	p, err := ParseSchemaProfile(strings.TrimSpace(getenv(env)))
	if err != nil {
		return "", fmt.Errorf("$%s: %w", env, err)
	}
	return p, nil
}
