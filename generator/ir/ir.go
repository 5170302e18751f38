// Package ir is the intermediate model of a generated MCP server: plain,
// sorted data with every name, description and schema precomputed.
//
// The build stage produces it from a loaded spec and overrides; the emit
// stage turns it into Go source and never looks at OpenAPI types. A new
// feature usually adds a field here, fills it in build and reads it in emit.
package ir

// Server is one generated MCP server.
type Server struct {
	// Name is the MCP implementation name, e.g. "petstore"; it also
	// names the cmd/NAME folder of the generated main.
	Name         string
	Title        string
	Version      string
	Instructions string
	// Package is the Go package name of the generated code.
	Package string
	// ImportPath is the Go import path of the generated package.
	ImportPath string
	// Source is the spec path relative to the output folder, for headers.
	Source string
	// DefaultBaseURL is the upstream base URL from the spec; may be empty
	// or relative, in which case the user must configure one.
	DefaultBaseURL string
	// EnvPrefix prefixes every environment variable the server reads,
	// e.g. "PETSTORE" for PETSTORE_BASE_URL.
	EnvPrefix string
	// Security lists the upstream credential schemes, sorted by Name.
	Security []SecurityScheme
	// Tools are sorted by Name.
	Tools []Tool
	// Config holds the override file's config values, which bindings
	// read as ${config.NAME}; sorted by key when emitted.
	Config map[string]string
	// GoMod, when set, asks for a go.mod (and go.sum) in the output
	// folder because it lies in no Go module; it holds the module path.
	GoMod string
	// Metrics, when set, adds Prometheus metrics to the generated server:
	// the runtime file tagged oa2mcp_prometheus is copied (tag removed),
	// so the server serves /metrics on its HTTP transport and depends on
	// github.com/prometheus/client_golang. Off, the generated code depends
	// on the MCP SDK and the standard library only.
	Metrics bool
	// NoCallTests turns off oa2mcp_calls_test.go, the generated call
	// cases (normal, boundary, invalid input, upstream failure per tool).
	NoCallTests bool

	// State and access (issue 5).
	//
	// Handles are the handle types, sorted by Name.
	Handles []HandleType
	// Redis, when set, copies the runtime file tagged oa2mcp_redis (the
	// Redis handle store), which depends on github.com/redis/go-redis/v9.
	Redis bool
	// PassHeaders is the allowlist of inbound HTTP headers copied to
	// upstream requests, in canonical form.
	PassHeaders []string
	// RateLimit limits calls per caller; nil: unlimited.
	RateLimit *RateLimit
}

// HandleType is one kind of handle: an opaque, caller-owned name for an
// upstream object.
type HandleType struct {
	Name   string
	Prefix string
	// LifetimeSeconds is how long a handle lives; Fixed counts it from
	// creation, otherwise every use restarts it.
	LifetimeSeconds int
	Fixed           bool
	// State: the handle names server-side state (a JSON object), not an
	// upstream id.
	State       bool
	Description string
	// Creators are the tools that return one, sorted.
	Creators []string
}

// HandleInput is a tool input that takes a handle.
type HandleInput struct {
	Arg  string
	Type string
}

// CreatesHandle makes a tool return a handle for the upstream id at From
// in its result, in the result field Field.
type CreatesHandle struct {
	Type  string
	From  string
	Field string
}

// UpdatesHandle makes a pure state tool create (Arg absent) or update a
// state handle: Append values are appended to array fields of the state,
// Set values replace fields. Bindings are sorted by Arg (the field).
type UpdatesHandle struct {
	Type   string
	Arg    string
	Append []Binding
	Set    []Binding
}

// Ask is an input asked from the user when the model leaves it out.
type Ask struct {
	Arg     string
	Message string
	// Schema is the property's JSON Schema (primitive, no $ref).
	Schema string
}

// RateLimit is a token bucket per caller.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// SecurityKind is how a credential is attached to upstream requests.
type SecurityKind string

// Security kinds the runtime supports.
const (
	APIKey SecurityKind = "apiKey"
	Bearer SecurityKind = "bearer"
	Basic  SecurityKind = "basic"
)

// SecurityScheme is one way to authenticate to the upstream API.
type SecurityScheme struct {
	// Name is the scheme's key in the spec.
	Name string
	Kind SecurityKind
	// In and ParamName place an API key ("header", "query", "cookie").
	In        string
	ParamName string
	// EnvVar holds the key or token, or the user name for Basic.
	EnvVar string
	// PasswordEnv holds the password; only for Basic.
	PasswordEnv string
	Description string
}

