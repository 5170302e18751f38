package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime/internal/expr"

// Expr is a parsed binding expression of the override file.
type Expr = expr.Expr

// Ref is one ${ROOT.PATH} reference of an Expr.
type Ref = expr.Ref

// ParseExpr parses a binding expression with the parser the runtime
// compiles bindings with, so an override file the generator accepts is
// one the server can run.
func ParseExpr(text string) (Expr, error) { return expr.Parse(text) }

// SoleInput is the tool input a binding expression passes through
// unchanged (exactly ${input.NAME}), the rule the runtime names an
// argument's input by in its messages.
func SoleInput(text string) (string, bool) { return expr.SoleInput(text) }
