package overrides

import (
	"fmt"
	"regexp"
	"strings"
)

// Expr is a parsed binding: a reference such as ${input.ticket_id} or
// ${steps.ticket.body.order_id}, a string template mixing text and
// references, or a constant.
//
// Grammar: a string that is exactly "${ROOT.PATH}" is a reference and
// keeps the referenced value's type; a string with references inside
// other text is a template and gives a string; anything else is a
// constant. ROOT is input, steps, env or config. For steps the path is
// ID.body[.FIELD...] or ID.status; FIELD may end in [N] to index arrays.
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
type Ref struct {
	Root string   // "input", "steps", "handle", "env", "config"
	Path []string // segments after the root, e.g. ["ticket", "body", "order_id"]
}

// String renders the reference as written.
func (r Ref) String() string { return "${" + r.Root + "." + strings.Join(r.Path, ".") + "}" }

var refRE = regexp.MustCompile(`\$\{([^}]*)\}`)
var segmentRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+(\[[0-9]+\])?$`)

// ParseExpr parses a binding value.
func ParseExpr(v any) (Expr, error) {
	s, ok := v.(string)
	if !ok || !strings.Contains(s, "${") {
		return Expr{Const: v}, nil
	}
	matches := refRE.FindAllStringSubmatchIndex(s, -1)
	if len(matches) == 0 {
		return Expr{}, fmt.Errorf("unclosed ${ in %q", s)
	}
	e := Expr{Template: s, Whole: len(matches) == 1 && matches[0][0] == 0 && matches[0][1] == len(s)}
	for _, m := range matches {
		ref, err := parseRef(s[m[2]:m[3]])
		if err != nil {
			return Expr{}, err
		}
		e.Refs = append(e.Refs, ref)
	}
	return e, nil
}

func parseRef(body string) (Ref, error) {
	parts := strings.Split(strings.TrimSpace(body), ".")
	if len(parts) < 2 {
		return Ref{}, fmt.Errorf("${%s} needs a root and a name, e.g. ${input.ticket_id}", body)
	}
	r := Ref{Root: parts[0], Path: parts[1:]}
	for _, p := range r.Path {
		if !segmentRE.MatchString(p) {
			return Ref{}, fmt.Errorf("${%s}: %q is not a valid path segment", body, p)
		}
	}
	switch r.Root {
	case "input", "env", "config":
		if len(r.Path) != 1 && r.Root != "input" {
			return Ref{}, fmt.Errorf("${%s}: %s takes one name", body, r.Root)
		}
	case "handle":
		// ${handle.INPUT.PATH}: the state of the state handle in INPUT.
	case "steps":
		if len(r.Path) < 2 || (r.Path[1] != "body" && r.Path[1] != "status") || (r.Path[1] == "status" && len(r.Path) > 2) {
			return Ref{}, fmt.Errorf("${%s}: write ${steps.ID.body.FIELD} or ${steps.ID.status}", body)
		}
	default:
		return Ref{}, fmt.Errorf("${%s}: unknown root %q; use input, steps, handle, env or config", body, r.Root)
	}
	return r, nil
}
