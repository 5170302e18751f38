package expr

import (
	"fmt"
	"strconv"
	"strings"
)

// Seg is one segment of a path: a field name, optionally indexed
// ("items[0]") or mapped over ("items[]").
type Seg struct {
	Name  string
	Index int // -1: none; -2: map over every element
}

// ParsePath parses "a.b[0].c[]" into segments.
func ParsePath(p string) []Seg {
	if p == "" {
		return nil
	}
	var out []Seg
	for _, part := range strings.Split(p, ".") {
		seg := Seg{Name: part, Index: -1}
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			seg.Name = part[:i]
			idx := part[i+1 : len(part)-1]
			if idx == "" {
				seg.Index = -2
			} else if n, err := strconv.Atoi(idx); err == nil {
				seg.Index = n
			}
		}
		out = append(out, seg)
	}
	return out
}

// LookupPath walks v along segs; a mapped segment applies the rest of
// the path to every element and collects the results.
func LookupPath(v any, segs []Seg) (any, bool) {
	for i, seg := range segs {
		if seg.Name != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[seg.Name]; !ok {
				return nil, false
			}
		}
		switch {
		case seg.Index == -2:
			arr, ok := v.([]any)
			if !ok {
				return nil, false
			}
			out := make([]any, 0, len(arr))
			for _, el := range arr {
				if x, ok := LookupPath(el, segs[i+1:]); ok {
					out = append(out, x)
				}
			}
			return out, true
		case seg.Index >= 0:
			arr, ok := v.([]any)
			if !ok || seg.Index >= len(arr) {
				return nil, false
			}
			v = arr[seg.Index]
		}
	}
	return v, true
}

// Expr is a parsed binding expression: one ${ROOT.PATH} reference
// (Whole: it keeps the referenced value's type) or a template mixing
// text and references (it gives a string). Parse is the one parser
// of the expression language: the runtime compiles bindings with it, and
// the generator checks override files with it.
type Expr struct {
	// Refs are the references, in order.
	Refs []Ref
	// Template is the text as written.
	Template string
	// Whole: the text is exactly one reference.
	Whole bool
	// Parts are the literal texts and references in order.
	Parts []Part
}

// Ref is one ${ROOT.PATH} reference.
type Ref struct {
	// Root is input, steps, handle, env, config, identity or result.
	Root string
	// Path are the dot-separated segments after the root; a segment may
	// end in [N] (an index) or [] (every element).
	Path []string
}

// String renders the reference as written.
func (r Ref) String() string { return "${" + r.Root + "." + strings.Join(r.Path, ".") + "}" }

// Part is literal text or one reference of a template.
type Part struct {
	Text string // literal text; Root is empty
	Root string
	Path []Seg
}

// exprRoots are the roots a reference may start with, and how many path
// segments each takes (0: any number, at least one).
var exprRoots = map[string]int{"input": 0, "steps": 0, "handle": 0, "env": 1, "config": 1, "identity": 1, "result": 0}

// SoleInput is the tool input a binding expression passes through
// unchanged: NAME when text, as Parse reads it, is exactly one
// ${input.NAME} reference to a plain name (no path or index); "" and
// false otherwise.
func SoleInput(text string) (string, bool) {
	e, err := Parse(text)
	if err != nil || !e.Whole || e.Refs[0].Root != "input" || len(e.Refs[0].Path) != 1 || strings.ContainsRune(e.Refs[0].Path[0], '[') {
		return "", false
	}
	return e.Refs[0].Path[0], true
}

// Parse parses text that contains ${...} references. Grammar: ROOT is
// one of input, steps, handle, env, config, identity, result; env, config
// and identity take one name; steps takes ID.body[.FIELD...] or ID.status;
// a segment is letters, digits, _, - (and . only inside a name the spec
// gave), optionally followed by [N] or [].
func Parse(text string) (Expr, error) {
	e := Expr{Template: text}
	for rest := text; rest != ""; {
		i := strings.Index(rest, "${")
		if i < 0 {
			e.Parts = append(e.Parts, Part{Text: rest})
			break
		}
		if i > 0 {
			e.Parts = append(e.Parts, Part{Text: rest[:i]})
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return Expr{}, fmt.Errorf("unclosed ${ in %q: close it with }", text)
		}
		ref, err := parseRef(rest[i+2 : i+j])
		if err != nil {
			return Expr{}, err
		}
		e.Refs = append(e.Refs, ref)
		e.Parts = append(e.Parts, Part{Root: ref.Root, Path: ParsePath(strings.Join(ref.Path, "."))})
		rest = rest[i+j+1:]
	}
	e.Whole = len(e.Parts) == 1 && e.Parts[0].Root != ""
	return e, nil
}

func parseRef(body string) (Ref, error) {
	parts := strings.Split(strings.TrimSpace(body), ".")
	if len(parts) < 2 {
		return Ref{}, fmt.Errorf("${%s} needs a root and a name, e.g. ${input.ticket_id}", body)
	}
	r := Ref{Root: parts[0], Path: parts[1:]}
	n, ok := exprRoots[r.Root]
	if !ok {
		return Ref{}, fmt.Errorf("${%s}: unknown root %q; use input, steps, handle, env, config, identity or result", body, r.Root)
	}
	for _, p := range r.Path {
		if !validSegment(p) {
			return Ref{}, fmt.Errorf("${%s}: %q is not a valid path segment (letters, digits, _ and -, optionally [N] or [])", body, p)
		}
	}
	switch {
	case n == 1 && len(r.Path) != 1:
		return Ref{}, fmt.Errorf("${%s}: %s takes one name, e.g. ${%s.NAME}", body, r.Root, r.Root)
	case r.Root == "steps" && (len(r.Path) < 2 || (r.Path[1] != "body" && r.Path[1] != "status") || (r.Path[1] == "status" && len(r.Path) > 2)):
		return Ref{}, fmt.Errorf("${%s}: write ${steps.ID.body.FIELD} or ${steps.ID.status}", body)
	}
	return r, nil
}

// validSegment reports whether a path segment is a name, optionally
// indexed ("items[0]") or mapped ("items[]").
func validSegment(p string) bool {
	name := p
	if i := strings.IndexByte(p, '['); i >= 0 {
		idx, ok := strings.CutSuffix(p[i+1:], "]")
		if !ok || strings.ContainsAny(idx, "[]") {
			return false
		}
		if _, err := strconv.Atoi(idx); idx != "" && err != nil {
			return false
		}
		name = p[:i]
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return name != "" || strings.HasPrefix(p, "[")
}
