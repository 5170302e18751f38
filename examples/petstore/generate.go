// Package petstore is the oa2mcp example server for the Swagger Petstore
// (OpenAPI 3.0, 19 operations). Everything in this folder named
// oa2mcp_*.go, and cmd/petstore, is generated; this file, the backend and
// the tests are written by hand and never touched by the generator.
//
// Regenerate with "go generate ./examples/petstore".
package petstore

//go:generate go run ../../cmd/oa2mcp generate -c oa2mcp.yaml
