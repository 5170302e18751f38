package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// From upstream responses to tool results. A 2xx body is read once (up
// to the response limit), classified and, when it is JSON, decoded once;
// steps, shaping and the final result all work on the decoded value, and
// the result is encoded once at the end.

// bodyKind classifies a successful upstream body.
type bodyKind int

const (
	bodyEmpty bodyKind = iota // no content (204, empty 200)
	bodyJSON                  // value holds the decoded JSON
	bodyText                  // value holds the text; parts the body
	bodyMedia                 // parts hold the body (content.go)
)

// upstreamResult is one successful upstream response.
type upstreamResult struct {
	status int
	body   *upstreamBody
	kind   bodyKind
	value  any
	// parts are a text or media body as content carries it; multipart
	// names the multipart type they came in, else "".
	parts     []mediaPart
	multipart string
	// label ("GET /pets/{id}/photo") and uri name the call in media
	// content; set by roundTrip.
	label, uri string
}

// decodeSuccess classifies a 2xx body. An HTML page where data was
// expected, or JSON that does not parse, is a bad_response error.
func (s *Server) decodeSuccess(bt *boundTool, status int, b *upstreamBody) (*upstreamResult, *callError) {
	ur := &upstreamResult{status: status, body: b}
	head := string(b.data[:min(len(b.data), 512)])
	switch {
	case len(bytes.TrimSpace(b.data)) == 0:
		ur.kind = bodyEmpty
	case media.Sequence(b.mediaType) != SequenceNone:
		items, ok := decodeSequence(media.Sequence(b.mediaType), b.data)
		if !ok {
			return nil, s.badResponse(bt, status, b)
		}
		ur.kind, ur.value = bodyJSON, items
	case media.IsJSON(b.mediaType) || b.mediaType == "" && json.Valid(b.data) || b.mediaType == "text/plain" && looksLikeJSON(b.data):
		v, err := jsonschema.DecodeJSON(string(b.data))
		if err != nil {
			return nil, s.badResponse(bt, status, b)
		}
		ur.kind, ur.value = bodyJSON, v
	case b.mediaType == "text/html" || ((b.mediaType == "" || isTextMedia(b.mediaType)) && looksLikeHTML(head)):
		return nil, s.badResponse(bt, status, b)
	case strings.HasPrefix(b.mediaType, "multipart/"):
		parts, ok := splitMultipart(b.data, b.boundary)
		if !ok {
			return nil, s.badMultipart(bt, status, b)
		}
		ur.kind, ur.parts, ur.multipart = bodyMedia, parts, b.mediaType
	case isTextMedia(b.mediaType) && utf8.Valid(b.data):
		mt := b.mediaType
		if mt == "" {
			mt = "text/plain"
		}
		ur.kind, ur.value, ur.parts = bodyText, string(b.data), []mediaPart{{mediaType: mt, data: b.data}}
	default:
		p := mediaPart{mediaType: b.mediaType, data: b.data}
		if !checkMedia(&p) {
			return nil, s.mislabelled(bt, status, b, p)
		}
		ur.kind, ur.parts = bodyMedia, []mediaPart{p}
	}
	return ur, nil
}

// looksLikeJSON reports a JSON object or array: what an API labelled
// text/plain (net/http's guess for unlabelled JSON) still means as JSON.
// A bare word or number stays text.
func looksLikeJSON(data []byte) bool {
	t := bytes.TrimSpace(data)
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(t)
}

// stepValue is what a step's response contributes to bindings and the
// merged result: the decoded JSON, the text, or nothing.
func (ur *upstreamResult) stepValue() any {
	switch ur.kind {
	case bodyJSON, bodyText:
		return ur.value
	}
	return nil
}

// operationResult turns the response of a one-operation tool into its
// result: JSON is shaped (when the tool says how) and returned as
// structured content; text, images and binary content are returned as
// such, unless the tool promises structured output.
func (s *Server) operationResult(bt *boundTool, args map[string]any, ur *upstreamResult) (*mcp.CallToolResult, *callError) {
	switch ur.kind {
	case bodyJSON:
		return s.finishResult(bt, shapeResult(ur.value, bt.spec.Output, args))
	case bodyEmpty:
		return s.noContentResult(bt, ur.status)
	}
	if bt.output != nil {
		return nil, s.notJSON(bt, ur)
	}
	return &mcp.CallToolResult{Content: mediaContent(ur.parts, ur.multipart, ur.uri, ur.label)}, nil
}

// noContentResult is the result of a call whose API answered without a
// body: an empty object for a tool that promises structured output, else
// a sentence saying so (a bare {"result":null} tells a model nothing).
func (s *Server) noContentResult(bt *boundTool, status int) (*mcp.CallToolResult, *callError) {
	if bt.output != nil {
		return s.finishResult(bt, map[string]any{})
	}
	return textResult(fmt.Sprintf("The call succeeded (HTTP %d %s) and the API returned no content.", status, http.StatusText(status)), false), nil
}

