package runtime

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
	defaultMaxResponseBytes = 1 << 20    // upstream bytes read per call
	defaultMaxRequestBytes  = 1 << 20    // encoded request body per call
	maxReturnBytes          = 100 * 1024 // text bytes returned to the model
	maxErrorBodyBytes       = 64 << 10   // error bodies are only summarised
)

// maxReadBytes is the default response limit, for messages.
const maxReadBytes = defaultMaxResponseBytes

// upstreamBody is a response body read up to the limit.
type upstreamBody struct {
	data      []byte
	truncated bool   // more than the limit was sent
	mediaType string // lower-cased, without parameters
}

// maxBytesError reports a response over the limit.
type maxBytesError struct{ limit int64 }

func (e *maxBytesError) Error() string {
	return fmt.Sprintf("response larger than %d bytes", e.limit)
}

// readUpstreamBody reads at most limit bytes. A 2xx body over the limit is
// an error (a cut document is useless or misleading); an error body is
// only summarised, so it is read up to maxErrorBodyBytes and cut. A
// declared Content-Length over the limit fails before reading.
func readUpstreamBody(resp *http.Response, limit int64) (*upstreamBody, error) {
	b := &upstreamBody{mediaType: mediaTypeOf(resp.Header.Get("Content-Type"))}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if !ok {
		limit = min(limit, maxErrorBodyBytes)
	}
	if ok && resp.ContentLength > limit {
		return b, &maxBytesError{limit: limit}
	}
	size := 512
	if resp.ContentLength > 0 {
		size = int(resp.ContentLength) + 1
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	_, err := buf.ReadFrom(io.LimitReader(resp.Body, limit+1))
	b.data = buf.Bytes()
	if int64(len(b.data)) > limit {
		b.data, b.truncated = b.data[:limit], true
		if ok {
			return b, &maxBytesError{limit: limit}
		}
	}
	if err != nil && !ok && len(b.data) > 0 {
		err = nil // a partial error body still says enough
	}
	return b, err
}

func mediaTypeOf(ct string) string {
	if ct == "" {
		return ""
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return mt
	}
	return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
}

// successResult maps a 2xx response onto a tool result. JSON becomes
// structuredContent plus the same JSON as text; text is returned as text;
// images as image content; other binary content is described, not shown.
// An HTML page or invalid JSON is a bad_response error.
func (s *Server) successResult(bt *boundTool, op *compiledOp, status int, b *upstreamBody) (*mcp.CallToolResult, *callError) {
	if len(bytes.TrimSpace(b.data)) == 0 {
		return textResult(fmt.Sprintf("The call succeeded (HTTP %d %s) and the API returned no content.", status, http.StatusText(status)), false), nil
	}
	switch {
	case isJSONMedia(b.mediaType):
		res, ok := jsonResult(b)
		if !ok {
			return nil, s.badResponse(op, status, b)
		}
		return s.checkOutput(bt, res)
	case b.mediaType == "text/html" || ((b.mediaType == "" || isTextMedia(b.mediaType)) && looksLikeHTML(string(b.data[:min(len(b.data), 512)]))):
		return nil, s.badResponse(op, status, b)
	case b.mediaType == "" && json.Valid(b.data):
		res, _ := jsonResult(b)
		return s.checkOutput(bt, res)
	case isTextMedia(b.mediaType) && utf8.Valid(b.data):
		return textResult(truncateText(string(b.data), b.truncated, len(b.data)), false), nil
	case strings.HasPrefix(b.mediaType, "image/") && !b.truncated:
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: b.data, MIMEType: b.mediaType},
		}}, nil
	}
	size := fmt.Sprintf("%d bytes", len(b.data))
	mt := b.mediaType
	if mt == "" {
		mt = "an unknown type"
	}
	return textResult(fmt.Sprintf("The call succeeded and the API returned binary content (%s, %s). It is not shown here.", mt, size), false), nil
}

// jsonResult returns the JSON as structuredContent and compact text, or
// false when it is not valid JSON. Non-object JSON is wrapped as
// {"result": value} because clients before 2026-07-28 accept only objects
// there.
func jsonResult(b *upstreamBody) (*mcp.CallToolResult, bool) {
	compact := bytes.NewBuffer(make([]byte, 0, len(b.data)))
	if json.Compact(compact, b.data) != nil {
		return nil, false
	}
	if compact.Len() > maxReturnBytes {
		// Too big to hand a model whole: give a truncated text only, since
		// a cut structured value would be invalid or misleading.
		return textResult(truncateText(compact.String(), false, compact.Len()), false), true
	}
	raw := json.RawMessage(compact.Bytes())
	var structured any = raw
	if raw[0] != '{' {
		structured = map[string]any{"result": raw}
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: structured,
	}, true
}

// checkOutput validates structured content against the tool's
// OutputSchema. A mismatch is a bad_response error, never a protocol
// error and never a result that breaks the schema.
func (s *Server) checkOutput(bt *boundTool, res *mcp.CallToolResult) (*mcp.CallToolResult, *callError) {
	if bt.output == nil || res.StructuredContent == nil {
		return res, nil
	}
	var raw []byte
	switch sc := res.StructuredContent.(type) {
	case json.RawMessage:
		raw = sc
	default:
		raw, _ = json.Marshal(sc)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return res, nil
	}
	val := &validator{}
	val.check(bt.output, v, "", 0)
	if !val.failed() {
		return res, nil
	}
	// A result off its advertised schema would make strict clients reject
	// the whole call: report it as an error the model can act on instead.
	return nil, &callError{kind: kindBadResponse, retryAfter: retryAfterUnknown,
		msg: s.creds.redact(outputMismatch(bt, val) + " The API may have changed; tell the user the tool needs updating. Do not retry unchanged.")}
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
