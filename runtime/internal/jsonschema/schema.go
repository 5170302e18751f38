package jsonschema

import (
	"encoding/json"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
	"reflect"
	"strconv"
	"strings"
)

// Schema is a compiled JSON Schema (draft 2020-12) as this package
// enforces it on tool inputs and outputs. The generator can compile every
// schema it emits with Compile (oa2mcpimpl.CompileSchema), so a schema the runtime could not
// enforce fails at generation time, not silently at run time.
type Schema struct {
	root    *Node
	formats []FormatUse
}

// Compile compiles a JSON Schema given as JSON text. It is strict:
// every keyword is either enforced exactly as draft 2020-12 says, or an
// annotation that asserts nothing (title, description, default, examples,
// deprecated, readOnly, writeOnly, $comment, $defs, content*, "x-"
// extensions, a root $id, $schema naming draft 2020-12), or the error is
// an *UnsupportedError naming it. A schema that is not valid JSON Schema
// gives a plain error.
func Compile(text string) (*Schema, error) {
	n, formats, err := compileSchemaFormats(text)
	if err != nil {
		return nil, err
	}
	return &Schema{root: n, formats: formats}, nil
}

// CompileValue is Compile for a schema already decoded (maps,
// slices, and numbers as json.Number, float64 or Go integers); it spares a
// generator that builds schemas as values an encode and decode.
func CompileValue(v any) (*Schema, error) {
	n, formats, err := compileValueFormats(v)
	if err != nil {
		return nil, err
	}
	return &Schema{root: n, formats: formats}, nil
}

// UnsupportedError lists every keyword of a schema that the runtime cannot
// enforce, sorted by pointer and keyword.
type UnsupportedError struct {
	Keywords []UnsupportedKeyword
}

// UnsupportedKeyword is one keyword the runtime cannot enforce.
type UnsupportedKeyword struct {
	// Pointer is the JSON pointer (RFC 6901) of the schema object that
	// holds the keyword; "" is the root.
	Pointer string
	Keyword string
	// Reason says why, when it is more than an unknown keyword: a
	// non-local $ref, a pattern Go cannot match, another dialect.
	Reason string
}

func (k UnsupportedKeyword) String() string {
	s := "unsupported keyword " + strconv.Quote(k.Keyword) + " at " + pointerText(k.Pointer)
	if k.Reason != "" {
		s += " (" + k.Reason + ")"
	}
	return s
}

func (e *UnsupportedError) Error() string {
	parts := make([]string, len(e.Keywords))
	for i, k := range e.Keywords {
		parts[i] = k.String()
	}
	them := "it"
	if len(parts) > 1 {
		them = "them"
	}
	return strings.Join(parts, "; ") + "; the runtime cannot enforce " + them
}

// FormatUse is a "format" the runtime does not assert: per draft 2020-12
// it is an annotation only, so values are not checked against it.
type FormatUse struct {
	// Pointer is the JSON pointer of the schema object that holds the
	// format; "" is the root.
	Pointer string
	Format  string
}

// UnassertedFormats lists the formats in the schema that the runtime does
// not assert, sorted by pointer and format, so that the generator can
// report them.
func (s *Schema) UnassertedFormats() []FormatUse {
	return append([]FormatUse(nil), s.formats...)
}

// ValidationError lists the ways a value breaks a schema, each as
// `"path" must ...`.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string { return strings.Join(e.Problems, "; ") }

// Validate checks v, a JSON value as encoding/json decodes it with
// UseNumber (numbers as json.Number), and returns nil or a
// *ValidationError.
func (s *Schema) Validate(v any) error {
	val := &Validator{}
	val.Check(s.root, v, "", 0)
	if !val.Failed() {
		return nil
	}
	e := &ValidationError{}
	for _, x := range val.out {
		e.Problems = append(e.Problems, x.textIn("the value"))
	}
	return e
}

// DecodeJSON decodes JSON text the way the runtime does: numbers as
// json.Number, so integers of any size keep their exact value. Plain
// documents are parsed without reflection (plainjson.Decode, the same
// values); anything else, errors and trailing data included, goes
// through encoding/json.
func DecodeJSON(text string) (any, error) {
	if v, ok := plainjson.Decode(text); ok {
		return v, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Fragments compiles schemas that sit inside one schema document: each
// one's references resolve against the document, and a definition
// compiled for one fragment is reused by the next. Definitions are
// compiled when a fragment first reaches them, so only those reached are
// checked. A generator checking many candidate values against the parts
// of one big schema so compiles each definition it needs once, not once
// per part. A Fragments is not safe for concurrent use.
type Fragments struct {
	doc  any
	c    *schemaCompiler
	next int
}

// NewFragments prepares to compile fragments of doc, a decoded schema
// document (see CompileValue).
func NewFragments(doc any) *Fragments {
	c := &schemaCompiler{root: doc, nodes: map[string]*Node{}, lazyDefs: true}
	if m, ok := doc.(map[string]any); ok {
		// References may name the document by its $id before the root
		// itself is compiled.
		id, _ := m["$id"].(string)
		c.rootID = strings.TrimSuffix(id, "#")
	}
	return &Fragments{doc: doc, c: c}
}

// Compile compiles sub, the document itself or a schema inside it. Once
// the document has shown a problem, every later call reports it too, as
// a fragment may reach the definition that has it.
func (f *Fragments) Compile(sub any) (*Schema, error) {
	at := ""
	if !sameValue(sub, f.doc) {
		// Not a JSON pointer (those are empty or start with "/"), so the
		// fragment's own subschemas never collide with the document's.
		f.next++
		at = "~" + strconv.Itoa(f.next)
	}
	n := f.c.compileAt(sub, at)
	f.c.resolveRefs()
	if err := f.c.err(); err != nil {
		return nil, err
	}
	return &Schema{root: n}, nil
}

// Failed reports whether any fragment compiled so far showed a problem;
// every later Compile then fails too, so a caller sharing one Fragments
// among independent schemas starts afresh after it.
func (f *Fragments) Failed() bool {
	return len(f.c.unsupported) > 0 || len(f.c.invalid) > 0
}

// sameValue reports whether a and b are the same map (not merely equal).
func sameValue(a, b any) bool {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	return ok1 && ok2 && reflect.ValueOf(am).UnsafePointer() == reflect.ValueOf(bm).UnsafePointer()
}
