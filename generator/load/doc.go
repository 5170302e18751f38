// Package load reads an OpenAPI document (3.0, 3.1, 3.2, or Swagger 2.0,
// YAML or JSON, possibly split over several files) and hands the rest of
// the generator a [Document]: plain data in the OpenAPI 3.1 / JSON Schema
// 2020-12 vocabulary, with a position for every element a problem may
// concern.
//
// It is the only package that imports kin-openapi. Real specs are often
// not quite valid, so loading is tolerant: defects with an evident
// meaning (a 3.0 habit in a 3.1 document, a non-standard idiom of a big
// API) are repaired in the raw text before kin parses it, keeping every
// line where it was, and reported as warnings; what cannot be repaired is
// an error with its position. OpenAPI 3.2 is read as 3.1 plus its
// additions (see v32.go).
package load
