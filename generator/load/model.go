package load

import "github.com/oa2mcp/oa2mcp/generator/diag"

// This file defines what the loader hands to the rest of the pipeline: plain
// data with no kin-openapi types, so that only this package depends on the
// OpenAPI library and every later stage can be tested with literals.

// Document is a loaded, normalised OpenAPI document. Swagger 2.0 and
// OpenAPI 3.0 inputs are converted to the OpenAPI 3.1 / JSON Schema 2020-12
// vocabulary before they reach this type.
type Document struct {
	// File is the entry file as given by the caller.
	File string
	// Version is the input's own version string, e.g. "2.0", "3.0.4",
	// "3.1.0", "3.2.0".
	Version string
	// Self is the OpenAPI 3.2 $self of the entry document, its base URI;
	// empty when not given.
	Self  string
	Title string
	// Description is info.description, Markdown as written in the spec.
	Description string
	APIVersion  string
	// Servers are the server URLs with variables substituted by their defaults.
	Servers []string
	// Operations are sorted by path, then by method in the order
	// GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE, QUERY, then
	// OpenAPI 3.2 additional operations sorted by method.
	Operations []*Operation
	// SecuritySchemes are keyed by their name in components.securitySchemes.
	SecuritySchemes map[string]*SecurityScheme
	// Security is the document-level requirement: alternatives (OR) of
	// scheme-name sets (AND). Nil means none declared.
	Security [][]string
	// SecurityScopes are the scopes Security declares per scheme.
	SecurityScopes map[string][]string
	// Schemas holds every named schema that some node refers to through
	// Schema.Ref. Names are unique; they come from the last segment of the
	// original $ref and are deduplicated with numeric suffixes.
	Schemas map[string]*Schema
	// Tags maps tag names to their descriptions (a tag's summary when it
	// has no description).
	Tags map[string]string
	// TagDetails lists the declared tags in document order, with the
	// OpenAPI 3.2 fields.
	TagDetails []*Tag
	// Extensions holds the document-level x-oa2mcp-* extensions, decoded
	// from JSON, keyed without the "x-oa2mcp-" prefix.
	Extensions map[string]any
}

// Operation is one HTTP operation.
type Operation struct {
	// ID is the operationId as written; empty when the spec has none.
	ID string
	// Method is upper case for the fixed methods (GET, POST, ..., QUERY);
	// an OpenAPI 3.2 additional operation keeps the spelling of its key,
	// since HTTP methods are case-sensitive ("COPY", "PURGE").
	Method string
	// Path is the path template with any "#fragment" suffix removed.
	Path string
	// RawPath is the path key exactly as written in the spec.
	RawPath     string
	Summary     string
	Description string
	Tags        []string
	Deprecated  bool
	// Parameters merges path-item and operation parameters (operation
	// wins), in spec order.
	Parameters  []*Parameter
	RequestBody *RequestBody
	// Responses are sorted by status ("200", "201", "2XX", "default").
	Responses []*Response
	// Security is the operation's requirement; nil inherits the document's,
	// an empty non-nil slice means "no auth".
	Security [][]string
	// SecurityScopes are the scopes Security declares per scheme (the
	// union over alternatives, sorted); with Security nil, the document's
	// apply.
	SecurityScopes map[string][]string
	// Pos locates the operation in the spec for error messages.
	Pos Position
	// Extensions holds x-oa2mcp-* extensions without the prefix.
	Extensions map[string]any
}

// Parameter is a path, query, header or cookie parameter.
type Parameter struct {
	Name        string
	In          string // "path", "query", "header", "cookie"
	Description string
	Required    bool
	Deprecated  bool
	// Style and Explode are resolved to their OpenAPI defaults when absent.
	Style         string
	Explode       bool
	AllowReserved bool
	Schema        *Schema
	Pos           Position
}

