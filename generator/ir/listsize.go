package ir

import (
	"encoding/json"

	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
)

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

// ListBytes is the size of the compact JSON of tools as a client receives
// them in tools/list: name, title, description, inputSchema, outputSchema
// and annotations. The output schema counts: clients pass it on to the
// model with the rest. It is what json.Marshal writes for
// {"tools": [...]} of those fields, counted (QuotedSize, compactSize).
func ListBytes(tools []Tool) int {
	// Sized on every CPU: a large API's default tools are megabytes of
	// schemas (Kubernetes: 35 ms on one).
	sizes := make([]int, len(tools))
	workers.ForEach(len(tools), func(i int) { sizes[i] = listedSize(&tools[i]) })
	n := len(`{"tools":[]}`) + max(len(tools)-1, 0) // the commas
	for _, size := range sizes {
		n += size
	}
	return n
}

// listedSize is the size of one tool's object in tools/list:
//
//	{"name":…,"title":…,"description":…,"inputSchema":…,"outputSchema":…,
//	 "annotations":{"destructiveHint":…,"idempotentHint":…,"openWorldHint":…,"readOnlyHint":…,"title":…}}
//
// with title, description and outputSchema left out when empty.
func listedSize(t *Tool) int {
	n := len(`{"name":`) + QuotedSize(t.Name)
	if t.Title != "" {
		n += len(`,"title":`) + QuotedSize(t.Title)
	}
	if t.Description != "" {
		n += len(`,"description":`) + QuotedSize(t.Description)
	}
	n += len(`,"inputSchema":`) + compactSize(string(RawSchema(t.InputSchema, `{}`)))
	if out := RawSchema(t.OutputSchema, ""); len(out) > 0 {
		n += len(`,"outputSchema":`) + compactSize(string(out))
	}
	n += len(`,"annotations":{"destructiveHint":`) + boolSize(t.Destructive) + len(`,"idempotentHint":`) + boolSize(t.Idempotent) +
		len(`,"openWorldHint":`) + boolSize(t.OpenWorld) + len(`,"readOnlyHint":`) + boolSize(t.ReadOnly) + len(`,"title":`) + QuotedSize(t.Title) + len(`}}`)
	return n
}

func boolSize(b bool) int {
	if b {
		return len("true")
	}
	return len("false")
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
