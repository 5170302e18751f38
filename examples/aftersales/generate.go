// Package aftersales is the oa2mcp example server for the after-sales
// (returns and repairs) API: 9 operations become 5 task tools with a
// ticket handle, an input asked from the user (input_required), a
// confirmation, per-tool scopes, an x-mcp-header and a Redis handle store.
// Everything in this folder named oa2mcp_*.go, and cmd/aftersales, is
// generated; this file, the backend and the tests are written by hand and
// never touched by the generator.
//
// Regenerate with "go generate ./examples/aftersales".
package aftersales

//go:generate go run ../../cmd/oa2mcp generate -c oa2mcp.yaml
