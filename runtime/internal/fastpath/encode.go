package fastpath

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
)

// Responses are encoded as go-sdk v1.8.0 encodes them: Server.callTool
// turns nil content into [], ServerSession.handle names the server in
// the _meta of results when annotate (a request of revision 2026-07-28
// or later), sessions of that revision get resultType "complete" when
// complete (CallToolResult.MarshalJSON writes it last), and jsonrpc2
// wraps the result, which json.Marshal made compact, unchanged.
//
// The results tools return are nearly always one text content and,
// for JSON data, the same JSON as structured content. For those the
// encoder writes the bytes itself (appendPlainResult): encoding/json
// would walk the result by reflection, encode the text twice (the
// content's MarshalJSON, then the compaction of its output) and scan the
// structured content once more to compact it, a fifth of the fast
// path's CPU per call. Every other result goes through the SDK's
// MarshalJSON. TestEncodeResponseMatchesSDK compares both on random
// results.

// resultEncoder encodes the responses of one server.
type resultEncoder struct {
	impl *mcp.Implementation
	// serverInfo is _meta naming the server, {"<MetaKeyServerInfo>":impl},
	// as json.Marshal writes it; encoded once.
	serverInfo []byte
	// buffers hold response lines between calls (getBuffer): a line is
	// encoded into one, written, and the buffer serves the next call.
	buffers sync.Pool
}

func newResultEncoder(impl *mcp.Implementation) *resultEncoder {
	b, _ := json.Marshal(map[string]any{mcp.MetaKeyServerInfo: impl}) // a struct of strings: never fails
	return &resultEncoder{impl: impl, serverInfo: b}
}

// encode appends the JSON-RPC response to c to dst.
func (e *resultEncoder) encode(dst []byte, c *fastCall, res *mcp.CallToolResult, err error, annotate, complete bool) ([]byte, error) {
	if err != nil {
		b, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Error: err})
		return append(dst, b...), err
	}
	start := len(dst)
	dst = append(append(append(dst, `{"jsonrpc":"2.0","id":`...), c.idKey...), `,"result":`...)
	if out, ok := e.appendPlainResult(dst, res, annotate); ok {
		if complete {
			out = append(out[:len(out)-1], `,"resultType":"complete"}`...)
		}
		return append(out, '}'), nil
	}
	raw, err := e.sdkResult(res, annotate)
	if err != nil {
		return dst[:start], err
	}
	if complete {
		end := bytes.LastIndexByte(raw, '}')
		dst = append(dst, raw[:end]...)
		if len(bytes.TrimSpace(raw[1:end])) > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, `"resultType":"complete"`...), raw[end:]...)
	} else {
		dst = append(dst, raw...)
	}
	return append(dst, '}'), nil
}

// sdkResult is res as the SDK encodes it, the server named in _meta
// when annotate (as the SDK does, in res's own _meta).
func (e *resultEncoder) sdkResult(res *mcp.CallToolResult, annotate bool) ([]byte, error) {
	if res.Content == nil {
		r := *res
		r.Content = []mcp.Content{}
		res = &r
	}
	if annotate {
		m := res.Meta
		if m == nil {
			m = map[string]any{}
		}
		if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
			m[mcp.MetaKeyServerInfo] = e.impl
			res.Meta = m
		}
	}
	return res.MarshalJSON()
}

// appendPlainResult appends res as the SDK would encode it when res is
// plain: no _meta of its own, no input requests, at most one text
// content without _meta or annotations, and structured content that is
// absent or compact JSON the SDK would copy unchanged (plainJSON). ok is
// false, and dst unchanged, for anything else.
func (e *resultEncoder) appendPlainResult(dst []byte, res *mcp.CallToolResult, annotate bool) ([]byte, bool) {
	if len(res.Meta) > 0 || res.InputRequests != nil || len(res.Content) > 1 {
		return dst, false
	}
	var text *mcp.TextContent
	if len(res.Content) == 1 {
		t, ok := res.Content[0].(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return dst, false
		}
		text = t
	}
	var structured json.RawMessage
	switch sc := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if !plainJSON(sc) {
			return dst, false
		}
		structured = sc
	default:
		return dst, false
	}
	dst = append(dst, '{')
	if annotate {
		dst = append(append(append(dst, `"_meta":`...), e.serverInfo...), ',')
	}
	dst = append(dst, `"content":[`...)
	if text != nil {
		dst = appendString(append(dst, `{"type":"text","text":`...), text.Text)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if structured != nil {
		dst = append(append(dst, `,"structuredContent":`...), structured...)
	}
	if res.IsError {
		dst = append(dst, `,"isError":true`...)
	}
	return append(dst, '}'), true
}

// plainJSON reports whether json.Marshal would copy raw unchanged: raw
// is valid, compact (no white space outside strings) and holds nothing
// it escapes (<, >, & and U+2028, U+2029).
func plainJSON(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	inString := false
	for i := 0; i < len(raw); i++ {
		switch b := raw[i]; {
		case b == '<' || b == '>' || b == '&':
			return false
		case b == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			return false
		case inString && b == '\\':
			i++
		case b == '"':
			inString = !inString
		case !inString && (b == ' ' || b == '\t' || b == '\n' || b == '\r'):
			return false
		}
	}
	return plainjson.Valid(raw) || json.Valid(raw) // plainjson's yes is exact and cheaper
}

// appendString appends s as a JSON string exactly as encoding/json
// writes it with HTML escaping (json.Marshal's default; see
// plainjson.AppendString). TestAppendStringMatchesEncodingJSON holds it
// to that.
func appendString(dst []byte, s string) []byte { return plainjson.AppendString(dst, s, true) }

// getBuffer returns a buffer for one response line; putBuffer gives it
// back once the line is written, for the next call.
func (e *resultEncoder) getBuffer() *[]byte {
	if b, ok := e.buffers.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 1024)
	return &b
}

// maxPooledBuffer bounds the buffers kept: one large result must not
// pin its size.
const maxPooledBuffer = 64 << 10

func (e *resultEncoder) putBuffer(b *[]byte) {
	if cap(*b) <= maxPooledBuffer {
		e.buffers.Put(b)
	}
}
