// Package notes is the oa2mcp example server for per-user upstream
// credentials: each MCP caller connects their own account of the notes
// API (OAuth 2.0 authorization code with PKCE) and the server calls the
// API with that caller's token. Everything in this folder named
// oa2mcp_*.go, and cmd/notes, is generated; this file and README.md are
// written by hand and never touched by the generator.
//
// Regenerate with "go generate ./examples/notes".
package notes

//go:generate go run ../../cmd/oa2mcp generate -c oa2mcp.yaml
