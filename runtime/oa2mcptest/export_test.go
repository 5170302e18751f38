package oa2mcptest

import (
	"bytes"
	"encoding/json"
)

// EncodeCasesWithEncodingJSON is EncodeCases with encoding/json writing
// the file: the form the case writer is held to.
func EncodeCasesWithEncodingJSON(s Suite) ([]byte, error) {
	f, err := toCaseFile(s)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
