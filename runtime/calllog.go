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

// callMessage is the message of a tools/call record.
const callMessage = "tools/call"

// textCallHandler is the handler of Main's text log (--log-format text):
// a slog.TextHandler whose writeCall writes a record of plain attributes
// (strings, integers, floats: a tool call's) itself, the bytes the
// TextHandler would write (TestCallTextIsSlogText holds it to that),
// without a slog.Record and its formatting machinery: one record per
// call was 6% of a stdio server's CPU. Every other record, and every
// logger derived with With or WithGroup, is the TextHandler's.
type textCallHandler struct {
	*slog.TextHandler
	w    io.Writer // safe for concurrent writes (a logWriter)
	bufs sync.Pool
}

// newTextCallHandler is slog.NewTextHandler(w, level) with writeCall.
// It takes only a level: source and ReplaceAttr would change the text.
func newTextCallHandler(w io.Writer, level slog.Leveler) *textCallHandler {
	h := &textCallHandler{TextHandler: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}), w: w}
	h.bufs.New = func() any { b := make([]byte, 0, 256); return &b }
	return h
}

// writeCall writes an Info record of msg and attrs at time t as the
// TextHandler would, and reports whether it did: false (nothing written)
// for an attribute of another kind, which the caller hands to Handle.
func (h *textCallHandler) writeCall(t time.Time, msg string, attrs []slog.Attr) bool {
	bp := h.bufs.Get().(*[]byte)
	defer h.bufs.Put(bp)
	b, ok := appendCallText((*bp)[:0], t, msg, attrs)
	if !ok {
		return false
	}
	_, _ = h.w.Write(b) // as the TextHandler does, a write error is the handler's to drop
	if cap(b) <= 4<<10 {
		*bp = b
	}
	return true
}

// appendCallText appends an Info record as slog's text handler formats
// it: time (millisecond precision), level, message, then each attribute,
// values quoted where the handler quotes them. ok is false for an
// attribute that is not a string, an integer or a float.
func appendCallText(b []byte, t time.Time, msg string, attrs []slog.Attr) ([]byte, bool) {
	if !t.IsZero() {
		b = append(b, "time="...)
		b = appendTextTime(b, t.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level=INFO msg="...)
	b = appendTextString(b, msg)
	for _, a := range attrs {
		if textNeedsQuoting(a.Key) {
			return b, false // slog quotes such a key; tool calls never use one
		}
		b = append(append(append(b, ' '), a.Key...), '=')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			b = appendTextString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindFloat64:
			b = strconv.AppendFloat(b, v.Float64(), 'g', -1, 64)
		default:
			return b, false
		}
	}
	return append(b, '\n'), true
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
