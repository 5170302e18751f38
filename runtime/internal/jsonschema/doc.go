// Package jsonschema is the runtime's JSON Schema draft 2020-12 engine:
// a strict compiler (compile.go, with JSON pointers in pointer.go and
// ECMA-262 patterns translated to RE2 in ecma.go), an evaluator that
// allocates nothing for a valid value and explains an invalid one
// (eval*.go, messages.go), exact decimal arithmetic (decimal.go) and the
// asserted formats (formats.go). The official JSON Schema Test Suite
// proves it (suite_test.go). Generated code and the generator reach it
// through oa2mcpimpl; the runtime uses it directly.
package jsonschema
