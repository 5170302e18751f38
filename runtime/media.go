package runtime

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
)

// Sequence formats of a streamed body (Output.Sequence); the media-type
// rules themselves live in runtime/internal/media, which the generator
// reaches through oa2mcpimpl.
const (
	// SequenceNone: the body is one value.
	SequenceNone = media.None
	// SequenceJSONLines: one JSON value per line (application/jsonl,
	// application/x-ndjson, application/json-seq with its RS separators).
	SequenceJSONLines = media.JSONLines
	// SequenceEvents: server-sent events (text/event-stream), each item an
	// object of the event's fields: event, data, id, retry.
	SequenceEvents = media.Events
)

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
