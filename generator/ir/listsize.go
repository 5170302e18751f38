package ir

import "encoding/json"

// The size of tools/list is what a model pays on every turn: clients
// send every listed tool's name, title, description, schemas and
// annotations with each request. The generator sizes it here, the one
// place that knows the listed form, to lint it (oa2mcp lint), to budget
// drafts (oa2mcp init) and to decide when a default mapping is too large
// to list (docs/discovery.md, "Large APIs").

// BytesPerToken is the divisor of the token estimate: JSON of English
// text and schema keywords runs at about four bytes per token in the
// tokenizers of the major models (cl100k, o200k, Claude's); the estimate
// is a budget, not a bill.
const BytesPerToken = 4

// EstimateTokens is the token estimate of n bytes of tools/list.
func EstimateTokens(n int) int { return n / BytesPerToken }

// listedTool is the JSON a client receives for one tool in tools/list.
type listedTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  map[string]any  `json:"annotations"`
}

// ListBytes is the size of the compact JSON of tools as a client receives
// them in tools/list: name, title, description, inputSchema, outputSchema
// and annotations. The output schema counts: clients pass it on to the
// model with the rest.
func ListBytes(tools []Tool) int {
	listed := make([]listedTool, 0, len(tools))
	for _, t := range tools {
		listed = append(listed, listedTool{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: RawSchema(t.InputSchema, `{}`), OutputSchema: RawSchema(t.OutputSchema, ""),
			Annotations: map[string]any{"title": t.Title, "readOnlyHint": t.ReadOnly, "destructiveHint": t.Destructive,
				"idempotentHint": t.Idempotent, "openWorldHint": t.OpenWorld},
		})
	}
	b, err := json.Marshal(map[string]any{"tools": listed})
	if err != nil {
		return 0
	}
	return len(b)
}

// RawSchema passes a schema through as JSON, or orElse when it is not
// valid JSON ("" leaves the field out).
func RawSchema(s, orElse string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	if orElse == "" {
		return nil
	}
	return json.RawMessage(orElse)
}
