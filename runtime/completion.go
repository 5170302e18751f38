package runtime

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/uritemplate"
)

// completion/complete for the variables of resource templates: the enum
// values and examples of the tool input each variable fills, those that
// start with what was typed (case-insensitive), in schema order, at most
// maxCompletions. The capability is declared only when some variable has
// values to offer. The runtime serves no prompts, so a prompt reference,
// like any reference the server does not know, completes to nothing.

// maxCompletions is the protocol's bound on values per answer.
const maxCompletions = 100

// complete answers completion/complete.
func (s *Server) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	var values []string
	if p.Ref != nil && p.Ref.Type == "ref/resource" {
		for _, r := range s.resources {
			if r.spec.URITemplate == p.Ref.URI {
				if v := r.vars[p.Argument.Name]; v != nil {
					values = v.Values
				}
			}
		}
	}
	return &mcp.CompleteResult{Completion: completion(values, p.Argument.Value)}, nil
}

// completion is the answer for the values starting with prefix.
func completion(values []string, prefix string) mcp.CompletionResultDetails {
	out := []string{}
	total := 0
	for _, v := range values {
		if strings.HasPrefix(strings.ToLower(v), strings.ToLower(prefix)) {
			total++
			if len(out) < maxCompletions {
				out = append(out, v)
			}
		}
	}
	return mcp.CompletionResultDetails{Values: out, Total: total, HasMore: total > len(out)}
}

// specCompletes reports whether spec declares a template variable with
// values to complete, before anything is bound (the SDK declares the
// capability from the options it is created with).
func specCompletes(spec *ServerDef, written []*Tool) bool {
	tools := map[string]*Tool{}
	for _, t := range append(append([]*Tool(nil), spec.Tools...), written...) {
		tools[t.Name] = t
	}
	for _, r := range spec.Resources {
		t, err := uritemplate.Parse(r.URITemplate)
		if err != nil || tools[r.Tool] == nil {
			continue
		}
		props, _, err := uritemplate.InputProperties(tools[r.Tool].InputSchema)
		if err != nil {
			continue
		}
		for _, v := range t.Vars {
			if p := props[v]; p != nil && len(p.Values) > 0 {
				return true
			}
		}
	}
	return false
}
