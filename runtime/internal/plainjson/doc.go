// Package plainjson decodes and encodes plain JSON values (map[string]any,
// []any, string, json.Number, bool and nil) without reflection, byte for
// byte and value for value as encoding/json does: Decode as a
// json.Decoder with UseNumber decoding one value, Append as an Encoder
// with or without HTML escaping. Each answers only the inputs it is sure
// of (ok false for anything else: a syntax error, deep nesting, trailing
// data, a type of another kind), and its callers then ask encoding/json,
// so errors and unusual inputs keep encoding/json's exact behaviour. A
// tool call decodes its arguments and its upstream body and encodes its
// result once each; through encoding/json these were a tenth of a stdio
// server's CPU per call (docs/benchmarks.md).
package plainjson
