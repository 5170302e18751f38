package runtime

// The definition types below are the one contract between oa2mcp and this
// package: the generator fills them (its IR is made of these very types)
// and renders them as Go literals; NewServer and Main serve them. A field
// added here is rendered by the generator without further code, and a
// round-trip test in the generator fails when one cannot be.

// ServerDef describes one MCP server: its identity, its upstream API and
// its tools.
type ServerDef struct {
	// Name is the MCP implementation name, e.g. "petstore".
	Name         string
	Title        string
	Version      string
	Instructions string
	// DefaultBaseURL is the first server URL of the OpenAPI document; may
	// be empty or relative, in which case it must be configured.
	DefaultBaseURL string
	// EnvPrefix starts every environment variable the server reads, e.g.
	// "PETSTORE" for PETSTORE_BASE_URL and PETSTORE_HANDLE_STORE.
	EnvPrefix string
	// Security lists the upstream credential schemes, sorted by Name.
	Security []SecurityScheme
	// Config holds values bindings read as ${config.NAME}.
	Config map[string]string
	// Tools are sorted by Name.
	Tools []*Tool

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
	// ErrorMessages replaces the guidance sentence of upstream errors,
	// keyed by HTTP status ("404", "4xx", "5xx") or by an upstream error
	// code found in the body ("code", "error.code", "type"); a tool's own
	// ErrorMessages win.
	ErrorMessages map[string]string
	// Sensitive names further argument properties (any tool) whose values
	// are redacted in logs, besides names like password, token, secret,
	// key and authorization.
	Sensitive []string

	// Handles are the handle types tools create and take, sorted by Name.
	Handles []HandleType
	// PassHeaders is the allowlist of inbound HTTP headers (canonical
	// form) copied onto every upstream request when the client sent them.
	PassHeaders []string
	// RateLimit limits tool calls per caller; nil: unlimited.
	RateLimit *RateLimit
	// RedirectHosts are the hosts ("host" for the scheme's default port,
	// or "host:port") an upstream redirect may lead to besides the base
	// URL's own scheme, host and port. A hop there carries no credentials,
	// caller headers or Referer; a redirect anywhere else is refused.
	RedirectHosts []string

	// Discovery, when set, serves the operations no tool covers through
	// search_operations, describe_operation and call_operation.
	Discovery *Discovery

	// Resources are the tools served as MCP resources (resources.go),
	// sorted by URITemplate.
	Resources []Resource
}

// Resource serves a read-only tool as an MCP resource: resources/read of
// a URI matching URITemplate calls Tool with the URI's variables as its
// arguments. A template without variables is a plain resource (listed
// by resources/list), else a resource template.
type Resource struct {
	// URITemplate is "scheme://literal/{var}/...": level-1 variables
	// only, each a whole path segment's worth of text, named like the
	// tool's inputs.
	URITemplate string
	Name        string
	Title       string
	Description string
	// MIMEType is what a read returns, e.g. "application/json".
	MIMEType string
	// Tool is the name of the tool a read calls.
	Tool string
}

// HandleType is one kind of handle: an opaque, caller-owned name for an
// upstream object (e.g. a ticket id) or for server-side state.
type HandleType struct {
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
	// Description says what a handle names, e.g. "after-sales ticket".
	Description string
	// Creators name the tools that return one, sorted, for error messages.
	Creators []string
}

// HandleInput is a tool input resolved from a handle of Type.
type HandleInput struct {
	Arg  string
	Type string
}

// HandleOutput adds a new handle to a tool's result: From is the path of
// the upstream id in the shaped result, Field the result field for the
// handle.
type HandleOutput struct {
	Type  string
	From  string
	Field string
}

// HandleUpdate makes a pure state tool (no upstream call) create or
// update a state handle: when input Arg is absent a new handle of Type is
// created; each Append binding's value is appended to the array field
// Arg of the state, each Set binding's value replaces field Arg.
type HandleUpdate struct {
	Type   string
	Arg    string
	Append []Binding
	Set    []Binding
}

// Ask is an input asked from the user (input_required, an elicitation
// form) when the model leaves it out.
type Ask struct {
	Arg     string
	Message string
	// Schema is the property's JSON Schema: a primitive type.
	Schema string
}

// RateLimit limits the calls of each caller: PerMinute calls per minute
// sustained, Burst at once (0: a tenth of PerMinute, at least 1).
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// Credential kinds of a SecurityScheme.
const (
	APIKey = "apiKey"
	Bearer = "bearer"
	Basic  = "basic"
)

// SecurityScheme says how to attach one kind of upstream credential.
type SecurityScheme struct {
	// Name is the scheme's key in the spec's securitySchemes.
	Name string
	// Kind is APIKey, Bearer or Basic.
	Kind string
	// In and ParamName place an APIKey: In is "header", "query" or "cookie".
	In        string
	ParamName string
	// EnvVar holds the API key or bearer token, or for Basic the user name.
	EnvVar string
	// PasswordEnv holds the Basic password; empty for other kinds.
	PasswordEnv string
	// Description is the scheme's description, for documentation.
	Description string
	// UpstreamAuth, when set, makes a Bearer scheme's token one per caller
	// (per_user or exchange mode) instead of the one in EnvVar, which is
	// then empty.
	UpstreamAuth *UpstreamAuth
}

