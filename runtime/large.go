package runtime

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// Large results. A result whose JSON is over maxReturnBytes is not cut
// and lost: the model gets its first part as text, with a resource link
// to the whole, which resources/read serves for resultTTL and only to the
// caller that made the call. The whole is kept in the handle store, so
// replicas sharing a Redis store serve each other's links. A tool with an
// output schema keeps its structured content (the contract requires it);
// for the others the text and the link are the result.

const (
	// resultTTL is how long a large result can be read.
	resultTTL = 15 * time.Minute
	// resultScheme starts the URI of a stored result.
	resultScheme = "oa2mcp://results/"
	// resultType is the handle-store record type of a stored result.
	resultType = "result"
)

// limitSize stores a result over maxReturnBytes and replaces its text by
// the first part and a link; smaller results are returned as they are.
func (s *Server) limitSize(ctx context.Context, bt *boundTool, owner string, res *mcp.CallToolResult) *mcp.CallToolResult {
	if res == nil || res.IsError {
		return res
	}
	if len(res.Content) > 1 {
		return s.limitMedia(ctx, bt, owner, res)
	}
	if len(res.Content) != 1 {
		return res
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || len(tc.Text) <= maxReturnBytes {
		return res
	}
	id, err := s.storeResult(ctx, owner, storedResult{Text: tc.Text, JSON: res.StructuredContent != nil})
	if err != nil {
		s.logger.Error("cannot store a large result", "tool", bt.spec.Name, "error", err)
		return tooLargeResult(bt, len(tc.Text)).result()
	}
	uri := resultScheme + id
	size := int64(len(tc.Text))
	mime := "text/plain"
	if res.StructuredContent != nil {
		mime = "application/json"
	}
	head := cutUTF8(tc.Text, maxReturnBytes)
	out := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: head + fmt.Sprintf("\n\n[This is the first %s of a %s result, cut mid-value. The whole result is the resource %s: read it with resources/read within %s (only you can). To get less, narrow the request (filters, a smaller page, fewer fields).]",
			textkit.ByteSize(int64(len(head))), textkit.ByteSize(size), uri, resultTTL)},
		&mcp.ResourceLink{URI: uri, Name: bt.spec.Name + " result", MIMEType: mime, Size: &size,
			Description: "The whole result of this " + bt.spec.Name + " call, for " + resultTTL.String() + "."},
	}}
	if bt.output != nil {
		out.StructuredContent = res.StructuredContent
	}
	return out
}

// storeResult keeps text for resultTTL, owned by owner, and returns its
// id: 160 random bits, like a handle.
func (s *Server) storeResult(ctx context.Context, owner string, sr storedResult) (string, error) {
	var b [handleRandomBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := handleEncoding.EncodeToString(b[:])
	raw, err := json.Marshal(sr)
	if err != nil {
		return "", err
	}
	rec := HandleRecord{Type: resultType, Owner: owner, Value: raw, Expires: s.now().Add(resultTTL).UnixMilli()}
	return id, s.handles.store.Put(ctx, s.handles.ns+"r:"+id, rec, resultTTL)
}

// addResultResource serves stored results at oa2mcp://results/{id}.
func (s *Server) addResultResource() {
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: resultScheme + "{id}", Name: "result",
		Description: "The whole of a tool result too large to return at once, for the caller that made the call.",
		MIMEType:    "application/json"}, s.readResult)
}

// readResult serves one stored result to its owner; for anyone else, and
// once expired, it does not exist.
func (s *Server) readResult(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, ok := strings.CutPrefix(uri, resultScheme)
	if !ok || len(id) != handleRandLen {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var ti *auth.TokenInfo
	if req.Extra != nil {
		ti = req.Extra.TokenInfo
	}
	claims, _ := s.callerOf(ctx, ti)
	rec, found, err := s.handles.store.Get(ctx, s.handles.ns+"r:"+id)
	if err != nil {
		return nil, fmt.Errorf("the result store is not reachable; retry in a few seconds")
	}
	if !found || rec.Type != resultType || rec.Owner != s.signer.owner(claims["sub"]) || s.now().UnixMilli() >= rec.Expires {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	var sr storedResult
	if err := json.Unmarshal(rec.Value, &sr); err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	rc := &mcp.ResourceContents{URI: uri, MIMEType: sr.mediaType(), Text: sr.Text}
	if sr.Blob != nil {
		rc.Text, rc.Blob = "", sr.Blob
	}
	// Only its owner may read it: no shared cache may keep it.
	return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{CacheScope: "private"},
		Contents: []*mcp.ResourceContents{rc}}, nil
}

// storedResult is a large result as the store keeps it: text (JSON or
// not), or a media item's bytes with their media type.
type storedResult struct {
	Text  string `json:"text"`
	JSON  bool   `json:"json,omitempty"`
	Blob  []byte `json:"blob,omitempty"`
	Media string `json:"media,omitempty"`
}

// mediaType is the media type a stored result is read as.
func (sr storedResult) mediaType() string {
	switch {
	case sr.Media != "":
		return sr.Media
	case sr.JSON:
		return "application/json"
	}
	return "text/plain"
}

// cutUTF8 cuts s to at most n bytes at a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
