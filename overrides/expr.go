package overrides

import (
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Expr is a parsed binding value: a reference such as ${input.ticket_id}
// or ${steps.ticket.body.order_id}, a string template mixing text and
// references, or a constant. References are parsed by the runtime's own
// parser (oa2mcpimpl.ParseExpr), so the override file and the generated
// server read the language the same way.
type Expr struct {
	// Refs are the references, in order; empty for constants.
	Refs []Ref
	// Template is the original text when the expression is a template
	// or reference.
	Template string
	// Const is the constant value when there are no references.
	Const any
	// Whole is true when the expression is exactly one reference.
	Whole bool
}

// Ref is one ${...} reference.
type Ref = oa2mcpimpl.Ref

// ParseExpr parses a binding value: a string holding ${...} references,
// or any other value, which is a constant.
func ParseExpr(v any) (Expr, error) {
	s, ok := v.(string)
	if !ok || !strings.Contains(s, "${") {
		return Expr{Const: v}, nil
	}
	e, err := oa2mcpimpl.ParseExpr(s)
	if err != nil {
		return Expr{}, err
	}
	return Expr{Refs: e.Refs, Template: s, Whole: e.Whole}, nil
}
