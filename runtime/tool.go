package runtime

import "context"

// Handler runs a hand-written tool (Tool.Handler) once its arguments
// passed the tool's input schema and the caller passed the access checks.
// It returns the result's structured content, or an error: a *ToolError
// keeps its kind and message, any other error becomes an internal error
// whose text the model does not see.
type Handler func(ctx context.Context, call *Call) (any, error)

// Call is one tool call as a Handler or a Middleware sees it.
type Call struct {
	// Tool is the called tool's definition.
	Tool *Tool
	// Args are the validated arguments, defaults applied; numbers are
	// json.Number. Middleware may change them before the call runs.
	Args map[string]any
	// Caller is the verified identity of the caller (claim "sub" and
	// others), empty for anonymous callers.
	Caller map[string]string
}
