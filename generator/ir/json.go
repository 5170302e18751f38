package ir

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSON encodes v as two-space indented JSON without HTML escaping, the
// form schemas take in the IR. encoding/json sorts map keys, so the same
// value always gives the same bytes.
func JSON(v any) (string, error) { return encode(v, "  ") }

// CompactJSON is JSON without the indentation, for schemas only the
// generator reads.
func CompactJSON(v any) (string, error) { return encode(v, "") }

func encode(v any, indent string) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
