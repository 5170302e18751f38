// Package overrides reads the oa2mcp override file: a versioned YAML file
// that turns "the API as built" into the few task-level tools people ask
// for. It selects operations, sets server metadata, aggregates operations
// into tools made of steps or actions, rewrites inputs and shapes outputs.
//
// The file is decoded strictly: every unknown key, wrong type or dangling
// reference is reported with its line and column, all at once. The format
// is documented with an example per feature in docs/overrides.md and
// published as a JSON Schema in overrides/schema.json.
package overrides

// File is an override file.
type File struct {
	// Version must be 1.
	Version int     `yaml:"version" json:"version"`
	Server  Server  `yaml:"server" json:"server"`
	Select  Select  `yaml:"select" json:"select"`
	Tools   []*Tool `yaml:"tools" json:"tools"`
	// Config holds named values that bindings read as ${config.NAME}.
	Config map[string]string `yaml:"config" json:"config"`
	// Handles declares handle types: opaque, caller-owned names for
	// upstream objects (e.g. a ticket) that one tool returns and later
	// tools take as a parameter. Keyed by type name.
	Handles map[string]*HandleType `yaml:"handles" json:"handles"`
	// Resources serve GET operations as MCP resources (resources/read),
	// opt-in per operation.
	Resources []*Resource `yaml:"resources" json:"resources"`

	// Path is the file the overrides were read from; set by Read.
	Path string `yaml:"-" json:"-"`
	// pos maps YAML paths ("tools[0].steps[1].operation") to positions.
	pos positions
	// refused are the paths whose values did not decode (already
	// reported); the file holds zero values there.
	refused map[string]bool
}

// Server sets server-level metadata.
type Server struct {
	Name         string `yaml:"name" json:"name"`
	Title        string `yaml:"title" json:"title"`
	Version      string `yaml:"version" json:"version"`
	Instructions string `yaml:"instructions" json:"instructions"`
	ToolPrefix   string `yaml:"tool_prefix" json:"tool_prefix"`
	// PassHeaders is the allowlist of inbound HTTP request headers copied
	// onto upstream requests (e.g. Accept-Language). Never all headers;
	// Authorization, Cookie, Host and Mcp-* are refused.
	PassHeaders []string `yaml:"pass_headers" json:"pass_headers"`
	// RateLimit limits tool calls per caller (token bucket); tools may set
	// their own.
	RateLimit *RateLimit `yaml:"rate_limit" json:"rate_limit"`
	// Extend names a function the generated package's own hand-written
	// code defines, func(Options) Options, that New and Main apply to
	// every Options: the place for hand-written tools, middleware and
	// shared stores. The generated code does not compile until it exists.
	Extend string `yaml:"extend" json:"extend"`
	// HandleStore chooses where handles live: "memory" (default, one
	// process) or "redis" (adds the Redis store to the generated code and
	// the go-redis dependency; the URL is given at run time).
	HandleStore string `yaml:"handle_store" json:"handle_store"`
	// AllowRedirectHosts lists the hosts ("host" for the scheme's default
	// port, or "host:port") an upstream redirect may lead to besides the
	// base URL's own scheme, host and port. Off by default: a redirect to
	// any other origin is an error. A hop to a listed host carries no
	// credentials, caller headers or Referer.
	AllowRedirectHosts []string `yaml:"allow_redirect_hosts" json:"allow_redirect_hosts"`
	// Redact lists further input names (any tool) whose values are never
	// logged and are removed from upstream error text: exact names, or
	// case-insensitive globs with * such as "*_pin".
	Redact []string `yaml:"redact" json:"redact"`
	// UpstreamAuth says, per security scheme of the spec (an oauth2 or
	// openIdConnect entry of components.securitySchemes), whose account
	// the server uses upstream: "service" (one token from the
	// environment, the default), "per_user" (each caller connects their
	// own account) or "exchange" (RFC 8693 token exchange). Keyed by
	// scheme name.
	UpstreamAuth map[string]*UpstreamAuth `yaml:"upstream_auth" json:"upstream_auth"`
}

