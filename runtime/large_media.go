package runtime

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// limitMedia replaces every media item of res over its cap
// (maxMediaBytes) by a link to the stored item, which resources/read
// serves to the caller for resultTTL, and says so in the summary the
// model reads first. An item that cannot be stored fails the call in the
// tool's terms: a cut image or PDF is no use.
func (s *Server) limitMedia(ctx context.Context, bt *boundTool, owner string, res *mcp.CallToolResult) *mcp.CallToolResult {
	var notes []string
	out := make([]mcp.Content, len(res.Content))
	for i, c := range res.Content {
		out[i] = c
		p, ok := contentPart(c)
		if !ok || len(p.data) <= maxMediaBytes(classOf(p)) {
			continue
		}
		sr := storedResult{Blob: p.data, Media: p.mediaType}
		if classOf(p) == classText {
			sr = storedResult{Text: string(p.data), Media: p.mediaType}
		}
		id, err := s.storeResult(ctx, owner, sr)
		if err != nil {
			s.logger.Error("cannot store a large media item", "tool", bt.spec.Name, "error", err)
			return mediaTooLarge(bt, p).result()
		}
		uri, size := resultScheme+id, int64(len(p.data))
		out[i] = &mcp.ResourceLink{URI: uri, Name: bt.spec.Name + " " + p.mediaType, MIMEType: p.mediaType, Size: &size,
			Description: "The " + p.mediaType + " this " + bt.spec.Name + " call returned, for " + resultTTL.String() + "."}
		notes = append(notes, fmt.Sprintf("item %d (%s, %s) is over the %s this server returns inline: read it as the resource %s with resources/read within %s (only you can)",
			i, p.mediaType, countBytes(len(p.data)), textkit.ByteSize(int64(maxMediaBytes(classOf(p)))), uri, resultTTL))
	}
	if len(notes) == 0 {
		return res
	}
	if tc, ok := out[0].(*mcp.TextContent); ok && res.StructuredContent == nil { // the JSON text stays the JSON
		lead := *tc
		for _, n := range notes {
			lead.Text += "; " + n
		}
		lead.Text += "."
		out[0] = &lead
	}
	r := *res
	r.Content = out
	return &r
}

// contentPart is the media a content item carries; ok is false for text
// items and links.
func contentPart(c mcp.Content) (mediaPart, bool) {
	switch x := c.(type) {
	case *mcp.ImageContent:
		return mediaPart{mediaType: x.MIMEType, data: x.Data}, true
	case *mcp.AudioContent:
		return mediaPart{mediaType: x.MIMEType, data: x.Data}, true
	case *mcp.EmbeddedResource:
		if x.Resource == nil {
			return mediaPart{}, false
		}
		if x.Resource.Blob != nil {
			return mediaPart{mediaType: x.Resource.MIMEType, data: x.Resource.Blob}, true
		}
		return mediaPart{mediaType: x.Resource.MIMEType, data: []byte(x.Resource.Text)}, true
	}
	return mediaPart{}, false
}

// mediaTooLarge is the error of a media item over its cap that could not
// be stored for reading.
func mediaTooLarge(bt *boundTool, p mediaPart) *callError {
	return &callError{kind: KindTooLarge, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("The %s the API returned to %s is %s, more than the %s this server returns inline, and it could not be kept for reading. Narrow the request (a smaller size or page) and call again.",
			p.mediaType, bt.spec.Name, countBytes(len(p.data)), textkit.ByteSize(int64(maxMediaBytes(classOf(p)))))}
}
