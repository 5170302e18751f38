// Package rt is the runtime of every server oa2mcp generates.
//
// Its non-test files are copied verbatim into each generated package (the
// package clause renamed, the generated-code header added, the file name
// prefixed with "oa2mcp_"), so the generated server depends on the MCP Go SDK
// and the standard library only. Keeping the runtime a real package here
// means it is compiled, vetted and unit-tested like any other Go code.
//
// The generated files describe the server as data (a serverSpec literal with
// one toolSpec per tool) and call newServer and runMain from this package.
// Everything in this file is that contract between generator and runtime:
// change it only together with generator/emit.
package rt

// serverSpec describes one generated MCP server.
type serverSpec struct {
	// Name is the MCP implementation name and the prefix of environment
	// variables (upper-cased, non-alphanumerics as "_").
	Name         string
	Title        string
	Version      string
	Instructions string
	// DefaultBaseURL is the first server URL of the spec; may be empty.
	DefaultBaseURL string
	// BaseURLEnv names the environment variable that overrides the base URL.
	BaseURLEnv string
	// Security lists the schemes the tools may need, sorted by Name.
	Security []securityScheme
	// Config holds values bindings read as ${config.NAME}.
	Config map[string]string
	// Tools are sorted by name.
	Tools []*toolSpec

	// Resilience (issue 4). Zero values mean the runtime defaults.
	//
	// MaxConcurrent bounds upstream calls in flight server-wide (default
	// 64); Options.MaxConcurrent and the --max-concurrent flag override it.
	MaxConcurrent int
	// MaxRequestBytes bounds an encoded request body (default 1 MiB);
	// MaxResponseBytes bounds the upstream response read (default 1 MiB).
	MaxRequestBytes  int
	MaxResponseBytes int
	// MaxRetries is the number of automatic retries of a retryable call
	// (default 2; negative: never retry).
	MaxRetries int
	// RetryBaseMillis is the first backoff step (default 100, doubled per
	// retry, full jitter); RetryMaxWaitMillis caps one wait, Retry-After
	// included (default 3000): a longer Retry-After is reported, not waited.
	RetryBaseMillis    int
	RetryMaxWaitMillis int
	// StrictOutput turns a response that fails a tool's OutputSchema into
	// an isError result; by default it is returned with a note.
	StrictOutput bool
	// ErrorMessages replaces the guidance sentence of upstream errors,
	// keyed by HTTP status ("404", "4xx", "5xx") or by an upstream error
	// code found in the body ("code", "error.code", "type"); a tool's own
	// ErrorMessages win.
	ErrorMessages map[string]string
	// Sensitive names further argument properties (any tool) whose values
	// are redacted in logs, besides names like password, token, secret,
	// key and authorization.
	Sensitive []string

	// State and access (issue 5).
	//
	// Handles are the handle types tools create and take.
	Handles []*handleType
	// PassHeaders is the allowlist of inbound HTTP headers (canonical
	// form) copied onto every upstream request when the client sent them.
	PassHeaders []string
	// RateLimit limits tool calls per caller; nil: unlimited.
	RateLimit *rateLimit
}

// handleType is one kind of handle: an opaque, caller-owned name for an
// upstream object (e.g. a ticket id).
type handleType struct {
	Name string
	// Prefix starts every value; the rest is random (160 bits).
	Prefix string
	// LifetimeSeconds is how long a handle lives; Fixed counts it from
	// creation, otherwise (sliding) every use restarts it.
	LifetimeSeconds int
	Fixed           bool
	// State: the record holds a JSON object (e.g. a basket) that tools
	// with UpdatesHandle grow over calls, instead of an upstream id.
	State bool
	// Creators name the tools that return one, for error messages.
	Creators []string
}

// handleInput is a tool input resolved from a handle of Type.
type handleInput struct {
	Arg  string
	Type string
}

// handleOutput adds a new handle to a tool's result: From is the path of
// the upstream id in the result, Field the result field for the handle.
type handleOutput struct {
	Type  string
	From  string
	Field string
}

// handleUpdate makes a pure state tool (no upstream call) create or
// update a state handle: when input Arg is absent a new handle of Type is
// created; each Append binding's value is appended to the array field
// Arg of the state, each Set binding's value replaces field Arg.
type handleUpdate struct {
	Type   string
	Arg    string
	Append []binding
	Set    []binding
}

// askInput is an input asked from the user (input_required, an
// elicitation form) when the model leaves it out.
type askInput struct {
	Arg     string
	Message string
	// Schema is the property's JSON Schema: a primitive type.
	Schema string
}

// rateLimit is a token bucket per caller: PerMinute calls per minute
// sustained, Burst at once.
type rateLimit struct {
	PerMinute float64
	Burst     int
}

// securityScheme says how to attach one kind of upstream credential.
type securityScheme struct {
	// Name is the scheme's key in the spec's securitySchemes.
	Name string
	// Kind is "apiKey", "bearer" or "basic".
	Kind string
	// In and ParamName place an apiKey: In is "header", "query" or "cookie".
	In        string
	ParamName string
	// EnvVar holds the API key or bearer token, or for basic the user name.
	EnvVar string
	// PasswordEnv holds the basic-auth password; empty for other kinds.
	PasswordEnv string
}

