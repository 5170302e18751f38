package fastpath

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
)

// Lines of a stdio session that the SDK must not see: go-sdk v1.8.0 ends
// the session at the first line it cannot decode as a JSON-RPC message
// (or batch), cancelling the requests in flight and dropping their
// answers. JSON-RPC 2.0 instead answers such a line with an error and
// carries on, which the reader does here: a line that is not JSON gets
// -32700 (parse error), one that is JSON but no message, an empty,
// oversized or duplicate-id batch, or a batch where the negotiated
// protocol has none gets -32600 (invalid request), each with id null
// (or the id, when the line has a usable one), and the SDK never sees
// it.

// stdioMaxMessage bounds one line: the SDK's own frame limit.
const stdioMaxMessage = mcp.DefaultMaxLineLength

// MaxBatch bounds the messages of one JSON-RPC batch, a stdio line or
// an HTTP POST: one batch of a 2025-03-26 client could otherwise run tens
// of thousands of tool calls.
const MaxBatch = 100

// protocol20250618 is the first revision without JSON-RPC batches.
const protocol20250618 = "2025-06-18"

// readLine reads one whole line, at most stdioMaxMessage bytes; a longer
// one is consumed to its end and reported by tooLong.
func (r *fastReader) readLine() (line []byte, tooLong bool, err error) {
	line, err = r.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, false, err
	}
	buf := append([]byte(nil), line...)
	for err == bufio.ErrBufferFull {
		line, err = r.br.ReadSlice('\n')
		if !tooLong && len(buf)+len(line) > stdioMaxMessage {
			tooLong, buf = true, nil
		}
		if !tooLong {
			buf = append(buf, line...)
		}
	}
	return buf, tooLong, err
}

// screen returns the error answer for a line the SDK must not see, or
// nil and the ids of the requests in it (which the SDK will answer) to
// pass it on.
func (f *Stdio) screen(line []byte) (answer []byte, requests []jsonrpc.ID) {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil, nil
	}
	if !json.Valid(trimmed) {
		return stdioError(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON; each line must be one JSON-RPC message"), nil
	}
	if trimmed[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(trimmed)
		if err != nil {
			return stdioError(usableID(trimmed), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error()), nil
		}
		return nil, calls(msg)
	}
	if ss := f.ss.Load(); ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ProtocolVersion >= protocol20250618 {
			return stdioError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: protocol "+ip.ProtocolVersion+" has no JSON-RPC batches; send one message per line"), nil
		}
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(trimmed, &elems); err != nil || len(elems) == 0 {
		return stdioError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch"), nil
	}
	if len(elems) > MaxBatch {
		return stdioError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: the batch holds %d messages; this server takes at most %d in one batch", len(elems), MaxBatch)), nil
	}
	seen := map[jsonrpc.ID]bool{}
	for i, e := range elems {
		msg, err := jsonrpc.DecodeMessage(e)
		if err != nil {
			return stdioError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch message %d: %v", i+1, err)), nil
		}
		for _, id := range calls(msg) {
			if seen[id] {
				return stdioError(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: batch message %d repeats the id of an earlier one", i+1)), nil
			}
			seen[id] = true
			requests = append(requests, id)
		}
	}
	return nil, requests
}

// usableID is the id of an invalid message when it is a JSON string or
// number, else nil (the answer's id is then null).
func usableID(msg []byte) json.RawMessage {
	var env struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(msg, &env) != nil || len(env.ID) == 0 {
		return nil
	}
	switch env.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return env.ID
	}
	return nil
}

// stdioError is one JSON-RPC error line.
func stdioError(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return append(b, '\n')
}

// BatchLen is the number of elements of a body that is a valid JSON
// array, else 0 (a single message, or invalid JSON the SDK refuses).
func BatchLen(body []byte) int {
	i := plainjson.SkipSpace(body, 0)
	if i >= len(body) || body[i] != '[' || !json.Valid(body) {
		return 0
	}
	n := 0
	for i = plainjson.SkipSpace(body, i+1); i < len(body) && body[i] != ']'; n++ {
		i = plainjson.SkipSpace(body, plainjson.ValueEnd(body, i))
		if i < len(body) && body[i] == ',' {
			i = plainjson.SkipSpace(body, i+1)
		}
	}
	return n
}
