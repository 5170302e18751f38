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

	// Path is the file the overrides were read from; set by Read.
	Path string `yaml:"-" json:"-"`
	// pos maps YAML paths ("tools[0].steps[1].operation") to positions.
	pos positions
}

// Server sets server-level metadata.
type Server struct {
	Name         string `yaml:"name" json:"name"`
	Title        string `yaml:"title" json:"title"`
	Version      string `yaml:"version" json:"version"`
	Instructions string `yaml:"instructions" json:"instructions"`
	ToolPrefix   string `yaml:"tool_prefix" json:"tool_prefix"`
}

// Select chooses which operations the server exposes.
type Select struct {
	// Include keeps only operations matching any rule; empty keeps all.
	Include []Match `yaml:"include" json:"include"`
	// Exclude drops operations matching any rule, after Include.
	Exclude []Match `yaml:"exclude" json:"exclude"`
	// Unused says what happens to selected operations no task tool uses:
	// "keep" makes them one-to-one tools, "drop" leaves them out. The
	// default is "drop" when the file declares tools, else "keep".
	Unused string `yaml:"unused" json:"unused"`
}

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
// Actions is set.
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
}