// toolSpec describes one MCP tool and how a call maps onto the upstream.
type toolSpec struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the tool's JSON Schema 2020-12 input schema as JSON.
	InputSchema string
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// Op is the single upstream operation the tool calls; nil when the
	// tool has Steps or Actions.
	Op *operation

	// Aggregation (issue 3).
	//
	// Steps make an aggregated tool: each step calls one operation with
	// arguments bound from the tool's input, constants, configuration and
	// earlier steps' results. Independent steps run concurrently.
	Steps []*step
	// Actions make an action tool: the "action" input picks the steps.
	Actions []*action
	// Output shapes the result; nil returns it unchanged.
	Output *outputShape

	// Resilience (issue 4). Zero values mean the runtime defaults.
	//
	// TimeoutMillis bounds the whole call, retries included (default
	// Options.Timeout, 10 s).
	TimeoutMillis int
	// MaxConcurrent bounds this tool's upstream calls in flight (0: only
	// the server-wide limit).
	MaxConcurrent int
	// Sensitive names input properties whose values are redacted in logs.
	Sensitive []string
	// OutputSchema, when set, is checked against JSON responses (see
	// serverSpec.StrictOutput); StrictOutput makes this tool strict.
	OutputSchema string
	StrictOutput bool
	// ErrorMessages overrides serverSpec.ErrorMessages for this tool.
	ErrorMessages map[string]string

	// State and access (issue 5).
	//
	// HandleInputs are resolved to upstream ids before anything runs.
	HandleInputs []handleInput
	// CreatesHandle returns a new handle for an id in the result.
	CreatesHandle *handleOutput
	// UpdatesHandle makes a pure state tool that creates or grows a state
	// handle. A tool with neither Op, Steps, Actions nor UpdatesHandle
	// returns the state of its (one) state handle input.
	UpdatesHandle *handleUpdate
	// ConsumesHandle names a handle input whose handle is deleted once
	// the tool succeeded.
	ConsumesHandle string
	// Asks are asked from the user when missing; Confirm, when set, is a
	// question the user must accept before the tool runs (a template
	// over ${input.NAME}).
	Asks    []askInput
	Confirm string
	// Scopes are required of the caller's verified token.
	Scopes []string
	// RateLimit replaces serverSpec.RateLimit for this tool.
	RateLimit *rateLimit
}

// operation is one upstream HTTP operation.
type operation struct {
	Method string
	// Path is the OpenAPI path template, e.g. "/pet/{petId}".
	Path   string
	Params []param
	Body   *body
	// Security lists alternative requirements (any one suffices), each a
	// set of scheme names that must all be applied. Nil or empty: no auth.
	Security [][]string

	// Resilience (issue 4).
	//
	// Retry overrides automatic retries: "" retries idempotent methods
	// (GET, HEAD, PUT, DELETE, OPTIONS) and calls with an idempotency key,
	// "always" retries any method, "never" disables retries.
	Retry string
	// IdempotencyKeyHeader, e.g. "Idempotency-Key", sends a fresh random
	// key per tool call (the same on every retry) and makes it retryable.
	IdempotencyKeyHeader string
}

// step is one operation call of an aggregated or action tool.
type step struct {
	// ID names the step in bindings and in the merged result.
	ID string
	Op *operation
	// Args give the operation's arguments (the names its params and body
	// fields read) their values.
	Args []binding
	// Optional steps may fail; the failure is reported in the result.
	Optional bool
	// When names a tool input: the step runs only when it is present and
	// not false.
	When string
	// After lists step IDs whose results this step reads.
	After []string
}

// binding gives one argument its value: Expr is a ${...} reference or a
// template mixing text and references (roots input, steps, env, config,
// identity); Const is a JSON constant; Fields build an object.
type binding struct {
	Arg    string
	Expr   string
	Const  string
	Fields []binding
}

// action is one value of an action tool's "action" input.
type action struct {
	Name  string
	Steps []*step
	// Required lists inputs this action needs.
	Required []string
}

// outputShape shapes a tool's result.
type outputShape struct {
	// Pick keeps these fields (name → path like "a.b", "items[].id");
	// with ListPath set, paths are relative to each list item.
	Pick []pick
	// ListPath names the array to truncate ("" for the root) to Limit
	// items; PageInput is the input that selects the next page.
	ListPath  string
	Limit     int
	PageInput string
	// Hints are extra fields; values are templates over ${result.PATH}
	// and ${input.NAME}.
	Hints []pick
}

// pick maps a result field onto a path or template.
type pick struct {
	Name string
	Path string
}

// Parameter locations.
const (
	inPath   = "path"
	inQuery  = "query"
	inHeader = "header"
	inCookie = "cookie"
)

// param maps one tool input property onto one HTTP parameter.
type param struct {
	// Name is the parameter's name on the wire.
	Name string
	// Arg is the tool input property holding its value.
	Arg string
	// In is one of inPath, inQuery, inHeader, inCookie.
	In string
	// Style is the OpenAPI style, resolved to its default when absent:
	// "simple", "label", "matrix", "form", "spaceDelimited",
	// "pipeDelimited" or "deepObject".
	Style         string
	Explode       bool
	AllowReserved bool
	Required      bool
}

// body describes the request body of an operation.
type body struct {
	// MediaType is sent as Content-Type: "application/json" (or another
	// JSON type), "application/x-www-form-urlencoded", "multipart/form-data",
	// or anything else, which is sent as the raw string of Arg.
	MediaType string
	Required  bool
	// Arg, when set, names the input property that holds the whole body
	// (used when the body cannot be flattened, e.g. it is an array).
	Arg string
	// Fields lists flattened body properties: input property Arg becomes
	// body property Name. Used when Arg is empty.
	Fields []bodyField
}

// bodyField maps one tool input property onto one body property.
type bodyField struct {
	Name string
	Arg  string
}
