// Package runtime serves the MCP servers oa2mcp generates.
//
// A generated package holds only what is specific to its API: a ServerDef
// (one Tool per tool, with its schemas, operations, steps, actions and
// output shaping), New and Main. This package does the rest for every
// server alike: it validates arguments against each tool's input schema,
// resolves handles and identity bindings, builds and sends the upstream
// HTTP requests (retries, limits, timeouts, credentials), runs the steps
// of aggregated and action tools, shapes and pages results, checks them
// against the output schema, maps every failure to an isError result a
// model can act on, asks the user through input_required, and serves
// stdio and Streamable HTTP through the official MCP Go SDK.
//
// The definition types in spec.go are the contract with the generator:
// it fills them and nothing else describes a tool at run time. Generated
// code imports this package for the contract and runtime/oa2mcpimpl for
// the rest: the version guard (oa2mcpimpl.EnforceVersion), which makes a
// generator and runtime that do not match fail to compile, naming the side
// to upgrade, and the rules the generator shares with the runtime. The
// engine lives in runtime/internal/...; see docs/architecture.md.
//
// Go code of a service can extend a generated server through Options:
// hand-written tools (NewTool), middleware around tools (Middleware), a
// shared HandleStore, HTTP client and authentication.
//
// The module depends on the MCP Go SDK and the standard library only; the
// Redis handle store (runtime/redisstore) and Prometheus metrics
// (runtime/prommetrics) are separate modules, and runtime/oa2mcptest
// drives the call tests generated next to every server.
package runtime
