package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Bindings and result paths: the small expression language of the
// override file, compiled once at newServer.
//
// A binding is a ${ROOT.PATH} reference (keeps the value's type), a
// template mixing text and references (gives a string), a JSON constant,
// or an object built from field bindings. Roots: input, steps, env,
// config, identity and handle (${handle.INPUT.PATH} reads the state of
// the state handle in INPUT).

// pathSeg is one segment of a path: a field name, optionally indexed
// ("items[0]") or mapped over ("items[]").
type pathSeg struct {
	name  string
	index int // -1: none; -2: map over every element
}

// parsePath parses "a.b[0].c[]" into segments.
func parsePath(p string) []pathSeg {
	if p == "" {
		return nil
	}
	var out []pathSeg
	for _, part := range strings.Split(p, ".") {
		seg := pathSeg{name: part, index: -1}
		if i := strings.IndexByte(part, '['); i >= 0 && strings.HasSuffix(part, "]") {
			seg.name = part[:i]
			idx := part[i+1 : len(part)-1]
			if idx == "" {
				seg.index = -2
			} else if n, err := strconv.Atoi(idx); err == nil {
				seg.index = n
			}
		}
		out = append(out, seg)
	}
	return out
}

// lookupPath walks v along segs; a mapped segment applies the rest of
// the path to every element and collects the results.
func lookupPath(v any, segs []pathSeg) (any, bool) {
	for i, seg := range segs {
		if seg.name != "" {
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[seg.name]; !ok {
				return nil, false
			}
		}
		switch {
		case seg.index == -2:
			arr, ok := v.([]any)
			if !ok {
				return nil, false
			}
			out := make([]any, 0, len(arr))
			for _, el := range arr {
				if x, ok := lookupPath(el, segs[i+1:]); ok {
					out = append(out, x)
				}
			}
			return out, true
		case seg.index >= 0:
			arr, ok := v.([]any)
			if !ok || seg.index >= len(arr) {
				return nil, false
			}
			v = arr[seg.index]
		}
	}
	return v, true
}

// Expr is a parsed binding expression: one ${ROOT.PATH} reference
// (Whole: it keeps the referenced value's type) or a template mixing
// text and references (it gives a string). ParseExpr is the one parser
// of the expression language: the runtime compiles bindings with it, and
// the generator checks override files with it.
type Expr struct {
	// Refs are the references, in order.
	Refs []Ref
	// Template is the text as written.
	Template string
	// Whole: the text is exactly one reference.
	Whole bool
	parts []exprPart
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

// exprPart is literal text or one reference of a template.
type exprPart struct {
	text string
	root string
	path []pathSeg
}

// exprRoots are the roots a reference may start with, and how many path
// segments each takes (0: any number, at least one).
var exprRoots = map[string]int{"input": 0, "steps": 0, "handle": 0, "env": 1, "config": 1, "identity": 1, "result": 0}

// ParseExpr parses text that contains ${...} references. Grammar: ROOT is
// one of input, steps, handle, env, config, identity, result; env, config
// and identity take one name; steps takes ID.body[.FIELD...] or ID.status;
// a segment is letters, digits, _, - (and . only inside a name the spec
// gave), optionally followed by [N] or [].
func ParseExpr(text string) (Expr, error) {
	e := Expr{Template: text}
	for rest := text; rest != ""; {
		i := strings.Index(rest, "${")
		if i < 0 {
			e.parts = append(e.parts, exprPart{text: rest})
			break
		}
		if i > 0 {
			e.parts = append(e.parts, exprPart{text: rest[:i]})
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
		e.parts = append(e.parts, exprPart{root: ref.Root, path: parsePath(strings.Join(ref.Path, "."))})
		rest = rest[i+j+1:]
	}
	e.Whole = len(e.parts) == 1 && e.parts[0].root != ""
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

// compiledExpr is a parsed binding expression, ready to evaluate.
type compiledExpr struct {
	parts []exprPart
	whole bool
}

func compileExpr(s string) (compiledExpr, error) {
	e, err := ParseExpr(s)
	if err != nil {
		return compiledExpr{}, err
	}
	return compiledExpr{parts: e.parts, whole: e.Whole}, nil
}

// evalEnv is what references can read during one call.
type evalEnv struct {
	ctx    context.Context
	input  map[string]any
	steps  map[string]*stepOutcome
	config map[string]string
	getenv func(string) string
}

func (env *evalEnv) ref(p exprPart) (any, bool) {
	switch p.root {
	case "input":
		return lookupPath(env.input, p.path)
	case "env", "config", "identity":
		name := ""
		if len(p.path) > 0 {
			name = p.path[0].name
		}
		var v string
		switch p.root {
		case "env":
			v = env.getenv(name)
		case "config":
			v = env.config[name]
		default:
			v = callerClaims(env.ctx)[name]
		}
		return v, v != ""
	case "handle":
		// Handle inputs are resolved before anything runs, so a state
		// handle's input already holds its state.
		return lookupPath(env.input, p.path)
	case "steps":
		if len(p.path) < 2 {
			return nil, false
		}
		out := env.steps[p.path[0].name]
		if out == nil || out.err != nil || out.skipped {
			return nil, false
		}
		if p.path[1].name == "status" {
			return out.status, true
		}
		return lookupPath(out.body, p.path[2:])
	}
	return nil, false
}

// eval evaluates the expression; ok is false when a reference has no
// value, in which case the argument is left out.
func (e compiledExpr) eval(env *evalEnv) (any, bool) {
	if e.whole {
		return env.ref(e.parts[0])
	}
	var b strings.Builder
	for _, p := range e.parts {
		if p.root == "" {
			b.WriteString(p.text)
			continue
		}
		v, ok := env.ref(p)
		if !ok {
			return nil, false
		}
		b.WriteString(scalarText(v))
	}
	return b.String(), true
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

// callerKey is the context key of the authenticated caller's claims.
type callerKey struct{}

// ContextWithCaller returns a context carrying the authenticated caller's
// identity claims (e.g. "sub"). Inputs the override file binds to the
// caller's identity are filled from them, never from the model; an
// embedding service sets them from its own authentication.
func ContextWithCaller(ctx context.Context, claims map[string]string) context.Context {
	return context.WithValue(ctx, callerKey{}, claims)
}

func callerClaims(ctx context.Context) map[string]string {
	if ctx == nil {
		return nil
	}
	m, _ := ctx.Value(callerKey{}).(map[string]string)
	return m
}