// UpstreamAuth is the upstream authentication of one security scheme.
type UpstreamAuth struct {
	// Mode is "service" (default), "per_user" (OAuth 2.0 authorization
	// code with PKCE S256; tokens stored per caller, encrypted) or
	// "exchange" (RFC 8693: the caller's verified MCP access token is
	// exchanged for an upstream token).
	Mode string `yaml:"mode" json:"mode"`
	// AuthorizationURL is the authorization endpoint (per_user); default
	// the scheme's flows.authorizationCode.authorizationUrl.
	AuthorizationURL string `yaml:"authorization_url" json:"authorization_url"`
	// TokenURL is the token endpoint: for per_user default the scheme's
	// flows.authorizationCode.tokenUrl; required for exchange.
	TokenURL string `yaml:"token_url" json:"token_url"`
	// Scopes are always asked (per_user), besides the scopes the called
	// tool's operations declare for the scheme.
	Scopes []string `yaml:"scopes" json:"scopes"`
	// Audience is the exchange's audience parameter (optional).
	Audience string `yaml:"audience" json:"audience"`
	// Resource is the exchange's resource parameter, a URL (optional).
	Resource string `yaml:"resource" json:"resource"`
}

// HandleType is one kind of handle.
type HandleType struct {
	// Prefix starts every handle value, e.g. "tkt_": 2 to 16 letters or
	// digits ending in "_" or "-".
	Prefix string `yaml:"prefix" json:"prefix"`
	// Lifetime is how long a handle lives, e.g. "30m", "24h", "7d".
	Lifetime string `yaml:"lifetime" json:"lifetime"`
	// Expiry is "sliding" (default: every use restarts the lifetime) or
	// "fixed" (the lifetime counts from creation).
	Expiry string `yaml:"expiry" json:"expiry"`
	// State makes the handle name server-side state (a JSON object that
	// tools with updates_handle grow over calls, e.g. a basket) instead of
	// an upstream id.
	State bool `yaml:"state" json:"state"`
	// Description says what a handle names, e.g. "after-sales ticket".
	Description string `yaml:"description" json:"description"`
}

// CreatesHandle makes a tool return a new handle for an upstream id found
// in its result.
type CreatesHandle struct {
	// Type is a handle type declared under handles:.
	Type string `yaml:"type" json:"type"`
	// From is the path of the upstream id in the tool's result, e.g.
	// "ticket_id" (a picked field) or "id".
	From string `yaml:"from" json:"from"`
	// Field names the result field holding the handle; default
	// TYPE_handle, e.g. ticket_handle.
	Field string `yaml:"field" json:"field"`
}

// RateLimit is a token bucket per caller.
type RateLimit struct {
	// PerMinute is the sustained number of calls per caller per minute.
	PerMinute float64 `yaml:"per_minute" json:"per_minute"`
	// Burst is how many calls may come at once (default: PerMinute/10, at
	// least 1).
	Burst int `yaml:"burst" json:"burst"`
}

// Select chooses which operations the server exposes.
type Select struct {
	// Include keeps only operations matching any rule; empty keeps all.
	Include []Match `yaml:"include" json:"include"`
	// Exclude drops operations matching any rule, after Include.
	Exclude []Match `yaml:"exclude" json:"exclude"`
	// Unused says what happens to selected operations no task tool uses:
	// "keep" makes them one-to-one tools, "drop" leaves them out,
	// "discover" serves them through the tools search_operations,
	// describe_operation and call_operation. The default is "drop" when
	// the file declares tools, else "keep".
	Unused string `yaml:"unused" json:"unused"`
}

// UnusedDiscover is the select.unused value of discovery mode.
const UnusedDiscover = "discover"

// Match selects operations; all given fields must match.
type Match struct {
	Operation string `yaml:"operation" json:"operation"`
	Tag       string `yaml:"tag" json:"tag"`
	Method    string `yaml:"method" json:"method"`
	// Path is a glob over the path template: "*" matches within one
	// segment, "**" across segments.
	Path string `yaml:"path" json:"path"`
}

