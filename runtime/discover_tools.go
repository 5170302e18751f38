package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

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

const searchInput = `{"type":"object","properties":{` +
	`"query":{"type":"string","minLength":1,"maxLength":500,"description":"What the user wants done, in plain words, e.g. \"cancel a subscription\" or \"list pods in a namespace\". Leave it out to browse: without area too, the API's areas; with area, that area's operations."},` +
	`"area":{"type":"string","minLength":1,"maxLength":200,"description":"An area's name as the areas list gives it: only that area's operations (all of them, in pages, when query is left out)."},` +
	`"limit":{"type":"integer","minimum":1,"maximum":50,"default":5,"description":"How many operations to return, best first (default 5; 20 when browsing an area)."},` +
	`"offset":{"type":"integer","minimum":0,"default":0,"description":"When browsing an area, how many of its operations to skip: the next value the previous page gave."}},` +
	`"additionalProperties":false}`

const searchOutput = `{"type":"object","properties":{"operations":{"type":"array","items":{"type":"object","properties":{` +
	`"name":{"type":"string"},"operationId":{"type":"string"},"method":{"type":"string"},"path":{"type":"string"},` +
	`"summary":{"type":"string"},"readOnly":{"type":"boolean"},"destructive":{"type":"boolean"}},` +
	`"required":["name","method","path","summary","readOnly","destructive"]}},` +
	`"areas":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},"operations":{"type":"integer"}},"required":["name","operations"]}},` +
	`"area":{"type":"string"},"total":{"type":"integer"},"next":{"type":"integer"},"note":{"type":"string"}},"required":["operations"]}`

const nameInput = `{"type":"object","properties":{` +
	`"name":{"type":"string","minLength":1,"maxLength":128,"description":"The operation's name as search_operations returned it."}},` +
	`"required":["name"],"additionalProperties":false}`

const describeOutput = `{"type":"object","properties":{"name":{"type":"string"},"operationId":{"type":"string"},` +
	`"method":{"type":"string"},"path":{"type":"string"},"summary":{"type":"string"},"description":{"type":"string"},` +
	`"inputSchema":{"type":"object"},"returns":{"type":"string"},"readOnly":{"type":"boolean"},` +
	`"destructive":{"type":"boolean"},"idempotent":{"type":"boolean"},"confirmation":{"type":"string"}},` +
	`"required":["name","method","path","description","inputSchema","readOnly","destructive","idempotent"]}`

const callInput = `{"type":"object","properties":{` +
	`"name":{"type":"string","minLength":1,"maxLength":128,"description":"The operation's name as search_operations returned it."},` +
	`"arguments":{"type":"object","description":"The operation's arguments, matching the inputSchema describe_operation returned; {} when it takes none."}},` +
	`"required":["name"],"additionalProperties":false}`

// name is a discovery tool's name with the prefix.
func (d *discovery) name(base string) string { return d.def.Prefix + base }

// apiName names the API in descriptions: "the Stripe API".
func (d *discovery) apiName() string {
	t := strings.TrimSpace(d.s.spec.Title)
	switch {
	case t == "":
		return "this API"
	case strings.HasSuffix(strings.ToLower(t), "api"):
		return "the " + t
	}
	return "the " + t + " API"
}

// DiscoveryTools are the three tools discovery mode adds to a server of
// def, as tools/list shows them (without handlers); nil without
// discovery. Tools that size a server's list (oa2mcp lint) count them.
func DiscoveryTools(def *ServerDef) []*Tool {
	if def == nil || def.Discovery == nil {
		return nil
	}
	d := &discovery{s: &Server{spec: def}, def: def.Discovery}
	out := []*Tool{d.searchTool(), d.describeTool(), d.callTool()}
	for _, t := range out {
		t.Handler = nil
	}
	return out
}

func (d *discovery) searchTool() *Tool {
	areas := ""
	if d.def.Topics != "" {
		areas = " Areas: " + d.def.Topics + "."
	}
	return &Tool{
		Name:  d.name(search.SearchToolName),
		Title: "Search API operations",
		Description: fmt.Sprintf("Find the operation of %s that does what the user asks, among its %d operations that no other tool of this server covers. "+
			"Describe the task in plain words, e.g. \"refund a payment\" or \"list the members of a group\"; the API's own nouns work best.%s "+
			"Returns up to limit operations, best first, each with the name %s and %s take, its method, path and one-line summary, and whether it is read-only or destructive. "+
			"If none fits, search again with other words, or browse: without query it lists the API's areas, and with area the operations of one. Changes nothing.",
			d.apiName(), len(d.def.Operations), areas, d.name(search.DescribeToolName), d.name(search.CallToolName)),
		InputSchema:  searchInput,
		OutputSchema: searchOutput,
		ReadOnly:     true,
		Idempotent:   true,
		Handler:      d.searchHandler,
	}
}

func (d *discovery) describeTool() *Tool {
	return &Tool{
		Name:  d.name(search.DescribeToolName),
		Title: "Describe an API operation",
		Description: fmt.Sprintf("Describe one operation that %s found: what it does, its input schema (the arguments %s takes for it), what it returns, "+
			"and whether it is read-only, destructive or needs the user's confirmation. Call it before %s unless you already know the inputs. Changes nothing.",
			d.name(search.SearchToolName), d.name(search.CallToolName), d.name(search.CallToolName)),
		InputSchema:  nameInput,
		OutputSchema: describeOutput,
		ReadOnly:     true,
		Idempotent:   true,
		Handler:      d.describeHandler,
	}
}

func (d *discovery) callTool() *Tool {
	return &Tool{
		Name:  d.name(search.CallToolName),
		Title: "Call an API operation",
		Description: fmt.Sprintf("Call one operation of %s by the name %s returned, with arguments matching the input schema %s showed. "+
			"Invalid arguments are reported, with what to fix, before anything is sent. A destructive operation (one that deletes or overwrites data) first asks the user to confirm, "+
			"and is refused when this client cannot ask. Returns the API's response; errors say what went wrong and what to do next.",
			d.apiName(), d.name(search.SearchToolName), d.name(search.DescribeToolName)),
		InputSchema: callInput,
		OpenWorld:   true,
		Destructive: true,
	}
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
