package rt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	maxReadBytes   = 1 << 20    // upstream bytes read per call
	maxReturnBytes = 100 * 1024 // text bytes returned to the model
)

// upstreamBody is a response body read up to maxReadBytes.
type upstreamBody struct {
	data      []byte
	truncated bool   // more than maxReadBytes were sent
	mediaType string // lower-cased, without parameters
}

func readUpstreamBody(resp *http.Response) (*upstreamBody, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReadBytes+1))
	b := &upstreamBody{data: data}
	if len(data) > maxReadBytes {
		b.data, b.truncated = data[:maxReadBytes], true
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, _, perr := mime.ParseMediaType(ct); perr == nil {
			b.mediaType = mt
		} else {
			b.mediaType = strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
		}
	}
	return b, err
}

// successResult maps a 2xx response onto a tool result. JSON becomes
// structuredContent plus the same JSON as text; text is returned as text;
// images as image content; other binary content is described, not shown.
func successResult(status int, b *upstreamBody) *mcp.CallToolResult {
	if len(bytes.TrimSpace(b.data)) == 0 {
		return textResult(fmt.Sprintf("The call succeeded (HTTP %d %s) and the API returned no content.", status, http.StatusText(status)), false)
	}
	switch {
	case isJSONMedia(b.mediaType) || (b.mediaType == "" && json.Valid(b.data)):
		return jsonResult(b)
	case isTextMedia(b.mediaType) && utf8.Valid(b.data):
		return textResult(truncateText(string(b.data), b.truncated, len(b.data)), false)
	case strings.HasPrefix(b.mediaType, "image/") && !b.truncated:
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: b.data, MIMEType: b.mediaType},
		}}
	}
	size := fmt.Sprintf("%d bytes", len(b.data))
	if b.truncated {
		size = fmt.Sprintf("more than %d bytes", maxReadBytes)
	}
	mt := b.mediaType
	if mt == "" {
		mt = "an unknown type"
	}
	return textResult(fmt.Sprintf("The call succeeded and the API returned binary content (%s, %s). It is not shown here.", mt, size), false)
}

// jsonResult returns the JSON as structuredContent and compact text.
// Non-object JSON is wrapped as {"result": value} because clients before
// 2026-07-28 accept only objects there.
func jsonResult(b *upstreamBody) *mcp.CallToolResult {
	var compact bytes.Buffer
	if b.truncated || json.Compact(&compact, b.data) != nil {
		return textResult(truncateText(string(b.data), b.truncated, len(b.data)), false)
	}
	if compact.Len() > maxReturnBytes {
		// Too big to hand a model whole: give a truncated text only, since
		// a cut structured value would be invalid or misleading.
		return textResult(truncateText(compact.String(), false, compact.Len()), false)
	}
	text := compact.String()
	raw := json.RawMessage(compact.Bytes())
	var structured any = raw
	if raw[0] != '{' {
		structured = map[string]any{"result": raw}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: structured,
	}
}

func isTextMedia(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+xml"), mt == "application/xml",
		mt == "application/javascript", mt == "application/x-www-form-urlencoded",
		mt == "application/yaml", mt == "application/x-yaml", mt == "application/csv", mt == "":
		return true
	}
	return false
}

// truncateText cuts s to maxReturnBytes at a rune boundary and says so.
func truncateText(s string, readTruncated bool, total int) string {
	if len(s) <= maxReturnBytes && !readTruncated {
		return s
	}
	cut := min(len(s), maxReturnBytes)
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	size := fmt.Sprintf("%d bytes", total)
	if readTruncated {
		size = fmt.Sprintf("more than %d bytes", maxReadBytes)
	}
	return s[:cut] + fmt.Sprintf("\n\n[Truncated: the response was %s; only the first %d bytes are shown. Narrow the request (filters, smaller page size) to see the rest.]", size, cut)
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}
