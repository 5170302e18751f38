package ir

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// JSON encodes v as two-space indented JSON without HTML escaping, the
// form schemas take in the IR. encoding/json sorts map keys, so the same
// value always gives the same bytes.
func JSON(v any) (string, error) { return encode(v, "  ") }

// CompactJSON is JSON without the indentation, for schemas only the
// generator reads.
func CompactJSON(v any) (string, error) { return encode(v, "") }

func encode(v any, indent string) (string, error) {
	// Plain values (a decoded schema) skip reflection. A json.Encoder
	// with an indent writes the compact form and then indents it, as
	// here.
	if b, ok := oa2mcpimpl.AppendJSON(nil, v, false); ok {
		if indent == "" {
			return string(b), nil
		}
		var buf bytes.Buffer
		if err := json.Indent(&buf, b, "", indent); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
