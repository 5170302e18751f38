// Package media holds the media-type rules the generator and the runtime
// share: which bodies are JSON, and which are sequences of items (OpenAPI
// 3.2 itemSchema: JSON Lines, JSON text sequences, server-sent events)
// that a tool returns as the list of items that arrived.
package media

import "strings"

// Base is a media type without parameters, in lower case.
func Base(mt string) string {
	base, _, _ := strings.Cut(strings.ToLower(mt), ";")
	return strings.TrimSpace(base)
}

// IsJSON reports application/json, text/json and every +json type
// (geo+json, ld+json, problem+json, vnd.*+json), whatever their case or
// parameters.
func IsJSON(mt string) bool {
	base := Base(mt)
	return base == "application/json" || base == "text/json" || strings.HasSuffix(base, "+json")
}

// Sequence formats of a streamed body.
const (
	// None: the body is one value.
	None = ""
	// JSONLines: one JSON value per line (application/jsonl,
	// application/x-ndjson, application/json-seq with its RS separators).
	JSONLines = "jsonl"
	// Events: server-sent events (text/event-stream), each item an object
	// of the event's fields: event, data, id, retry.
	Events = "events"
)

// Sequence names the sequence format of a media type, or None.
func Sequence(mt string) string {
	switch Base(mt) {
	case "application/jsonl", "application/x-ndjson", "application/x-jsonlines", "application/json-seq", "application/jsonlines":
		return JSONLines
	case "text/event-stream":
		return Events
	}
	return None
}
