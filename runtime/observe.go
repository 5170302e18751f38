package runtime

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
)

// Metrics receives per-call measurements (Options.Metrics). The default
// records nothing, so a server depends on the MCP SDK and the standard
// library only; github.com/oa2mcp/oa2mcp/runtime/prommetrics exports
// them to Prometheus. Implementations must be safe for concurrent use.
type Metrics interface {
	// CallStarted and CallFinished bracket one tools/call; outcome is
	// "ok" or "error", kind the error kind ("" when ok).
	CallStarted(tool string)
	CallFinished(tool, outcome, kind string, d time.Duration)
	// UpstreamResponse counts one upstream attempt by status (0 when no
	// response arrived).
	UpstreamResponse(tool string, status int)
	// Retried counts one automatic upstream retry.
	Retried(tool string)
	// Handler serves the measurements at /metrics on the HTTP transport;
	// nil serves nothing.
	Handler() http.Handler
}

type noMetrics struct{}

func (noMetrics) CallStarted(string)                                 {}
func (noMetrics) CallFinished(string, string, string, time.Duration) {}
func (noMetrics) UpstreamResponse(string, int)                       {}
func (noMetrics) Retried(string)                                     {}
func (noMetrics) Handler() http.Handler                              { return nil }

// callRecord collects what the one log record of a tools/call says.
type callRecord struct {
	requestID string
	trace     traceContext
	kind      string
	status    int
	retries   int
}

const maxLoggedValue = 64

// summarizeArgs renders the arguments for a log line: top-level names in
// order, scalars shortened, objects and arrays as counts, values of
// secret, personal or declared sensitive names and values shaped like
// e-mail addresses or phone numbers replaced by [REDACTED], handles shown
// by their prefix only.
func summarizeArgs(args map[string]any, ss *sensitiveSet, cs *credentialSet) string {
	if len(args) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	sb.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(k)
		sb.WriteByte('=')
		if ss.is(k) {
			sb.WriteString("[REDACTED]")
			continue
		}
		switch v := args[k].(type) {
		case map[string]any:
			sb.WriteString("{" + strconv.Itoa(len(v)) + " keys}")
		case []any:
			sb.WriteString("[" + strconv.Itoa(len(v)) + " items]")
		case string:
			if shown := ss.logValue(v); shown != "" {
				sb.WriteString(shown)
			} else {
				sb.WriteString(strconv.Quote(textkit.ClipRunes(v, maxLoggedValue)))
			}
		case json.Number:
			sb.WriteString(textkit.ClipRunes(v.String(), maxLoggedValue))
		default:
			sb.WriteString(jsonschema.ShowValue(v))
		}
	}
	sb.WriteByte('}')
	return cs.redact(sb.String())
}

// logCall writes the one record of a tools/call. The record goes to the
// handler directly, with no caller's program counter: Logger.LogAttrs
// would walk the stack for it on every call (2% of a stdio server's CPU
// per call), and the only source it could name is this function.
func (s *Server) logCall(ctx context.Context, bt *boundTool, args map[string]any, rec *callRecord, d time.Duration) {
	if !s.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	outcome := "ok"
	if rec.kind != "" {
		outcome = "error"
	}
	attrs := [...]slog.Attr{
		slog.String("tool", bt.spec.Name),
		slog.String("outcome", outcome),
		slog.String("error_kind", rec.kind),
		slog.Int("status", rec.status),
		slog.Int("retries", rec.retries),
		slog.Float64("latency_ms", float64(d.Microseconds())/1000),
		slog.String("request_id", rec.requestID),
		slog.String("trace_id", rec.trace.traceID),
		slog.String("args", summarizeArgs(args, bt.sensitive, s.creds)),
	}
	h, now := s.logger.Handler(), time.Now()
	if th, ok := h.(*textCallHandler); ok && th.writeCall(now, callMessage, attrs[:]) {
		return
	}
	r := slog.NewRecord(now, slog.LevelInfo, callMessage, 0)
	r.AddAttrs(attrs[:]...)
	_ = h.Handle(ctx, r) // as Logger.LogAttrs does, a handler's error is dropped
}

// requestIDFrom reuses a client's X-Request-Id (HTTP transport) when it is
// a short token, and makes one up otherwise.
func requestIDFrom(h http.Header) string {
	if h != nil {
		if id := h.Get("X-Request-Id"); id != "" && len(id) <= 64 && isToken(id) {
			return id
		}
	}
	return randomHex(8)
}

func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isUnreserved(c) || c == ':' || c == '/' || c == '+' || c == '=') {
			return false
		}
	}
	return true
}
