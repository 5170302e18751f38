package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
)

// callHandler runs call_operation: it finds the operation and hands the
// inner arguments to the operation's own handler, so the call gets what
// a tool call gets: validation, auth, scopes, limits, retries, error
// mapping, confirmation, logging and metrics, all under the operation's
// name.
func (d *discovery) callHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var raw json.RawMessage
	if req != nil && req.Params != nil {
		raw = req.Params.Arguments
	}
	name, args, cerr := d.callArgs(raw)
	if cerr != nil {
		return d.refuse(ctx, cerr), nil
	}
	i := d.lookup(name)
	if i < 0 {
		te := d.unknown(name)
		return d.refuse(ctx, &callError{kind: te.Kind, retryAfter: retryAfterUnknown, msg: te.Message}), nil
	}
	bt, err := d.bound(i)
	if err != nil {
		d.s.logger.Error("discovery operation cannot be served", "operation", name, "error", err)
		return d.refuse(ctx, &callError{kind: KindInternal, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The operation %s cannot be served by this server (a fault in its definition). Do not retry; tell the user.", name)}), nil
	}
	inner := mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: bt.spec.Name, Arguments: args}}
	if req != nil {
		inner.Session, inner.Extra = req.Session, req.Extra
		if req.Params != nil {
			p := *req.Params
			p.Name, p.Arguments = bt.spec.Name, args
			inner.Params = &p
		}
	}
	return d.s.toolHandler(bt)(ctx, &inner)
}

// callArgs reads call_operation's own arguments: the operation's name and
// its arguments, left as JSON for the operation to validate.
func (d *discovery) callArgs(raw json.RawMessage) (string, json.RawMessage, *callError) {
	var in struct {
		Name      *string         `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	fix := fmt.Sprintf(" Call %s with {\"name\": \"<operation name from %s>\", \"arguments\": {...}}.", d.name(search.CallToolName), d.name(search.SearchToolName))
	if len(strings.TrimSpace(string(raw))) == 0 {
		return "", nil, inputFailure("Invalid arguments: name is required." + fix)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return "", nil, inputFailure("Invalid arguments: " + ensurePeriod(err.Error()) + fix)
	}
	if in.Name == nil || *in.Name == "" {
		return "", nil, inputFailure("Invalid arguments: name is required." + fix)
	}
	args := json.RawMessage(strings.TrimSpace(string(in.Arguments)))
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if args[0] != '{' {
		return "", nil, inputFailure(fmt.Sprintf("Invalid arguments: arguments must be a JSON object of the operation's parameters, not %s.", jsonKind(args)) + fix)
	}
	return *in.Name, args, nil
}

// jsonKind names the kind of a JSON value for messages.
func jsonKind(raw json.RawMessage) string {
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// refuse answers a call_operation that reaches no operation, recording
// it like any failed call.
func (d *discovery) refuse(ctx context.Context, e *callError) *mcp.CallToolResult {
	name := d.name(search.CallToolName)
	d.s.metrics.CallStarted(name)
	d.s.metrics.CallFinished(name, "error", e.kind, 0)
	d.s.logger.LogAttrs(ctx, slog.LevelInfo, "tools/call", slog.String("tool", name),
		slog.String("outcome", "error"), slog.String("error_kind", e.kind))
	return e.result()
}