// Tool declares one task-level tool. Exactly one of Operation, Steps and
// Actions is set, or none for a pure state tool (UpdatesHandle, or one
// required handle input of a state type, whose state it returns).
type Tool struct {
	Name        string       `yaml:"name" json:"name"`
	Title       string       `yaml:"title" json:"title"`
	Description string       `yaml:"description" json:"description"`
	Annotations *Annotations `yaml:"annotations" json:"annotations"`
	// Examples are example argument objects, appended to the description.
	Examples []map[string]any `yaml:"examples" json:"examples"`

	// Operation makes a tool from one operation (by operationId).
	Operation string `yaml:"operation" json:"operation"`
	// Steps makes a tool that calls several operations.
	Steps []*Step `yaml:"steps" json:"steps"`
	// Actions makes a tool with an "action" input choosing what it does.
	Actions map[string]*Action `yaml:"actions" json:"actions"`

	// Input rewrites the tool's input properties, keyed by their name in
	// the default mapping (or, for step tools, by the ${input.NAME} used).
	Input map[string]*Field `yaml:"input" json:"input"`
	// Output shapes the result.
	Output *Output `yaml:"output" json:"output"`

	// CreatesHandle makes the tool return a handle for an upstream id in
	// its result; the description then states the handle's lifetime.
	CreatesHandle *CreatesHandle `yaml:"creates_handle" json:"creates_handle"`
	// UpdatesHandle makes the tool create or update a state handle; such
	// a tool may have no operation, steps or actions (a pure state tool).
	UpdatesHandle *UpdatesHandle `yaml:"updates_handle" json:"updates_handle"`
	// ConsumesHandle names a handle input whose handle is deleted once
	// the tool succeeded (e.g. a basket once ordered).
	ConsumesHandle string `yaml:"consumes_handle" json:"consumes_handle"`
	// Confirm makes the tool ask the user to confirm before it runs (an
	// input_required elicitation); the text is the question and may read
	// ${input.NAME}.
	Confirm string `yaml:"confirm" json:"confirm"`
	// InputRequestKey names the tool's one input request in
	// input_required results and the answer in inputResponses (default
	// oa2mcp_input); it needs an ask input or confirm.
	InputRequestKey string `yaml:"input_request_key" json:"input_request_key"`
	// Scopes are required of the caller's verified token (all of them).
	Scopes []string `yaml:"scopes" json:"scopes"`
	// RateLimit replaces the server's rate limit for this tool.
	RateLimit *RateLimit `yaml:"rate_limit" json:"rate_limit"`
	// IdempotencyHeader names the header parameter (e.g. Idempotency-Key)
	// that gets a fresh key per tool call when the model gives none, the
	// same on every retry.
	IdempotencyHeader string `yaml:"idempotency_header" json:"idempotency_header"`
}

// UpdatesHandle makes a tool create or grow the state of a state handle.
type UpdatesHandle struct {
	// Type is a handle type declared with state: true.
	Type string `yaml:"type" json:"type"`
	// Input names the optional tool input holding the handle: absent, a
	// new handle is created; present, its state is updated.
	Input string `yaml:"input" json:"input"`
	// Append appends each binding's value to the array FIELD of the state.
	Append map[string]any `yaml:"append" json:"append"`
	// Set replaces FIELD of the state with each binding's value.
	Set map[string]any `yaml:"set" json:"set"`
}

// Annotations override the hints derived from HTTP methods.
type Annotations struct {
	ReadOnly    *bool `yaml:"read_only" json:"read_only"`
	Destructive *bool `yaml:"destructive" json:"destructive"`
	Idempotent  *bool `yaml:"idempotent" json:"idempotent"`
	OpenWorld   *bool `yaml:"open_world" json:"open_world"`
}

// Step calls one operation as part of a tool.
type Step struct {
	// ID names the step for ${steps.ID...} bindings and in the result.
	ID        string `yaml:"id" json:"id"`
	Operation string `yaml:"operation" json:"operation"`
	// Args binds the operation's inputs (by their default-mapping names)
	// to expressions: ${input.X}, ${steps.ID.body.PATH}, ${env.VAR},
	// ${config.NAME}, or a constant.
	Args map[string]any `yaml:"args" json:"args"`
	// Optional steps may fail without failing the tool; the failure is
	// reported in the result.
	Optional bool `yaml:"optional" json:"optional"`
	// When names a boolean or optional input: the step runs only when
	// that input is present and not false.
	When string `yaml:"when" json:"when"`
}

// Action is one value of an action tool's "action" input.
type Action struct {
	Description string `yaml:"description" json:"description"`
	// Operation or Steps, as for a tool.
	Operation string  `yaml:"operation" json:"operation"`
	Steps     []*Step `yaml:"steps" json:"steps"`
	// Input rewrites this action's inputs, as a tool's input: does; for
	// a name both give, the action's entry replaces the tool's.
	Input map[string]*Field `yaml:"input" json:"input"`
	// Output shapes this action's result, instead of the tool's output:.
	Output *Output `yaml:"output" json:"output"`
}

