package oa2mcptest

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime"
)

// identityValue is one value of a request that a tool binds from the
// calling caller's identity (${identity.CLAIM}): a parameter, or the
// body when the binding fills a body field.
type identityValue struct {
	in     string // runtime.InPath, InQuery, InHeader, InCookie, or "body"
	name   string // the parameter's wire name; "" for the body
	claims []string
}

// identityValues finds, per Operation.Key, the request values the
// definition's tools bind from the caller's identity. An operation that
// two tools call with different identity bindings is left out: the
// upstream cannot tell which tool sent a request.
func identityValues(def *runtime.ServerDef) map[string][]identityValue {
	out := map[string][]identityValue{}
	conflict := map[string]bool{}
	for _, t := range def.Tools {
		perOp := map[string][]identityValue{}
		for _, st := range t.AllSteps() {
			key := st.Op.Key()
			if _, ok := perOp[key]; !ok {
				perOp[key] = nil
			}
			for _, b := range st.Args {
				if v, ok := boundIdentity(&st.Op, b); ok {
					perOp[key] = append(perOp[key], v)
				}
			}
		}
		for key, vals := range perOp {
			prev, seen := out[key]
			switch {
			case !seen:
				out[key] = vals
			case fmt.Sprint(prev) != fmt.Sprint(vals):
				conflict[key] = true
			}
		}
	}
	for key := range conflict {
		delete(out, key)
	}
	return out
}

// boundIdentity is where binding b puts the caller's identity in a
// request of op, if it reads any.
func boundIdentity(op *runtime.Operation, b runtime.Binding) (identityValue, bool) {
	claims := b.IdentityClaims()
	if len(claims) == 0 {
		return identityValue{}, false
	}
	for _, p := range op.Params {
		if p.Arg == b.Arg {
			return identityValue{in: p.In, name: p.Name, claims: claims}, true
		}
	}
	return identityValue{in: "body", claims: claims}, true
}

// checkIdentity reports a request value bound from the caller's identity
// that does not carry the calling caller's claim: a server that took it
// from an input, a constant or another caller would pass every other
// check. caller is nil when no test caller is known.
func checkIdentity(vals []identityValue, r *http.Request, body []byte, caller map[string]string) string {
	if caller == nil {
		return ""
	}
	for _, v := range vals {
		got := requestValue(v, r, body)
		for _, claim := range v.claims {
			want := caller[claim]
			if want == "" || !strings.Contains(got, want) {
				where := v.in + " " + v.name
				if v.in == "body" {
					where = "the body"
				}
				return fmt.Sprintf("%s is bound to the caller's %s claim %q, but the request carries %q", where, claim, want, clip(got))
			}
		}
	}
	return ""
}

// requestValue is the raw value of v in a request.
func requestValue(v identityValue, r *http.Request, body []byte) string {
	switch v.in {
	case runtime.InPath:
		return r.URL.Path
	case runtime.InQuery:
		return strings.Join(r.URL.Query()[v.name], ",")
	case runtime.InHeader:
		return strings.Join(r.Header.Values(v.name), ",")
	case runtime.InCookie:
		if c, err := r.Cookie(v.name); err == nil {
			return c.Value
		}
		return ""
	}
	return string(body)
}