// Upstream credential modes of UpstreamAuth.Mode. Service (no
// UpstreamAuth) reads one credential from the environment.
const (
	ModeService  = "service"
	ModePerUser  = "per_user"
	ModeExchange = "exchange"
)

// UpstreamAuth says how a caller's own upstream token is obtained.
type UpstreamAuth struct {
	// Mode is ModePerUser (OAuth 2.0 authorization code with PKCE, the
	// caller connects their account) or ModeExchange (RFC 8693: the
	// caller's verified MCP access token is exchanged).
	Mode string
	// AuthorizationURL is the authorization endpoint (per_user).
	AuthorizationURL string
	// TokenURL is the token endpoint (both modes).
	TokenURL string
	// Scopes are always asked (per_user), besides the scopes the called
	// operations declare for the scheme; sorted.
	Scopes []string
	// Audience and Resource are sent with a token exchange when set.
	Audience string
	Resource string
	// ClientIDEnv and ClientSecretEnv name the environment variables of
	// the OAuth client registered at the authorization server.
	ClientIDEnv     string
	ClientSecretEnv string
}

// SchemeScopes are the OAuth scopes an operation declares for one scheme.
type SchemeScopes struct {
	Scheme string
	Scopes []string
}

// Tool describes one MCP tool and how a call maps onto the upstream.
// Exactly one of Op, Steps, Actions, UpdatesHandle and Handler does the
// work, or none for a tool that returns the state of its one state handle
// input.
type Tool struct {
	Name        string
	Title       string
	Description string
	// InputSchema is the tool's JSON Schema 2020-12 input schema as JSON.
	InputSchema string
	// OutputSchema, when set, is the JSON Schema of every successful
	// result's structuredContent; results are checked against it.
	OutputSchema string
	ReadOnly     bool
	Destructive  bool
	Idempotent   bool
	OpenWorld    bool
	// Op is the single upstream operation the tool calls, its parameters
	// reading the tool's inputs by name.
	Op *Operation
	// Steps make an aggregated tool: each step calls one operation with
	// arguments bound from the tool's input, constants, configuration and
	// earlier steps' results. Independent steps run concurrently.
	Steps []Step
	// Actions make an action tool: the "action" input picks the steps.
	// Sorted by Name.
	Actions []Action
	// Output shapes the result; nil returns it unchanged.
	Output *Output

	// TimeoutMillis bounds the whole call, retries included (default
	// Options.Timeout, 10 s).
	TimeoutMillis int
	// MaxConcurrent bounds this tool's upstream calls in flight (0: only
	// the server-wide limit).
	MaxConcurrent int
	// Sensitive names input properties whose values are redacted in logs.
	Sensitive []string
	// ErrorMessages overrides ServerDef.ErrorMessages for this tool.
	ErrorMessages map[string]string

	// HandleInputs are resolved to upstream ids before anything runs,
	// sorted by Arg.
	HandleInputs []HandleInput
	// CreatesHandle returns a new handle for an id in the result.
	CreatesHandle *HandleOutput
	// UpdatesHandle makes a pure state tool that creates or grows a state
	// handle.
	UpdatesHandle *HandleUpdate
	// ConsumesHandle names a handle input whose handle is deleted once
	// the tool succeeded.
	ConsumesHandle string
	// Asks are asked from the user when missing, sorted by Arg.
	Asks []Ask
	// Confirm, when set, is a question the user must accept before the
	// tool runs (a template over ${input.NAME}).
	Confirm string
	// InputKey names the tool's one input request in input_required
	// results (and the answer in inputResponses); "" means oa2mcp_input.
	InputKey string
	// Scopes are required of the caller, sorted.
	Scopes []string
	// RateLimit replaces ServerDef.RateLimit for this tool.
	RateLimit *RateLimit
	// DisconnectsAccount makes the built-in tool that deletes the caller's
	// stored per_user upstream tokens (input "scheme": one scheme, or all
	// when absent). It makes no upstream call.
	DisconnectsAccount bool

	// Handler, when set, makes a hand-written tool: it runs instead of an
	// upstream call, after the same validation, access checks, limits and
	// logging. Build one with NewTool; the generator never sets it.
	Handler Handler `oa2mcp:"-" json:"-"`
}

