package runtime

import (
	"context"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/expr"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Bindings are parsed by internal/expr and evaluated here, against what
// one call can read.

// compiledExpr is a parsed binding expression, ready to evaluate.
type compiledExpr struct {
	parts []expr.Part
	whole bool
}

func compileExpr(s string) (compiledExpr, error) {
	e, err := expr.Parse(s)
	if err != nil {
		return compiledExpr{}, err
	}
	return compiledExpr{parts: e.Parts, whole: e.Whole}, nil
}

// evalEnv is what references can read during one call.
type evalEnv struct {
	ctx    context.Context
	input  map[string]any
	steps  map[string]*stepOutcome
	config map[string]string
	getenv func(string) string
}

func (env *evalEnv) ref(p expr.Part) (any, bool) {
	switch p.Root {
	case "input":
		return expr.LookupPath(env.input, p.Path)
	case "env", "config", "identity":
		name := ""
		if len(p.Path) > 0 {
			name = p.Path[0].Name
		}
		var v string
		switch p.Root {
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
		return expr.LookupPath(env.input, p.Path)
	case "steps":
		if len(p.Path) < 2 {
			return nil, false
		}
		out := env.steps[p.Path[0].Name]
		if out == nil || out.err != nil || out.skipped {
			return nil, false
		}
		if p.Path[1].Name == "status" {
			return out.status, true
		}
		return expr.LookupPath(out.body, p.Path[2:])
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
		if p.Root == "" {
			b.WriteString(p.Text)
			continue
		}
		v, ok := env.ref(p)
		if !ok {
			return nil, false
		}
		b.WriteString(textkit.ScalarText(v))
	}
	return b.String(), true
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