// Field rewrites one input property.
type Field struct {
	// Rename gives the property a new name in the tool's schema.
	Rename      string `yaml:"rename" json:"rename"`
	Description string `yaml:"description" json:"description"`
	// Type declares the type of a step tool's input (string, integer,
	// number, boolean, array, object) when no operation parameter gives it.
	Type     string   `yaml:"type" json:"type"`
	Required *bool    `yaml:"required" json:"required"`
	Default  any      `yaml:"default" json:"default"`
	Enum     []any    `yaml:"enum" json:"enum"`
	Pattern  string   `yaml:"pattern" json:"pattern"`
	Format   string   `yaml:"format" json:"format"`
	Minimum  *float64 `yaml:"minimum" json:"minimum"`
	Maximum  *float64 `yaml:"maximum" json:"maximum"`
	MinLen   *uint64  `yaml:"min_length" json:"min_length"`
	MaxLen   *uint64  `yaml:"max_length" json:"max_length"`
	Examples []any    `yaml:"examples" json:"examples"`
	// Drop removes an optional property from the tool.
	Drop bool `yaml:"drop" json:"drop"`
	// Value hides the property and always sends this constant.
	Value any `yaml:"value" json:"value"`
	// Env hides the property and sends the value of this environment
	// variable; Config the value of a config entry.
	Env    string `yaml:"env" json:"env"`
	Config string `yaml:"config" json:"config"`
	// Identity hides the property and fills it from the authenticated
	// caller's identity claim (e.g. "sub"); the model never sees it.
	Identity string `yaml:"identity" json:"identity"`
	// Flatten lifts the properties of a nested object input to the top
	// level: "address" with flatten turns address.city into city.
	Flatten bool `yaml:"flatten" json:"flatten"`
	// Variants narrows a union input (oneOf or anyOf) to the variants
	// listed, each named by its schema name (CardDetails), title, or the
	// value of the property that tells the variants apart ("scheme").
	// One variant left replaces the union.
	Variants []string `yaml:"variants" json:"variants"`
	// Handle makes the input take a handle of this type instead of the
	// upstream id; the server resolves it and checks owner and expiry.
	Handle string `yaml:"handle" json:"handle"`
	// Ask makes the input optional for the model: when missing, the user
	// is asked (input_required elicitation); the text is the question.
	Ask string `yaml:"ask" json:"ask"`
	// MCPHeader mirrors the input in the Mcp-Param-NAME HTTP header
	// (x-mcp-header) for gateways. Only string, integer and boolean
	// inputs; never secrets or personal data.
	MCPHeader string `yaml:"mcp_header" json:"mcp_header"`
	// Sensitive marks the input as a secret or personal data: its value
	// is never logged and is removed from upstream error text, besides
	// what format: password, writeOnly and the name rule already hide.
	Sensitive bool `yaml:"sensitive" json:"sensitive"`
}

// Output shapes a tool's result.
type Output struct {
	// Pick keeps only these fields: result name → path into the result
	// ("id", "category.name", "tags[].name"). With several steps the result
	// is keyed by step id ("progress.events"); "steps.progress.body.events"
	// is accepted too.
	Pick map[string]string `yaml:"pick" json:"pick"`
	// List truncates the array at Path ("" for the root) to Limit items.
	List *List `yaml:"list" json:"list"`
	// Hints are constant or templated fields added to the result; a
	// template reads ${result.PATH} and ${input.NAME}.
	Hints map[string]string `yaml:"hints" json:"hints"`
}

// List controls truncation of long lists.
type List struct {
	Path string `yaml:"path" json:"path"`
	// Limit defaults to 20.
	Limit int `yaml:"limit" json:"limit"`
	// PageInput names the input that selects the next page (e.g. "offset"
	// or "page"); the result then tells the model what to pass.
	PageInput string `yaml:"page_input" json:"page_input"`
	// Total is the path of the total count in the result when the
	// upstream pages the list itself (the page input is passed to it);
	// default: a number named total, totalCount, total_count or count
	// beside the list.
	Total string `yaml:"total" json:"total"`
	// PageKind says what the page input counts: "offset" (default), the
	// items to skip, or "number", pages from 1 of Limit items each
	// (page=2&per_page=20). Limit must then equal the upstream's page
	// size.
	PageKind string `yaml:"page_kind" json:"page_kind"`
}

// Resource serves the tool of one GET operation as an MCP resource or
// resource template: resources/read of a URI matching URITemplate calls
// the tool with the URI's variables as its arguments.
type Resource struct {
	// Operation is the operationId of a GET operation that a tool calls
	// alone (its default tool, or an override tool with operation:).
	Operation string `yaml:"operation" json:"operation"`
	// URITemplate is "scheme://path/{input}": simple {name} variables, each
	// naming an input of the tool (after input rewriting) and filling one
	// path segment; every required input must be a variable. Without
	// variables the resource is listed by resources/list.
	URITemplate string `yaml:"uri_template" json:"uri_template"`
	// Name defaults to the tool's name, Description to the tool's.
	Name        string `yaml:"name" json:"name"`
	Title       string `yaml:"title" json:"title"`
	Description string `yaml:"description" json:"description"`
	// MimeType defaults to the operation's success media type, else
	// application/json.
	MimeType string `yaml:"mime_type" json:"mime_type"`
}