// notJSON is the error of a tool promising structured output whose API
// answered with something else.
func (s *Server) notJSON(bt *boundTool, ur *upstreamResult) *callError {
	return &callError{kind: KindBadResponse, status: ur.status, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("The API answered %s with %s instead of JSON data, so the tool cannot return it. Tell the user the API is answering unexpectedly; do not retry unchanged.", bt.spec.Name, mediaOr(ur.body.mediaType))}
}

// finishResult makes the result of a successful call from its value:
// secrets the API echoed are redacted, a value that is not an object is
// wrapped as {"result": value} (clients before 2026-07-28 accept only
// objects), the value is checked against the output schema and encoded
// once, as structured content and the same JSON as text.
func (s *Server) finishResult(bt *boundTool, v any) (*mcp.CallToolResult, *callError) {
	v = normalizeValue(v)
	if len(s.creds.secrets) > 0 {
		v = redactValue(v, s.creds)
	}
	v = wrapObject(v)
	if cerr := s.checkValue(bt, v); cerr != nil {
		return nil, cerr
	}
	b, err := marshalJSON(v)
	if err != nil {
		return nil, &callError{kind: KindBadResponse, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("The result of %s could not be encoded as JSON (%v). Tell the user the tool has a fault.", bt.spec.Name, err)}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
}

// maxReturnBytes bounds the JSON a result hands a model.
const maxReturnBytes = 100 * 1024

// tooLargeResult is the error of a result over maxReturnBytes.
func tooLargeResult(bt *boundTool, n int) *callError {
	return &callError{kind: KindTooLarge, retryAfter: retryAfterUnknown,
		msg: fmt.Sprintf("The result of %s would be %s, more than the %s this server returns at once. Narrow the request (filters, a smaller page, fewer fields) and call again.", bt.spec.Name, textkit.ByteSize(int64(n)), textkit.ByteSize(maxReturnBytes))}
}

// marshalJSON encodes v compactly without HTML escaping.
func marshalJSON(v any) ([]byte, error) {
	if b, ok := plainjson.Append(nil, v, false); ok {
		return b, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// checkValue validates a result value against the tool's output schema.
// A value off the schema is a bad_response error, never a result that
// breaks the schema: strict clients would reject the whole call.
func (s *Server) checkValue(bt *boundTool, v any) *callError {
	return s.checkAgainst(bt, bt.output, v)
}

// wrapObject is v as structured content carries it: an object as it is,
// anything else as {"result": v} (clients before 2026-07-28 accept only
// objects).
func wrapObject(v any) any {
	if _, ok := v.(map[string]any); !ok {
		return map[string]any{"result": v}
	}
	return v
}

// checkAgainst validates a result value against one output schema (the
// tool's, or its chosen action's); nil checks nothing.
func (s *Server) checkAgainst(bt *boundTool, schema *jsonschema.Node, v any) *callError {
	if schema == nil {
		return nil
	}
	val := &jsonschema.Validator{}
	val.Check(schema, v, "", 0)
	if !val.Failed() {
		return nil
	}
	return &callError{kind: KindBadResponse, retryAfter: retryAfterUnknown,
		msg: s.creds.redact(outputMismatch(bt, val) + " The API may have changed; tell the user the tool needs updating. Do not retry unchanged.")}
}

// checkOutput validates a result's structured content, e.g. after a
// middleware changed it.
func (s *Server) checkOutput(bt *boundTool, res *mcp.CallToolResult) *callError {
	if bt.output == nil {
		return nil
	}
	if res.StructuredContent == nil {
		return &callError{kind: KindBadResponse, retryAfter: retryAfterUnknown,
			msg: fmt.Sprintf("%s returned no structured result although it promises one. Tell the user the tool has a fault.", bt.spec.Name)}
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return &callError{kind: KindBadResponse, retryAfter: retryAfterUnknown, msg: "The result could not be encoded as JSON: " + err.Error()}
	}
	v, err := jsonschema.DecodeJSON(string(raw))
	if err != nil {
		return &callError{kind: KindBadResponse, retryAfter: retryAfterUnknown, msg: "The result is not valid JSON: " + err.Error()}
	}
	return s.checkValue(bt, v)
}

// normalizeValue makes v a value as encoding/json decodes it with
// UseNumber: Go numbers become json.Number and typed slices and maps
// []any and map[string]any (shaping adds counts and lists of its own).
// Maps and slices of any are changed in place.
func normalizeValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeValue(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalizeValue(e)
		}
		return x
	case int:
		return json.Number(strconv.Itoa(x))
	case int64:
		return json.Number(strconv.FormatInt(x, 10))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	case []string:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = e
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = e
		}
		return out
	}
	return v
}

// redactValue replaces configured secrets in every string of v.
func redactValue(v any, cs *credentialSet) any {
	switch x := v.(type) {
	case string:
		return cs.redact(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[cs.redact(k)] = redactValue(e, cs)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = redactValue(e, cs)
		}
		return out
	}
	return v
}
