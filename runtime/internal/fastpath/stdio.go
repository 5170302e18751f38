package fastpath

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// The stdio fast path. Before a tool handler runs, go-sdk v1.8.0 decodes
// a tools/call line five to seven times (batch probe, envelope, method,
// request _meta, each _meta value, params), each with a fresh 32 KiB
// buffer: about 200 KiB of garbage per call, which costs more CPU in the
// SDK and the garbage collector than the whole call costs in the
// runtime. Server.ServeIO therefore reads the stream itself (through
// Stdio) and serves the tools/call lines whose outcome is already known to be the SDK's,
// decoding each once and writing the response as the SDK would, byte for
// byte; every other line goes to the SDK unchanged. A line is served here
// only when all of these hold, else the SDK serves it:
//
//   - the session is initialized (the SDK has set its parameters) and
//     the host is not paused (Host.Paused: draining, or its SDK server
//     handed out);
//   - the stream is at a value boundary (every earlier line was one whole
//     JSON value), the line is one JSON object of at most fastMaxLine
//     bytes, valid UTF-8, nested at most 1000 deep (the SDK's bound),
//     with exactly the keys jsonrpc "2.0", a plain integer or string id,
//     method "tools/call" and params;
//   - params has only _meta, name and arguments; _meta has no
//     progressToken (progress needs the SDK session), and the SDK has
//     accepted byte-identical protocol fields of _meta (protocol version,
//     client info, capabilities, log level) earlier in this session: the
//     first call of each such _meta goes to the SDK, and its answer
//     (a result, not an error) teaches the fast path;
//   - the host has a handler for the tool (Host.Tool; tools with asks,
//     confirmation or middleware may need the session and have none).
//
// TestFastPathMatchesSDK (package runtime) replays one script through
// both paths and compares every response.

// fastMaxLine bounds the lines the fast path reads whole; longer ones
// pass to the SDK (whose own limit is 16 MiB).
const fastMaxLine = 1 << 20

// Stdio is one stdio session's view of the stream: the reader and
// writer the SDK gets (Reader, Writer), which screen the lines the SDK
// must not see and serve the qualifying tools/call lines themselves.
type Stdio struct {
	host Host
	on   bool            // the gate let the fast path run; else lines are only screened
	ctx  context.Context // cancelled when the session ends
	out  io.Writer       // a groupWriter: whole lines, ours and the SDK's, never interleaved
	ss   atomic.Pointer[mcp.ServerSession]
	// attached is closed by Attach. The SDK reads (and the client may
	// send its first calls) before Connect returns the session, so a
	// call read before Attach waits for it rather than go to the SDK
	// unprobed: otherwise the first calls' outcome hung on scheduling.
	attached chan struct{}

	mu     sync.Mutex
	metaOK map[string]bool                   // request _meta protocol fields the SDK accepted
	probes map[string]string                 // id → _meta key, of calls passed to the SDK to learn that
	calls  map[jsonrpc.ID]context.CancelFunc // fast calls in flight, for notifications/cancelled
	nprobe atomic.Int32                      // len(probes), read without the lock on every SDK write

	dirty bool // the stream left a value boundary: no more fast calls (reader goroutine only)

	// Calls run on workers that outlive them: a fresh goroutine per call
	// grew its stack from 8 KiB through every call (8% of a stdio
	// server's CPU), a worker keeps the stack it grew. jobs hands a call
	// to an idle worker; idle counts them.
	jobs chan func()
	idle atomic.Int32

	reader  *fastReader
	results *resultEncoder
	awaited awaited // requests passed to the SDK and not yet answered
}

// maxIdleWorkers bounds the workers kept waiting for calls; more are
// started when calls arrive faster, and exit once they are idle.
const maxIdleWorkers = 16

// NewStdio returns the engine of one stdio session reading in and
// writing whole lines to out (which must not interleave concurrent
// writes: a groupWriter), its fast calls cancelled when ctx ends; on is
// the gate's answer.
func NewStdio(ctx context.Context, host Host, on bool, in io.Reader, out io.Writer) *Stdio {
	f := &Stdio{host: host, on: on, results: newResultEncoder(host.Impl()), ctx: ctx, out: out, metaOK: map[string]bool{}, probes: map[string]string{},
		calls: map[jsonrpc.ID]context.CancelFunc{}, jobs: make(chan func()), attached: make(chan struct{})}
	f.reader = &fastReader{f: f, br: bufio.NewReaderSize(in, fastMaxLine)}
	return f
}