// Operation is one upstream HTTP operation.
type Operation struct {
	// OperationID is the operation's id in the OpenAPI document, for logs;
	// messages to the model never show it.
	OperationID string
	Method      string
	// Path is the OpenAPI path template, e.g. "/pet/{petId}", without any
	// "#fragment". A query written into the path key ("/responses?beta=true",
	// seen in real documents) is sent as is, before the query parameters.
	Path   string
	Params []Param
	Body   *Body
	// Security lists alternative requirements (any one suffices), each a
	// set of scheme names that must all be applied. Nil or empty: no auth.
	Security [][]string
	// SecurityScopes are the scopes the requirements declare per scheme
	// (the union over alternatives), sorted by Scheme; a per_user scheme
	// asks them when the caller connects.
	SecurityScopes []SchemeScopes
	// Retry overrides automatic retries: "" retries idempotent methods
	// (GET, HEAD, PUT, DELETE, OPTIONS) and calls with an idempotency key,
	// "always" retries any method, "never" disables retries.
	Retry string
	// IdempotencyKeyHeader, e.g. "Idempotency-Key", sends a fresh random
	// key per tool call (the same on every retry) unless an argument sets
	// it, and makes the call retryable.
	IdempotencyKeyHeader string
	// ResponseMedia is the media type of the success response the spec
	// declares when it is not JSON (image/png, text/csv, multipart/mixed):
	// such results are MCP media content (content.go), which the fast
	// paths leave to the SDK.
	ResponseMedia string
}

// Step is one operation call of an aggregated or action tool.
type Step struct {
	// ID names the step in bindings (${steps.ID...}) and in the merged
	// result.
	ID string
	Op Operation
	// Args give the operation's arguments (the names its params and body
	// fields read) their values, sorted by Arg.
	Args []Binding
	// Optional steps may fail; the failure is reported in the result.
	Optional bool
	// When names a tool input: the step runs only when it is present and
	// not false.
	When string
	// After lists the step IDs whose results this step reads, sorted.
	After []string
}

// Binding gives one argument its value: Expr is a ${...} reference or a
// template mixing text and references (roots input, steps, env, config,
// identity, handle; see ParseExpr); Const is a JSON constant; Fields
// build an object (each Arg a field name), omitted when none of them has
// a value; Items build an array, in order, leaving out the elements
// without a value, omitted when none has one.
type Binding struct {
	Arg    string
	Expr   string
	Const  string
	Fields []Binding
	Items  []Binding
	// Required marks a field the object it belongs to needs: when it has
	// no value the whole object is left out, so the operation's own
	// required-argument check refuses the call instead of sending a
	// half-built value.
	Required bool
}

// Action is one value of an action tool's "action" input.
type Action struct {
	Name        string
	Description string
	Steps       []Step
	// Inputs lists every tool input this action reads, sorted; any other
	// input (but "action") is refused when this action is chosen.
	Inputs []string
	// Required lists the inputs this action needs, sorted.
	Required []string
	// Output shapes this action's result; nil: the tool's Output.
	Output *Output
	// OutputSchema, when set, is the exact JSON Schema of this action's
	// structuredContent; its results are checked against it (the tool's
	// OutputSchema is the union of its actions').
	OutputSchema string
}

// Output shapes a tool's result.
type Output struct {
	// Pick keeps these fields (name → path like "a.b", "items[].id"),
	// sorted by Name; with Limit set, paths are relative to each item.
	Pick []Pick
	// ListPath names the array to page ("" for the root) with Limit items
	// a page; PageInput is the input holding the offset of the page.
	ListPath  string
	Limit     int
	PageInput string
	// UpstreamPages: the upstream pages the list itself (the page input
	// is passed to it), so the list it returns is the page; TotalPath is
	// where its answer gives the number of items in all. Otherwise the
	// runtime pages the whole list the upstream returns.
	UpstreamPages bool
	TotalPath     string
	// PageNumbers: the page input counts pages from 1, each Limit items
	// long (page=2&per_page=20), instead of items to skip (offset=20).
	PageNumbers bool
	// Hints are extra fields; values are templates over ${result.PATH}
	// and ${input.NAME}.
	Hints []Pick
}

// Pick maps a result field onto a path or template.
type Pick struct {
	Name string
	Path string
}

// Parameter locations of Param.In.
const (
	InPath   = "path"
	InQuery  = "query"
	InHeader = "header"
	InCookie = "cookie"
)

// Param maps one tool input property onto one HTTP parameter.
type Param struct {
	// Name is the parameter's name on the wire.
	Name string
	// Arg is the tool input property holding its value.
	Arg string
	// In is one of InPath, InQuery, InHeader, InCookie.
	In string
	// Style is the OpenAPI style, resolved to its default when absent:
	// "simple", "label", "matrix", "form", "spaceDelimited",
	// "pipeDelimited" or "deepObject".
	Style         string
	Explode       bool
	AllowReserved bool
	Required      bool
}

// Body describes the request body of an operation.
type Body struct {
	// MediaType is sent as Content-Type: "application/json" (or another
	// JSON type), "application/x-www-form-urlencoded", "multipart/form-data",
	// or anything else, which is sent as the raw string of Arg.
	MediaType string
	Required  bool
	// Arg, when set, names the input property that holds the whole body
	// (used when the body cannot be flattened, e.g. it is an array).
	Arg string
	// Fields lists flattened body properties, sorted by Arg: input
	// property Arg becomes body property Name. Used when Arg is empty.
	Fields []BodyField
}

// BodyField maps one tool input property onto one body property.
type BodyField struct {
	Name string
	Arg  string
	// Required: the body schema requires this property, so a body that is
	// sent must carry it.
	Required bool
}
