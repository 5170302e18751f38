package ir

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSON encodes v as two-space indented JSON without HTML escaping, the
// form schemas take in the IR. encoding/json sorts map keys, so the same
// value always gives the same bytes.
func JSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}
