package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
)

// Upstream media as MCP content. A successful body that is not JSON is
// returned as what it is: image/* as image content, audio/* as audio
// content, anything else (text/plain, text/csv, application/pdf, ...) as
// an embedded resource holding the text or the bytes with their media
// type, and a multipart body as those items in the order of its parts.
// A short text item comes first, for the model to read before anything
// else: "image/png, 12,345 bytes, from GET /pets/{id}/photo". An item
// over its media's cap (maxMediaBytes) is not inlined: limitSize stores
// it and links to it, as it does for large JSON (large.go).

// Media caps: the most one item of each class carries inline. The
// upstream read limit (MaxResponseBytes, 1 MiB by default) bounds the
// whole body before any of this.
const (
	maxImageBytes = 1 << 20   // image/*: what model APIs accept per image
	maxAudioBytes = 1 << 20   // audio/*
	maxBlobBytes  = 256 << 10 // any other binary media (pdf, zip, ...)
	maxTextBytes  = maxReturnBytes
	// maxParts bounds the parts of a multipart body.
	maxParts = 32
)

// mediaPart is one non-JSON body, or one part of a multipart body.
type mediaPart struct {
	mediaType string // lower-cased, without parameters; never empty
	data      []byte
}

// mediaClass names what MCP content a media type becomes.
type mediaClass int

const (
	classText  mediaClass = iota // embedded resource with text
	classBlob                    // embedded resource with a blob
	classImage                   // image content
	classAudio                   // audio content
)

// classOf classifies a part by its media type and, for text, its bytes.
func classOf(p mediaPart) mediaClass {
	switch {
	case strings.HasPrefix(p.mediaType, "image/"):
		return classImage
	case strings.HasPrefix(p.mediaType, "audio/"):
		return classAudio
	case (media.IsJSON(p.mediaType) || isTextMedia(p.mediaType)) && utf8.Valid(p.data):
		return classText
	}
	return classBlob
}

// maxMediaBytes is the inline cap of a class.
func maxMediaBytes(c mediaClass) int {
	switch c {
	case classImage:
		return maxImageBytes
	case classAudio:
		return maxAudioBytes
	case classText:
		return maxTextBytes
	}
	return maxBlobBytes
}

// checkMedia settles the media type of a binary body by its bytes: a
// missing type is sniffed; a claimed image or audio whose bytes are text
// (an error page, JSON) is a lie the result must not repeat, reported as
// false. Otherwise the claim stands: sniffing knows few formats and names
// some differently (audio/wave for audio/wav).
func checkMedia(p *mediaPart) bool {
	sniffed := media.Base(http.DetectContentType(p.data))
	if p.mediaType == "" {
		p.mediaType = sniffed
		return true
	}
	media := strings.HasPrefix(p.mediaType, "image/") || strings.HasPrefix(p.mediaType, "audio/")
	return !media || p.mediaType == "image/svg+xml" || !strings.HasPrefix(sniffed, "text/")
}

// splitMultipart parses a multipart body into its parts; ok is false for
// a body cut short, without a boundary, or with more than maxParts parts.
// A part without Content-Type is text/plain (RFC 2046).
func splitMultipart(data []byte, boundary string) ([]mediaPart, bool) {
	if boundary == "" {
		return nil, false
	}
	r := multipart.NewReader(bytes.NewReader(data), boundary)
	var parts []mediaPart
	for {
		p, err := r.NextRawPart()
		if errors.Is(err, io.EOF) {
			return parts, len(parts) > 0
		}
		if err != nil || len(parts) == maxParts {
			return nil, false
		}
		body, err := io.ReadAll(p)
		if err != nil {
			return nil, false
		}
		parts = append(parts, mediaPart{mediaType: partMedia(p.Header), data: body})
	}
}

// partMedia is a part's media type, text/plain when it declares none.
func partMedia(h textproto.MIMEHeader) string {
	if mt := mediaTypeOf(h.Get("Content-Type")); mt != "" {
		return mt
	}
	return "text/plain"
}

// mediaContent is the content of a media result: the summary a model
// reads first, then one item per part, in order. uri names the call; a
// multipart body's parts get "#N" fragments.
func mediaContent(parts []mediaPart, multipartType, uri, label string) []mcp.Content {
	out := make([]mcp.Content, 0, len(parts)+1)
	out = append(out, &mcp.TextContent{Text: mediaSummary(parts, multipartType, label)})
	for i, p := range parts {
		u := uri
		if multipartType != "" {
			u = uri + "#" + strconv.Itoa(i+1)
		}
		out = append(out, partContent(p, u))
	}
	return out
}

// partContent is one part as MCP content.
func partContent(p mediaPart, uri string) mcp.Content {
	switch classOf(p) {
	case classImage:
		return &mcp.ImageContent{Data: p.data, MIMEType: p.mediaType}
	case classAudio:
		return &mcp.AudioContent{Data: p.data, MIMEType: p.mediaType}
	case classText:
		return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: p.mediaType, Text: string(p.data)}}
	}
	return &mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: uri, MIMEType: p.mediaType, Blob: p.data}}
}

// mediaSummary is the text a model reads first: "image/png, 12,345
// bytes, from GET /pets/{id}/photo", or for multipart "multipart/mixed,
// 2 parts (text/plain, 28 bytes; image/png, 68 bytes), from GET /report".
func mediaSummary(parts []mediaPart, multipartType, label string) string {
	if multipartType == "" && len(parts) == 1 {
		return fmt.Sprintf("%s, %s, from %s", parts[0].mediaType, countBytes(len(parts[0].data)), label)
	}
	each := make([]string, len(parts))
	for i, p := range parts {
		each[i] = p.mediaType + ", " + countBytes(len(p.data))
	}
	return fmt.Sprintf("%s, %d parts (%s), from %s", multipartType, len(parts), strings.Join(each, "; "), label)
}

// countBytes writes n with thousands separators: "12,345 bytes".
func countBytes(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if n == 1 {
		return "1 byte"
	}
	return s + " bytes"
}

// multipartBoundary is the boundary parameter of a multipart Content-Type.
func multipartBoundary(ct string) string {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		return ""
	}
	return params["boundary"]
}

// callScheme starts the URI that names a call in embedded resources:
// oa2mcp://calls/TOOL/PATH, PATH being the upstream path the call read
// (never its query, which may carry credentials).
const callScheme = "oa2mcp://calls/"

// callURI names the call of bt that sent req.
func callURI(bt *boundTool, req *http.Request) string {
	return callScheme + bt.spec.Name + req.URL.EscapedPath()
}

// readsMedia reports a tool one of whose operations declares a media
// (non-JSON) success response.
func (t *Tool) readsMedia() bool {
	if t.Op != nil && t.Op.ResponseMedia != "" {
		return true
	}
	for _, st := range t.Steps {
		if st.Op.ResponseMedia != "" {
			return true
		}
	}
	for _, a := range t.Actions {
		for _, st := range a.Steps {
			if st.Op.ResponseMedia != "" {
				return true
			}
		}
	}
	return false
}
