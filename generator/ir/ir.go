// Package ir is the intermediate model of a generated MCP server: plain,
// sorted data with every name, description and schema precomputed.
//
// Its core is the runtime's own definition types (package
// github.com/oa2mcp/oa2mcp/runtime): the mapping stage fills them and the
// emit stage renders them as Go literals, field by field through
// reflection, so the generator and the runtime cannot disagree on what a
// tool is. What only the generator needs (Go names, doc comments, the
// output package) sits beside them here.
package ir

import "github.com/oa2mcp/oa2mcp/runtime"

// The runtime's definition types, under the names the generator uses.
type (
	// Operation is one upstream HTTP operation.
	Operation = runtime.Operation
	// Param maps a tool input onto an HTTP parameter.
	Param = runtime.Param
	// Body says how inputs become the request body.
	Body = runtime.Body
	// BodyField maps a tool input onto a body property.
	BodyField = runtime.BodyField
	// Step is one operation call of an aggregated or action tool.
	Step = runtime.Step
	// Binding gives one step argument its value.
	Binding = runtime.Binding
	// Action is one value of an action tool's "action" input.
	Action = runtime.Action
	// Output shapes a tool's result.
	Output = runtime.Output
	// Pick maps a result field onto a path or template.
	Pick = runtime.Pick
	// HandleType is one kind of handle.
	HandleType = runtime.HandleType
	// HandleInput is a tool input that takes a handle.
	HandleInput = runtime.HandleInput
	// HandleOutput makes a tool return a new handle.
	HandleOutput = runtime.HandleOutput
	// HandleUpdate makes a pure state tool grow a state handle.
	HandleUpdate = runtime.HandleUpdate
	// Ask is an input asked from the user when the model leaves it out.
	Ask = runtime.Ask
	// RateLimit is a token bucket per caller.
	RateLimit = runtime.RateLimit
	// SecurityScheme is one way to authenticate to the upstream API.
	SecurityScheme = runtime.SecurityScheme
)

// Server is one generated MCP server.
type Server struct {
	// ServerDef is the server's definition as the runtime reads it. Its
	// own Tools field stays empty here: the tools are the Tools below,
	// which carry generator-only data too.
	runtime.ServerDef
	// Tools are sorted by Name.
	Tools []Tool

	// Package is the Go package name of the generated code.
	Package string
	// ImportPath is the Go import path of the generated package.
	ImportPath string
	// Source is the spec path relative to the output folder, for headers.
	Source string
	// GoMod, when set, asks for a go.mod in the output folder because it
	// lies in no Go module; it holds the module path.
	GoMod string
	// RuntimeDir, when set with GoMod, adds a replace directive pointing
	// the runtime module at this folder (an unpublished runtime).
	RuntimeDir string
	// Metrics wires the Prometheus metrics (runtime/prommetrics) into
	// the generated server, which then depends on client_golang.
	Metrics bool
	// Extend names a hand-written func(Options) Options of the generated
	// package that New and Main apply (server.extend in the override file).
	Extend string
	// Redis wires the Redis handle store (runtime/redisstore) into the
	// generated server, which then depends on go-redis.
	Redis bool
	// NoCallTests leaves out oa2mcp_calls_test.go.
	NoCallTests bool
	// CallCases are the generated call cases per tool, for the call
	// tests; nil with NoCallTests.
	CallCases []ToolCases
}

// Tool is one MCP tool.
type Tool struct {
	// Tool is the tool's definition as the runtime reads it.
	runtime.Tool
	// GoName is the identifier of the tool's variable in generated code.
	GoName string
	// Doc is the Go doc comment text (without "//"), one line per entry.
	Doc []string
}

// Method is the HTTP method of a one-operation tool, "" for others.
func (t *Tool) Method() string {
	if t.Op == nil {
		return ""
	}
	return t.Op.Method
}

// ToolCases are the call cases of one tool: arguments and, per upstream
// operation, a response the fake upstream of the tests serves.
type ToolCases struct {
	// Tool names the tool.
	Tool string
	// Cases run in order; each is one tools/call.
	Cases []CallCase
}

// CallCase is one generated tools/call and what it must produce.
type CallCase struct {
	// Name says what the case checks: "normal", "boundary",
	// "action by_status", "invalid: ...", "upstream 404", ...
	Name string
	// Args are the arguments as JSON.
	Args string
	// Fault, when set, makes the fake upstream answer every request with
	// this fault ("status:404", "timeout", "reset", "malformed",
	// "oversized").
	Fault string
	// WantError and WantKind: the result must be an error of this kind,
	// or (WantError false) a success matching the tool's output schema.
	WantError bool
	WantKind  string
	// WantUpstream: the call must reach the upstream (false: it must be
	// refused before any upstream request).
	WantUpstream bool
	// WantText lists phrases the result's text must contain.
	WantText []string
}
