// Package oa2mcpimpl is the door between the runtime and the code oa2mcp
// generates. It is imported only by code oa2mcp generates and by the
// generator; it makes no compatibility promise to anyone else, and its
// names change whenever the contract version (MaxVersion) does.
//
// It holds the version guard generated code asserts, and thin entry
// points into the runtime's engine that the generator needs so that it
// applies the very rules the generated server will: the JSON Schema
// compiler that proves call cases, JSON decoding as the runtime does it,
// the expression parser and the text-and-names rules messages share, and
// (shared.go) the rules whose code still lives in package runtime.
// Users of a generated server use package runtime instead.
package oa2mcpimpl