// RequestBody is an operation's request body, reduced to the one media type
// the generator will send.
type RequestBody struct {
	Description string
	Required    bool
	// MediaType is the chosen media type: application/json first, then
	// any other JSON type (+json), x-www-form-urlencoded,
	// multipart/form-data, a sequential type with an item schema, then
	// anything else.
	MediaType string
	// MediaTypes lists every media type the spec offers, sorted.
	MediaTypes []string
	Schema     *Schema
	// Sequential is true when the body is a sequence of items (an
	// OpenAPI 3.2 itemSchema): Schema is then an array of those items.
	Sequential bool
	Pos        Position
}

// Response is one declared response.
type Response struct {
	Status      string
	Description string
	// MediaType is the preferred media type: application/json, then any
	// other JSON type (+json), then a sequential one with an item schema,
	// then the first in sorted order.
	MediaType string
	Schema    *Schema
	// Sequential is true when the body is a sequence of items (an OpenAPI
	// 3.2 itemSchema, as for JSON Lines or server-sent events): Schema is
	// then an array of those items.
	Sequential bool
}

// Tag is one declared tag.
type Tag struct {
	Name        string
	Summary     string // OpenAPI 3.2: a short label
	Description string
	Parent      string // OpenAPI 3.2: the name of the tag this one nests under
	Kind        string // OpenAPI 3.2: e.g. "nav", "badge", "audience"
}

// SecurityScheme is a components.securitySchemes entry.
type SecurityScheme struct {
	Name        string
	Type        string // "apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"
	Scheme      string // for http: "bearer", "basic", ...
	In          string // for apiKey: "header", "query", "cookie"
	ParamName   string // for apiKey: the header, query or cookie name
	Description string
	// AuthorizationURL and TokenURL are the oauth2 scheme's authorization
	// code flow endpoints, when it declares that flow.
	AuthorizationURL string
	TokenURL         string
}

// Schema is a JSON Schema 2020-12 node. A node with Ref set is only a
// reference to Document.Schemas[Ref]; its other fields are empty.
type Schema struct {
	Ref string

	// Type is a single JSON type name or empty; Nullable records that
	// null is also allowed (OpenAPI 3.0 nullable, or a 3.1 type array that
	// pairs one type with "null"). Types holds a 3.1 type array with more
	// than one non-null member.
	Type     string
	Types    []string
	Nullable bool

	Title       string
	Description string
	Format      string
	Pattern     string
	Enum        []any
	Const       any
	HasConst    bool
	Default     any
	HasDefault  bool
	Examples    []any

	Minimum          *float64
	Maximum          *float64
	ExclusiveMinimum *float64
	ExclusiveMaximum *float64
	MultipleOf       *float64
	MinLength        *uint64
	MaxLength        *uint64
	MinItems         *uint64
	MaxItems         *uint64
	UniqueItems      bool
	MinProperties    *uint64
	MaxProperties    *uint64

	Items       *Schema
	PrefixItems []*Schema

	// Properties are keyed by property name; PropertyOrder lists the keys
	// sorted, so that consumers never range over the map.
	Properties    map[string]*Schema
	PropertyOrder []string
	Required      []string
	// AdditionalProperties is nil when unspecified; NoAdditional is true
	// for additionalProperties: false.
	AdditionalProperties *Schema
	NoAdditional         bool

	AllOf []*Schema
	AnyOf []*Schema
	OneOf []*Schema
	Not   *Schema
	// If, Then and Else are the 2020-12 conditional (OpenAPI 3.1).
	If, Then, Else *Schema
	// Anchor is the 2020-12 $anchor (OpenAPI 3.1): a plain name by which
	// the schema can be referenced, kept so that tools list it as written.
	Anchor string

	ReadOnly   bool
	WriteOnly  bool
	Deprecated bool
}

// Resolve follows Ref nodes to the named schema they stand for; nil for
// a dangling reference. Chains of references are followed 64 deep at
// most, so a cycle of bare references ends.
func (d *Document) Resolve(s *Schema) *Schema {
	for i := 0; s != nil && s.Ref != "" && i < 64; i++ {
		s = d.Schemas[s.Ref]
	}
	return s
}

// Position is a place in a spec file; see [diag.Position].
type Position = diag.Position
