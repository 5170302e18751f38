package runtime

import (
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// callLine is what the one log record of a tools/call says, in the order
// the record lists it. Both ways of writing the record (a slog.Record for
// any handler, textCallHandler's own text) read it through each, so the
// keys and their order are written down once.
type callLine struct {
	tool, outcome, errorKind string
	status, retries          int
	latencyMS                float64
	requestID, traceID, args string
}

// each visits the record's attributes in order: str for strings, num for
// integers, flt for the latency.
func (c *callLine) each(str func(k, v string), num func(k string, v int), flt func(k string, v float64)) {
	str("tool", c.tool)
	str("outcome", c.outcome)
	str("error_kind", c.errorKind)
	num("status", c.status)
	num("retries", c.retries)
	flt("latency_ms", c.latencyMS)
	str("request_id", c.requestID)
	str("trace_id", c.traceID)
	str("args", c.args)
}

// record is the line as a slog.Record: no source (program counter 0).
func (c *callLine) record(t time.Time) slog.Record {
	r := slog.NewRecord(t, slog.LevelInfo, callMessage, 0)
	c.each(func(k, v string) { r.AddAttrs(slog.String(k, v)) },
		func(k string, v int) { r.AddAttrs(slog.Int(k, v)) },
		func(k string, v float64) { r.AddAttrs(slog.Float64(k, v)) })
	return r
}

// callMessage is the message of a tools/call record.
const callMessage = "tools/call"

// textCallHandler is the handler of Main's text log (--log-format text):
// a slog.TextHandler that writes a tool call's record itself, the bytes
// the TextHandler would write (TestCallLineTextIsSlogText holds it to
// that), without a slog.Record and its formatting machinery: one record
// per call was 6% of a stdio server's CPU. Every other record, and every
// logger derived with With or WithGroup, is the TextHandler's.
type textCallHandler struct {
	*slog.TextHandler
	w    io.Writer // nil: every record is the TextHandler's; else safe for concurrent writes (a logWriter)
	bufs sync.Pool
}

func newTextCallHandler(w io.Writer, opts *slog.HandlerOptions) *textCallHandler {
	h := &textCallHandler{TextHandler: slog.NewTextHandler(w, opts), w: w}
	if opts != nil && (opts.AddSource || opts.ReplaceAttr != nil) {
		// records that differ from the plain text form go the slow way
		return &textCallHandler{TextHandler: h.TextHandler}
	}
	h.bufs.New = func() any { b := make([]byte, 0, 256); return &b }
	return h
}

// writeCall writes c as the TextHandler would write its record at time
// t, and reports whether it did (false: the caller hands the record to
// the handler).
func (h *textCallHandler) writeCall(t time.Time, c *callLine) bool {
	if h.w == nil {
		return false
	}
	bp := h.bufs.Get().(*[]byte)
	b := appendCallText((*bp)[:0], t, c)
	_, _ = h.w.Write(b) // as the TextHandler does, a write error is the handler's to drop
	if cap(b) <= 4<<10 {
		*bp = b
		h.bufs.Put(bp)
	}
	return true
}

// appendCallText appends c's record as slog's text handler formats it:
// time (millisecond precision), level, message, then each attribute,
// values quoted where the handler quotes them.
func appendCallText(b []byte, t time.Time, c *callLine) []byte {
	if !t.IsZero() {
		b = append(b, "time="...)
		b = appendTextTime(b, t.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level=INFO msg="...)
	b = appendTextString(b, callMessage)
	c.each(func(k, v string) {
		b = append(append(append(b, ' '), k...), '=')
		b = appendTextString(b, v)
	}, func(k string, v int) {
		b = append(append(append(b, ' '), k...), '=')
		b = strconv.AppendInt(b, int64(v), 10)
	}, func(k string, v float64) {
		b = append(append(append(b, ' '), k...), '=')
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	})
	return append(b, '\n')
}

// appendTextTime writes t in RFC 3339 with exactly three fractional
// digits, truncated, as slog's text handler does.
func appendTextTime(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	// RFC3339Nano trims trailing zeros: a tenth of a millisecond added
	// keeps four fractional digits, the fourth then dropped.
	b = t.Truncate(time.Millisecond).Add(time.Millisecond/10).AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendTextString writes s bare, or quoted by strconv where slog's text
// handler quotes it.
func appendTextString(b []byte, s string) []byte {
	if textNeedsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// textNeedsQuoting is slog's text rule: the empty string, space, '=',
// '"', ASCII controls, invalid UTF-8 and non-printing runes are quoted
// (every space but U+0020 is one); a backslash and DEL are not.
func textNeedsQuoting(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == ' ' || c == '=' || c == '"' {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}