// Tool is one MCP tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	// GoName is the identifier of the tool's variable in generated code.
	GoName string
	// Doc is the Go doc comment text (without "//"), one line per entry.
	Doc         []string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// InputSchema is the JSON Schema 2020-12 input schema as indented,
	// deterministic JSON.
	InputSchema string
	// Call is the single operation of a one-to-one tool; its parameters
	// read the tool's inputs directly. Unused (Method empty) when the tool
	// has Steps or Actions.
	Call Call
	// Steps, when set, make an aggregated tool: each step calls one
	// operation with arguments bound from inputs and earlier steps.
	Steps []Step
	// Actions, when set, make an action tool: the "action" input selects
	// which step list runs. Sorted by Name.
	Actions []Action
	// Output shapes the result; nil returns it as the upstream sent it.
	Output *Output
	// OutputSchema is the JSON Schema of the shaped result, or empty.
	OutputSchema string

	// State and access (issue 5).
	//
	// HandleInputs are inputs resolved from handles, sorted by Arg.
	HandleInputs []HandleInput
	// CreatesHandle, when set, adds a new handle to the result.
	CreatesHandle *CreatesHandle
	// UpdatesHandle, when set, makes the tool a pure state tool.
	UpdatesHandle *UpdatesHandle
	// ConsumesHandle names the handle input deleted after success.
	ConsumesHandle string
	// Asks are inputs asked from the user when missing, sorted by Arg.
	Asks []Ask
	// Confirm, when set, is the confirmation question asked before the
	// tool runs; a template over ${input.NAME}.
	Confirm string
	// Scopes are required of the caller, sorted.
	Scopes []string
	// RateLimit replaces the server's for this tool.
	RateLimit *RateLimit
}

// Step is one operation call inside an aggregated or action tool.
type Step struct {
	// ID names the step in bindings (${steps.ID...}) and in the result.
	ID string
	// Call's parameters read the step's arguments, named as in the
	// operation's default mapping.
	Call Call
	// Args binds each argument, sorted by Arg.
	Args []Binding
	// Optional steps may fail without failing the tool.
	Optional bool
	// When names a tool input; the step runs only when it is present and
	// not false.
	When string
	// After lists the steps whose results this step reads, sorted; steps
	// with no dependency between them run concurrently.
	After []string
}

// Binding gives one step argument its value.
type Binding struct {
	Arg string
	// Expr is a ${...} reference or template (see overrides.Expr); empty
	// when Const or Fields is used.
	Expr string
	// Const is a JSON constant.
	Const string
	// Fields build an object argument from several bindings (flattened
	// inputs); the object is omitted when none of them has a value.
	Fields []Binding
}

// Action is one value of an action tool's "action" input.
type Action struct {
	Name        string
	Description string
	Steps       []Step
	// Required lists the tool inputs this action needs.
	Required []string
}

// Output says how to shape a tool's result.
type Output struct {
	// Pick keeps these fields, sorted by Name; empty keeps everything.
	Pick []Pick
	// ListPath names the array to truncate ("" for the root); Limit is
	// its page size; 0 means no truncation.
	ListPath  string
	Limit     int
	PageInput string
	// Hints are added fields; each value is a template.
	Hints []Pick
}

// Pick maps a result field name onto a path (or, for hints, a template).
type Pick struct {
	Name string
	Path string
}

// Call is the upstream operation a tool calls.
type Call struct {
	OperationID string
	Method      string
	// Path is the path template without any "#fragment".
	Path   string
	Params []Param
	Body   *Body
	// Security lists alternatives (any one suffices) of scheme-name sets.
	Security [][]string
	// IdempotencyKeyHeader gets a fresh key per tool call when no input
	// sets it.
	IdempotencyKeyHeader string
}

// Param maps a tool input property onto an HTTP parameter.
type Param struct {
	// Name is the parameter's wire name; Arg the input property.
	Name          string
	Arg           string
	In            string
	Style         string
	Explode       bool
	AllowReserved bool
	Required      bool
}

// Body says how a tool's input becomes the request body.
type Body struct {
	MediaType string
	Required  bool
	// Arg holds the whole body when it could not be flattened.
	Arg string
	// Fields are flattened body properties, sorted by Arg.
	Fields []BodyField
}

// BodyField maps a tool input property onto a body property.
type BodyField struct {
	Name string
	Arg  string
}
