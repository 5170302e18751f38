package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"

// SchemaDialect is the $schema of every input schema the generator
// writes (JSON Schema 2020-12), the one dialect the runtime validates.
const SchemaDialect = jsonschema.Dialect2020

// Schema is a compiled JSON Schema, the one the runtime validates with.
type Schema = jsonschema.Schema

// Fragments compiles schemas that refer into one shared document.
type Fragments = jsonschema.Fragments

// UnsupportedError lists the keywords of a schema the runtime refuses.
type UnsupportedError = jsonschema.UnsupportedError

// UnsupportedKeyword is one refused keyword and why.
type UnsupportedKeyword = jsonschema.UnsupportedKeyword

// FormatUse is a format a schema names that the runtime does not assert.
type FormatUse = jsonschema.FormatUse

// ValidationError is a value that failed a schema, one problem per rule.
type ValidationError = jsonschema.ValidationError

// CompileSchema compiles JSON Schema text strictly, as a generated
// server does at start.
func CompileSchema(text string) (*Schema, error) { return jsonschema.Compile(text) }

// CompileSchemaValue is CompileSchema for a schema already decoded.
func CompileSchemaValue(v any) (*Schema, error) { return jsonschema.CompileValue(v) }

// NewFragments returns a compiler for sub-schemas of doc.
func NewFragments(doc any) *Fragments { return jsonschema.NewFragments(doc) }

// DecodeJSON decodes JSON text as the runtime does (numbers kept exact).
func DecodeJSON(text string) (any, error) { return jsonschema.DecodeJSON(text) }

// EscapePointerToken writes tok as one JSON pointer token (~ as ~0, / as
// ~1), the runtime's rule.
func EscapePointerToken(tok string) string { return jsonschema.EscapeToken(tok) }

// UnescapePointerToken reads one JSON pointer token, the runtime's rule.
func UnescapePointerToken(tok string) string { return jsonschema.UnescapeToken(tok) }
