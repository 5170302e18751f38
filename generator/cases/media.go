package cases

import (
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime"
)

// samplePNG is a 1x1 PNG: an image whose bytes say they are one.
const samplePNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"

// sampleBinary is bytes no sniffer takes for text, for any other binary
// media type (audio, PDF, archives).
const sampleBinary = "\x00\x01oa2mcp sample\x00\xff"

// sampleBoundary separates the parts of a synthesised multipart body.
const sampleBoundary = "oa2mcp-sample"

// mediaSample is a success body of a non-JSON media type, with the
// Content-Type it is sent with: text for text types, a real PNG for
// image/png, binary bytes for other images, audio and files, one text
// part for multipart types.
func mediaSample(mediaType string) (contentType, body string) {
	base := runtime.MediaBase(mediaType)
	switch {
	case strings.HasPrefix(base, "multipart/"):
		return base + "; boundary=" + sampleBoundary,
			"--" + sampleBoundary + "\r\nContent-Type: text/plain\r\n\r\nexample\r\n--" + sampleBoundary + "--\r\n"
	case base == "image/png":
		return mediaType, samplePNG
	case strings.HasPrefix(base, "image/") && !strings.Contains(base, "svg"), strings.HasPrefix(base, "audio/"),
		strings.HasPrefix(base, "video/"), strings.HasPrefix(base, "application/") && !textual(base):
		return mediaType, sampleBinary
	}
	return mediaType, "example"
}

// textual reports application types that carry text.
func textual(base string) bool {
	return strings.HasSuffix(base, "+xml") || base == "application/xml" || base == "application/javascript" ||
		base == "application/yaml" || base == "application/x-yaml" || base == "application/csv" ||
		base == "application/x-www-form-urlencoded"
}
