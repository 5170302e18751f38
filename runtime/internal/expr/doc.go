// Package expr is the one parser of the override file's expression
// language: bindings (${ROOT.PATH} references, templates mixing text and
// references) and result paths ("items[0].id", "items[].id"). The
// runtime compiles and evaluates bindings with it; the generator checks
// override files with it through oa2mcpimpl.ParseExpr.
//
// Bindings and result paths: the small expression language of the
// override file, compiled once when a server is built.
//
// A binding is a ${ROOT.PATH} reference (keeps the value's type), a
// template mixing text and references (gives a string), a JSON constant,
// or an object built from field bindings. Roots: input, steps, env,
// config, identity and handle (${handle.INPUT.PATH} reads the state of
// the state handle in INPUT).
package expr
