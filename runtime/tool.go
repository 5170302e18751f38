package runtime

import (
	"context"
	"encoding/json"
	"fmt"

	sdkschema "github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
)

// Handler runs a hand-written tool (Tool.Handler) once its arguments
// passed the tool's input schema and the caller passed the access checks.
// It returns the result's structured content (an object, or a value
// wrapped as {"result": value}), or an error: a *ToolError keeps its kind
// and message, any other error becomes an internal error whose text the
// model does not see (it is logged).
type Handler func(ctx context.Context, call *Call) (any, error)

// NewTool makes a hand-written tool with typed input and output: def
// gives its name, description, scopes and hints; its input and output
// schemas are derived from In and Out (as the MCP SDK derives them, with
// `json` and `jsonschema` struct tags), and fn runs with the decoded
// input. Register the tool with Options.Tools: it then shares the
// generated server's validation, auth, scopes, limits, logging, metrics
// and error mapping.
func NewTool[In, Out any](def Tool, fn func(ctx context.Context, call *Call, in In) (Out, error)) (*Tool, error) {
	t := def
	in, err := schemaFor[In]()
	if err != nil {
		return nil, fmt.Errorf("tool %s: input type: %w", def.Name, err)
	}
	out, err := schemaFor[Out]()
	if err != nil {
		return nil, fmt.Errorf("tool %s: output type: %w", def.Name, err)
	}
	t.InputSchema, t.OutputSchema = in, out
	t.Handler = func(ctx context.Context, call *Call) (any, error) {
		var v In
		b, err := json.Marshal(call.Args)
		if err == nil {
			err = json.Unmarshal(b, &v)
		}
		if err != nil {
			return nil, &ToolError{Kind: KindInvalidInput, Message: fmt.Sprintf("Invalid arguments: %v. Fix them and call again.", err)}
		}
		return fn(ctx, call, v)
	}
	return &t, nil
}

// schemaFor is the JSON Schema of T as JSON text.
func schemaFor[T any]() (string, error) {
	s, err := sdkschema.For[T](nil)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	return string(b), err
}

// WithFields returns a copy of a successful result with fields added to
// its structured content (an object), the text re-encoded to match: how a
// Middleware adds to a result. The server checks the result against the
// tool's output schema afterwards.
func WithFields(res *mcp.CallToolResult, fields map[string]any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.DecodeJSON(string(raw))
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the result's structured content is not an object")
	}
	for k, x := range fields {
		m[k] = x
	}
	b, err := marshalJSON(m)
	if err != nil {
		return nil, err
	}
	out := *res
	out.StructuredContent = json.RawMessage(b)
	out.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
	return &out, nil
}