// Reader is what the SDK reads of the session: every line but the
// tools/call lines served here and the lines screen answered.
func (f *Stdio) Reader() io.ReadCloser { return f.reader }

// Writer is where the SDK writes: its lines and the fast path's never
// interleave.
func (f *Stdio) Writer() io.WriteCloser { return fastWriter{f} }

// Unanswered is the number of requests passed to the SDK whose answers
// it has not written yet: at end of input the session's owner waits for
// them (and for the host's own count of calls in flight) before the SDK
// sees the end and closes.
func (f *Stdio) Unanswered() int { return int(f.awaited.n.Load()) }

// Attach gives the engine the SDK session once it is connected; call it
// once. Until then a tools/call line waits for it (or for the engine's
// context to end, as when Connect fails) and every other line goes to
// the SDK.
func (f *Stdio) Attach(ss *mcp.ServerSession) {
	f.ss.Store(ss)
	close(f.attached)
}

// session is the attached SDK session, waiting for Attach; nil once the
// engine's context ended first.
func (f *Stdio) session() *mcp.ServerSession {
	select {
	case <-f.attached:
		return f.ss.Load()
	case <-f.ctx.Done():
		return nil
	}
}

// run hands job to an idle worker, or starts one: it never waits, so the
// reader goes on reading while calls run.
func (f *Stdio) run(job func()) {
	select {
	case f.jobs <- job:
	default:
		go f.work(job)
	}
}

// work runs job, then the jobs handed to it while it waits, until more
// workers than maxIdleWorkers wait or the session ends.
func (f *Stdio) work(job func()) {
	for {
		job()
		if f.idle.Add(1) > maxIdleWorkers {
			f.idle.Add(-1)
			return
		}
		select {
		case job = <-f.jobs:
			f.idle.Add(-1)
		case <-f.ctx.Done():
			f.idle.Add(-1)
			return
		}
	}
}

// fastReader is the SDK's view of stdin: every line except the
// tools/call lines the fast path serves.
type fastReader struct {
	f    *Stdio
	br   *bufio.Reader
	rest []byte // what remains of the line being passed to the SDK
	err  error
}

