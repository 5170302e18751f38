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
	// GoMod, when set, asks for a go.mod (and go.sum) in the output
	// folder because it lies in no Go module; it holds the module path.
	GoMod string
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
	Call        Call
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
