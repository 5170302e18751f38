package runtime

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
)

// Media types, defined once for the generator and the runtime: which
// bodies are JSON, and which are sequences of items (OpenAPI 3.2
// itemSchema: JSON Lines, JSON text sequences, server-sent events) that a
// tool returns as the list of items that arrived.

// MediaBase is a media type without parameters, in lower case.
func MediaBase(mt string) string {
	base, _, _ := strings.Cut(strings.ToLower(mt), ";")
	return strings.TrimSpace(base)
}

// IsJSONMedia reports application/json, text/json and every +json type
// (geo+json, ld+json, problem+json, vnd.*+json), whatever their case or
// parameters.
func IsJSONMedia(mt string) bool {
	base := MediaBase(mt)
	return base == "application/json" || base == "text/json" || strings.HasSuffix(base, "+json")
}

// Sequence formats of a streamed body.
const (
	// SequenceNone: the body is one value.
	SequenceNone = ""
	// SequenceJSONLines: one JSON value per line (application/jsonl,
	// application/x-ndjson, application/json-seq with its RS separators).
	SequenceJSONLines = "jsonl"
	// SequenceEvents: server-sent events (text/event-stream), each item an
	// object of the event's fields: event, data, id, retry.
	SequenceEvents = "events"
)

// SequenceMedia names the sequence format of a media type, or
// SequenceNone.
func SequenceMedia(mt string) string {
	switch MediaBase(mt) {
	case "application/jsonl", "application/x-ndjson", "application/x-jsonlines", "application/json-seq", "application/jsonlines":
		return SequenceJSONLines
	case "text/event-stream":
		return SequenceEvents
	}
	return SequenceNone
}

// decodeSequence decodes a streamed body into its items; ok is false when
// a JSON Lines item is not JSON. Blank lines separate nothing and are
// skipped; an event's data is kept as text, as OpenAPI 3.2 models it.
func decodeSequence(format string, data []byte) ([]any, bool) {
	if format == SequenceEvents {
		return decodeEvents(data), true
	}
	items := []any{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte{0x1e})) // json-seq record separator
		if len(line) == 0 {
			continue
		}
		v, err := jsonschema.DecodeJSON(string(line))
		if err != nil {
			return nil, false
		}
		items = append(items, v)
	}
	return items, true
}

// decodeEvents parses a text/event-stream body: fields accumulate until a
// blank line ends the event; multi-line data joins with "\n"; comments
// (lines starting with ':') are dropped.
func decodeEvents(data []byte) []any {
	items := []any{}
	event := map[string]any{}
	var dataLines []string
	flush := func() {
		if dataLines != nil {
			event["data"] = strings.Join(dataLines, "\n")
		}
		if len(event) > 0 {
			items = append(items, event)
		}
		event, dataLines = map[string]any{}, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), len(data)+1)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "data":
			dataLines = append(dataLines, value)
		case "event", "id":
			event[field] = value
		case "retry":
			if n, err := jsonschema.DecodeJSON(value); err == nil {
				event[field] = n
			}
		}
	}
	flush()
	return items
}
