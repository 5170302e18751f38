package runtime

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	defaultMaxResponseBytes = 1 << 20  // upstream bytes read per call
	defaultMaxRequestBytes  = 1 << 20  // encoded request body per call
	maxErrorBodyBytes       = 64 << 10 // error bodies are only summarised
	maxResponseHeaderBytes  = 64 << 10 // an upstream response's header block
)

// upstreamBody is a response body read up to the limit.
type upstreamBody struct {
	data      []byte
	truncated bool   // more than the limit was sent
	mediaType string // lower-cased, without parameters
	boundary  string // of a multipart body
}

// maxBytesError reports a response over the limit.
type maxBytesError struct{ limit int64 }

func (e *maxBytesError) Error() string {
	return fmt.Sprintf("response larger than %d bytes", e.limit)
}

// readUpstreamBody is the one reader of every upstream body. It reads at
// most limit+1 bytes whatever the status, and never allocates from the
// declared Content-Length (a hostile upstream may declare any length):
// the buffer grows with the bytes that actually arrive. A 2xx body over
// the limit is an error (a cut document is useless or misleading); an
// error body is only summarised, so it is read up to maxErrorBodyBytes
// and cut. A 2xx whose declared Content-Length is over the limit fails
// before reading.
func readUpstreamBody(resp *http.Response, limit int64) (*upstreamBody, error) {
	ct := resp.Header.Get("Content-Type")
	b := &upstreamBody{mediaType: mediaTypeOf(ct), boundary: multipartBoundary(ct)}
	ok := resp.StatusCode >= 200 && resp.StatusCode <= 299
	if !ok {
		limit = min(limit, maxErrorBodyBytes)
	}
	if ok && resp.ContentLength > limit {
		return b, &maxBytesError{limit: limit}
	}
	var buf bytes.Buffer
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

func isTextMedia(mt string) bool {
	switch {
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+xml"), mt == "application/xml",
		mt == "application/javascript", mt == "application/x-www-form-urlencoded",
		mt == "application/yaml", mt == "application/x-yaml", mt == "application/csv", mt == "":
		return true
	}
	return false
}

func textResult(text string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isError}
}
