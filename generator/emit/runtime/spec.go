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
	// Tools are sorted by name.
	Tools []*toolSpec
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
	// Op is the single upstream operation the tool calls.
	Op *operation
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
