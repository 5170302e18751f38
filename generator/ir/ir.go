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

import (
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

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
	// Large, when set, says the default mapping was too large to list
	// and its operations are served through discovery instead.
	Large *LargeAPI
	// CallCases are the generated call cases (generator/cases), which
	// oa2mcp_calls_test.go runs; UpstreamResponses are the fake
	// upstream's answers, by "METHOD /path".
	CallCases         []oa2mcptest.Case
	UpstreamResponses map[string]oa2mcptest.Response
	// Responses describe, by "METHOD /path", what each operation the
	// tools call answers, as the spec declares it: the call cases
	// synthesise upstream responses from it.
	Responses map[string]OperationResponses
	// ResponseDefs is the $defs object (compact JSON) the response
	// schemas refer to, once for all of them; "" when they refer to none.
	ResponseDefs string
}

// OperationResponses is what one operation answers, per the spec.
type OperationResponses struct {
	// Status is the first 2xx status; MediaType its media type.
	Status    int
	MediaType string
	// Schema is the JSON Schema of the success body; "" when none.
	Schema string
	// Errors are the declared 4xx and 5xx statuses, sorted.
	Errors []int
}

// Tool is one MCP tool.
type Tool struct {
	// Tool is the tool's definition as the runtime reads it.
	runtime.Tool
	// GoName is the identifier of the tool's variable in generated code.
	GoName string
	// Doc is the Go doc comment text (without "//"), one line per entry.
	Doc []string
	// Pos locates the tool's source (its override entry, else its
	// operation) for problems found after mapping.
	Pos diag.Position
}

// Method is the HTTP method of a one-operation tool, "" for others.
func (t *Tool) Method() string {
	if t.Op == nil {
		return ""
	}
	return t.Op.Method
}

// LargeAPI is a default mapping too large to list as tools.
type LargeAPI struct {
	// Tools and ListBytes size the tools/list the default mapping would
	// have had.
	Tools, ListBytes int
	// Bounds says the bounds it exceeds, e.g. "128 tools or 50000 tokens".
	Bounds string
}
