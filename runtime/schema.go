package runtime

import (
	"encoding/json"
	"strings"
)

// Schema is a compiled JSON Schema: the subset of draft 2020-12 this
// package enforces on tool inputs and outputs. The generator compiles
// every schema it emits with CompileSchema, so a schema the runtime could
// not enforce fails at generation time, not silently at run time.
type Schema struct {
	root *schemaNode
}

// CompileSchema compiles a JSON Schema given as JSON text.
func CompileSchema(text string) (*Schema, error) {
	n, err := compileSchema(text)
	if err != nil {
		return nil, err
	}
	return &Schema{root: n}, nil
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
	val := &validator{}
	val.check(s.root, v, "", 0)
	if !val.failed() {
		return nil
	}
	e := &ValidationError{}
	for _, x := range val.out {
		e.Problems = append(e.Problems, x.textIn("the value"))
	}
	return e
}

// DecodeJSON decodes JSON text the way the runtime does: numbers as
// json.Number, so integers of any size keep their exact value.
func DecodeJSON(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}