func (r *fastReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.rest = r.next()
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// next reads the next line and returns what the SDK gets of it: nothing
// when the fast path served it or the line is no message (screen
// answered it).
func (r *fastReader) next() []byte {
	line, tooLong, err := r.readLine()
	if err != nil {
		r.err = err
		if len(line) == 0 && !tooLong {
			return nil
		}
	}
	if tooLong {
		r.f.reply(stdioError(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: the line is longer than "+textkit.ByteSize(stdioMaxMessage)+", the most this server reads as one message"))
		return nil
	}
	if r.f.intercept(line) {
		return nil
	}
	answer, requests := r.f.screen(line)
	if answer != nil {
		r.f.reply(answer)
		return nil
	}
	r.f.awaited.add(requests) // before the SDK can see the line
	return line
}

// reply writes an answer of the reader's own, whole, between the
// session's other lines.
func (f *Stdio) reply(line []byte) {
	_, _ = f.out.Write(line)
}

func (r *fastReader) Close() error { return nil }

// fastWriter is the SDK's view of stdout: its lines and the fast path's
// never interleave, and while probes are out its responses are read.
type fastWriter struct{ f *Stdio }

func (w fastWriter) Write(p []byte) (int, error) {
	if w.f.nprobe.Load() > 0 {
		w.f.learn(p)
	}
	n, err := w.f.out.Write(p)
	w.f.awaited.answered(p) // after the write: the wait ends once the answer is out
	return n, err
}

func (w fastWriter) Close() error { return nil }

// fastCall is one tools/call line, decoded once.
type fastCall struct {
	id      jsonrpc.ID
	idKey   string // the id as sent, canonical
	name    string
	args    json.RawMessage
	meta    map[string]any
	metaKey string // the _meta fields the SDK validates, as sent
	modern  bool   // _meta selects protocol 2026-07-28 or later
}

// intercept serves line when it may, and reports whether it did. It
// runs on the reader goroutine.
func (f *Stdio) intercept(line []byte) bool {
	if bytes.Contains(line, []byte(`"notifications/cancelled"`)) {
		f.cancelled(line) // the SDK gets the line too
	}
	if f.dirty || !f.on || f.host.Paused() || !bytes.Contains(line, []byte(`"tools/call"`)) {
		return false
	}
	ss := f.session()
	if ss == nil || ss.InitializeParams() == nil {
		return false
	}
	c, ok := parseFastCall(line)
	if !ok {
		return false
	}
	h := f.host.Tool(c.name, false)
	if h == nil {
		return false
	}
	f.mu.Lock()
	known := f.metaOK[c.metaKey]
	if !known {
		if _, dup := f.probes[c.idKey]; !dup && len(f.probes) < 64 {
			f.probes[c.idKey] = c.metaKey
			f.nprobe.Store(int32(len(f.probes)))
		}
		f.mu.Unlock()
		return false
	}
	ctx, cancel := context.WithCancel(f.ctx)
	f.calls[c.id] = cancel
	f.mu.Unlock()
	f.host.Enter() // before the goroutine: end of input waits for it
	f.run(func() { f.serve(ctx, cancel, ss, h, c) })
	return true
}

// serve runs one call and writes its response.
func (f *Stdio) serve(ctx context.Context, cancel context.CancelFunc, ss *mcp.ServerSession, h Handler, c *fastCall) {
	defer f.host.Leave()
	defer func() {
		f.mu.Lock()
		delete(f.calls, c.id)
		f.mu.Unlock()
		cancel()
	}()
	res, err := h(ctx, &Call{Name: c.name, Args: c.args, Meta: c.meta})
	ip := ss.InitializeParams()
	buf := f.results.getBuffer()
	defer f.results.putBuffer(buf)
	line, err := f.results.encode((*buf)[:0], c, res, err, c.modern, ip != nil && ip.ProtocolVersion >= Protocol20260728)
	if err != nil {
		f.host.Logger().Error("cannot encode a tool result", "tool", c.name, "error", err)
		line, _ = jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Error: err})
	}
	line = append(line, '\n')
	_, _ = f.out.Write(line)
	*buf = line // keep what grew, within putBuffer's bound
}

// Protocol20260728 is the first revision whose results carry resultType
// (and whose requests carry protocol fields in _meta).
const Protocol20260728 = "2026-07-28"

// cancelled cancels the fast call a notifications/cancelled line names,
// the id read as the SDK reads it.
func (f *Stdio) cancelled(line []byte) {
	var n struct {
		Method string `json:"method"`
		Params struct {
			RequestID any `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil || n.Method != "notifications/cancelled" {
		return
	}
	id, err := jsonrpc.MakeID(n.Params.RequestID)
	if err != nil {
		return
	}
	f.mu.Lock()
	cancel := f.calls[id]
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// learn reads a line the SDK writes: the answer to a probe that is a
// result, not an error, means the SDK accepts that _meta.
func (f *Stdio) learn(p []byte) {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(p, &r) != nil || r.ID == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key, ok := f.probes[string(r.ID)]
	if !ok {
		return
	}
	delete(f.probes, string(r.ID))
	f.nprobe.Store(int32(len(f.probes)))
	if r.Result != nil && len(f.metaOK) < 64 {
		f.metaOK[key] = true
	}
}

// parseFastCall decodes a tools/call line the fast path may serve; ok is
// false for anything it leaves to the SDK. The line is validated once
// and then only sliced: the object members are found by a scanner, and
// only _meta is decoded into values.
func parseFastCall(line []byte) (*fastCall, bool) {
	// plainjson.Valid first: it is exact when it says valid and several
	// times cheaper than encoding/json's scanner, which decides the rest.
	if len(line) > fastMaxLine || !utf8.Valid(line) || jsonDepth(line) > 1000 || !plainjson.Valid(line) && !json.Valid(line) {
		return nil, false
	}
	var jsonrpcV, idRaw, method, params []byte
	if !plainjson.EachMember(line, func(k, v []byte) bool {
		switch string(k) {
		case "jsonrpc":
			return once(&jsonrpcV, v)
		case "id":
			return once(&idRaw, v)
		case "method":
			return once(&method, v)
		case "params":
			return once(&params, v)
		}
		return false
	}) || string(jsonrpcV) != `"2.0"` || string(method) != `"tools/call"` || len(params) == 0 || params[0] != '{' {
		return nil, false
	}
	id, ok := plainID(idRaw)
	if !ok {
		return nil, false
	}
	c := &fastCall{id: id, idKey: string(idRaw)}
	var name, meta []byte
	if !plainjson.EachMember(params, func(k, v []byte) bool {
		switch string(k) {
		case "_meta":
			return once(&meta, v)
		case "name":
			return once(&name, v)
		case "arguments":
			// a copy: line is the reader's buffer, reused by the next read
			// while the call runs
			return once((*[]byte)(&c.args), bytes.Clone(v))
		}
		return false
	}) || len(name) < 3 || name[0] != '"' || bytes.IndexByte(name[1:len(name)-1], '\\') >= 0 {
		return nil, false
	}
	c.name = string(name[1 : len(name)-1])
	if meta != nil && !c.decodeMeta(meta) {
		return nil, false
	}
	return c, true
}

// once stores v in *dst unless a value is there already (a duplicate
// member, which the fast path leaves to the SDK).
func once(dst *[]byte, v []byte) bool {
	if *dst != nil {
		return false
	}
	*dst = v
	return true
}

// decodeMeta reads _meta: the map the handler sees (as the SDK decodes
// it) and the key of the fields the SDK validates.
func (c *fastCall) decodeMeta(raw []byte) bool {
	if raw[0] != '{' {
		return false
	}
	var proto [4][]byte
	others := false
	if !plainjson.EachMember(raw, func(k, v []byte) bool {
		switch string(k) {
		case "progressToken":
			return false // progress needs the SDK session
		case mcp.MetaKeyProtocolVersion:
			return once(&proto[0], v)
		case mcp.MetaKeyClientInfo:
			return once(&proto[1], v)
		case mcp.MetaKeyClientCapabilities:
			return once(&proto[2], v)
		case mcp.MetaKeyLogLevel:
			return once(&proto[3], v)
		}
		others = true
		return true
	}) {
		return false
	}
	// The handler reads only the other members (trace context); the
	// protocol members are decoded only when others are.
	if others && json.Unmarshal(raw, &c.meta) != nil {
		return false
	}
	var key []byte
	for i, v := range proto {
		if v != nil {
			key = append(append(append(key, byte('0'+i)), v...), 0)
		}
	}
	c.metaKey = string(key)
	c.modern = proto[0] != nil && protocolVersion(proto[0]) >= Protocol20260728
	return true
}

// protocolVersion is the string raw, a JSON string, holds: sliced when
// it has no escapes (as a client writes a version), else decoded.
func protocolVersion(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return v
}

// plainID accepts the ids whose response id is the same text: a string
// without escapes, or an integer without sign tricks, leading zeros,
// fraction or exponent that float64 holds exactly.
func plainID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		s := raw[1 : len(raw)-1]
		if bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, '"') >= 0 || !isASCII(s) {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(string(s))
		return id, err == nil
	}
	digits := raw
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
		return jsonrpc.ID{}, false
	}
	var n int64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return jsonrpc.ID{}, false
		}
		n = n*10 + int64(d-'0')
	}
	if raw[0] == '-' {
		if n == 0 {
			return jsonrpc.ID{}, false
		}
		n = -n
	}
	id, err := jsonrpc.MakeID(float64(n))
	return id, err == nil
}

func isASCII(s []byte) bool {
	for _, b := range s {
		if b >= 0x80 {
			return false
		}
	}
	return true
}

// jsonDepth is the deepest nesting of objects and arrays in data,
// strings skipped, as the SDK measures it before decoding.
func jsonDepth(data []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}
