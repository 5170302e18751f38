package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/discoverytools"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// The three discovery tools. Their descriptions are written here, not
// generated: they are the same for every API but for its name, size and
// areas, and every byte of them is read by the model on every turn.

const (
	defaultSearchLimit = 5
	maxSearchLimit     = 50
	// maxSuggestions bounds the names an unknown-name error suggests.
	maxSuggestions = 3
)

// name is a discovery tool's name with the prefix.
func (d *discovery) name(base string) string { return d.def.Prefix + base }

// The three discovery tools served; their texts and schemas live in
// runtime/internal/discoverytools, which the generator reaches through
// oa2mcpimpl.DiscoveryTools to size a server's list.
func (d *discovery) searchTool() *Tool {
	return discoveryTool(discoverytools.Search(d.listing()), d.searchHandler)
}

func (d *discovery) describeTool() *Tool {
	return discoveryTool(discoverytools.Describe(d.listing()), d.describeHandler)
}

func (d *discovery) callTool() *Tool {
	return discoveryTool(discoverytools.Call(d.listing()), nil)
}

// listing is what the discovery tools' texts name of this server.
func (d *discovery) listing() discoverytools.Listing {
	return discoverytools.Listing{Prefix: d.def.Prefix, Title: d.s.spec.Title, Topics: d.def.Topics, Operations: len(d.def.Operations)}
}

// discoveryTool is the tool of def served with h. The door's
// DiscoveryTools (oa2mcpimpl) converts the same fields: change both
// together.
func discoveryTool(def discoverytools.Def, h Handler) *Tool {
	return &Tool{Name: def.Name, Title: def.Title, Description: def.Description,
		InputSchema: def.InputSchema, OutputSchema: def.OutputSchema,
		ReadOnly: def.ReadOnly, Idempotent: def.Idempotent, OpenWorld: def.OpenWorld, Destructive: def.Destructive, Handler: h}
}

// searchHit is one operation in search_operations' result.
type searchHit struct {
	Name        string `json:"name"`
	OperationID string `json:"operationId,omitempty"`
	Method      string `json:"method"`
	Path        string `json:"path"`
	Summary     string `json:"summary"`
	ReadOnly    bool   `json:"readOnly"`
	Destructive bool   `json:"destructive"`
}

type searchResult struct {
	Operations []searchHit `json:"operations"`
	// Areas lists the API's areas when the call gives neither query nor
	// area.
	Areas []areaHit `json:"areas,omitempty"`
	// Area is the area browsed; Total its operations, Next the offset of
	// its next page (0 on the last).
	Area  string `json:"area,omitempty"`
	Total int    `json:"total,omitempty"`
	Next  int    `json:"next,omitempty"`
	Note  string `json:"note,omitempty"`
}

func (d *discovery) searchHandler(_ context.Context, call *Call) (any, error) {
	query, _ := call.Args["query"].(string)
	areaName, _ := call.Args["area"].(string)
	limit, given := clampedArg(call.Args["limit"], 1, maxSearchLimit)
	if !given {
		limit = defaultSearchLimit
		if areaName != "" && query == "" {
			limit = browseLimit
		}
	}
	offset, _ := clampedArg(call.Args["offset"], 0, len(d.def.Operations))
	out := searchResult{Operations: []searchHit{}}
	if query == "" && areaName == "" {
		out.Areas = d.areas()
		if len(out.Areas) == 0 {
			out.Note = "This API declares no areas; search with plain words instead."
		}
		return out, nil
	}
	if areaName != "" {
		a := d.area(areaName)
		if a == nil {
			return nil, d.unknownArea(areaName)
		}
		return out, d.browse(&out, a, query, offset, limit)
	}
	sr, err := d.search()
	if err != nil {
		return nil, err
	}
	for _, h := range sr.Search(query, limit) {
		out.Operations = append(out.Operations, hitOf(h.Operation))
	}
	if len(out.Operations) == 0 {
		out.Note = fmt.Sprintf("No operation matches %q. Search again with other words, such as the API's own name for the thing (e.g. the noun in its URLs), or a simpler verb like list, get, create, update or delete; or browse the API's areas (no query).", query)
	}
	return out, nil
}

// clampedArg reads an integer argument (intArg) clamped to [lo, hi];
// given is false when the call leaves it out.
func clampedArg(v any, lo, hi int) (n int, given bool) {
	if v == nil {
		return lo, false
	}
	return min(max(intArg(v), lo), hi), true
}

func hitOf(op *Discoverable) searchHit {
	t := op.Tool
	return searchHit{Name: t.Name, OperationID: t.Op.OperationID, Method: t.Op.Method, Path: t.Op.Path,
		Summary: oneLine(t.Title), ReadOnly: t.ReadOnly, Destructive: t.Destructive}
}

// oneLine keeps the first line of a summary.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// describeResult is describe_operation's result.
type describeResult struct {
	Name         string          `json:"name"`
	OperationID  string          `json:"operationId,omitempty"`
	Method       string          `json:"method"`
	Path         string          `json:"path"`
	Summary      string          `json:"summary,omitempty"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	Returns      string          `json:"returns,omitempty"`
	ReadOnly     bool            `json:"readOnly"`
	Destructive  bool            `json:"destructive"`
	Idempotent   bool            `json:"idempotent"`
	Confirmation string          `json:"confirmation,omitempty"`
}

func (d *discovery) describeHandler(_ context.Context, call *Call) (any, error) {
	name, _ := call.Args["name"].(string)
	i := d.lookup(name)
	if i < 0 {
		return nil, d.unknown(name)
	}
	op := d.def.Operations[i]
	t := op.Tool
	schema := t.InputSchema
	if strings.TrimSpace(schema) == "" {
		schema = `{"type":"object","additionalProperties":false}`
	}
	out := describeResult{Name: t.Name, OperationID: t.Op.OperationID, Method: t.Op.Method, Path: t.Op.Path,
		Summary: oneLine(t.Title), Description: t.Description, InputSchema: json.RawMessage(schema), Returns: op.Returns,
		ReadOnly: t.ReadOnly, Destructive: t.Destructive, Idempotent: t.Idempotent}
	if t.Destructive || t.Confirm != "" {
		out.Confirmation = fmt.Sprintf("%s asks the user to confirm before this operation runs; a client that cannot ask its user gets a refusal.", d.name(search.CallToolName))
	}
	return out, nil
}

// unknown is the error for a name no operation has: it suggests the
// operations a search for the name's words finds.
func (d *discovery) unknown(name string) *ToolError {
	msg := fmt.Sprintf("No operation is named %q. Use %s to find the operation and pass its name exactly as returned.", name, d.name(search.SearchToolName))
	if sr, err := d.search(); err == nil {
		var names []string
		for _, h := range sr.Search(name, maxSuggestions) {
			names = append(names, h.Operation.Tool.Name)
		}
		if len(names) > 0 {
			msg += " Close matches: " + strings.Join(names, ", ") + "."
		}
	}
	return &ToolError{Kind: KindNotFound, Message: msg}
}

func msDuration(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
