package runtime

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestCallTextIsSlogText: for any record, seeded random with the
// characters slog's text handler quotes for (space, '=', '"', controls,
// DEL, invalid UTF-8, non-printing and space runes) in its message,
// keys and string values, integers and floats at their extremes and
// random times and zones, appendCallText either declines (an attribute
// of another kind, a key slog would quote) or writes byte for byte what
// slog.TextHandler writes; it writes at least half of them. A failure is
// shrunk to the fewest attributes and characters.
func TestCallTextIsSlogText(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	written := 0
	const n = 20000
	for i := 0; i < n; i++ {
		rec := randomTextRecord(r)
		if rec.mismatch() != "" {
			rec = shrinkTextRecord(rec)
			t.Fatalf("seed %d, record %d: %s", seed, i, rec.mismatch())
		}
		if _, ok := appendCallText(nil, rec.at, rec.msg, rec.attrs); ok {
			written++
		}
	}
	if written < n/2 {
		t.Fatalf("seed %d: appendCallText wrote %d of %d records, want the plain ones (half at least)", seed, written, n)
	}
}

// TestTextCallHandlerIsTheTextHandler: Main's text logger writes a call's
// record itself only when it is the plain text handler's; a logger
// derived with With, whose attributes it would not write, is the
// TextHandler's.
func TestTextCallHandlerIsTheTextHandler(t *testing.T) {
	rec := textRecord{at: time.Date(2026, 12, 2, 3, 4, 5, 678901234, time.UTC), msg: callMessage, attrs: []slog.Attr{
		slog.String("tool", "get_pet"), slog.String("outcome", "ok"), slog.Int("status", 200), slog.Float64("latency_ms", 1.25), slog.String("args", "{petId=1}")}}
	var fast bytes.Buffer
	if !newTextCallHandler(&fast, slog.LevelInfo).writeCall(rec.at, rec.msg, rec.attrs) || fast.String() != rec.slogText() {
		t.Fatalf("plain text handler: wrote %q, slog writes %q", fast.String(), rec.slogText())
	}
	var other bytes.Buffer
	if newTextCallHandler(&other, slog.LevelInfo).writeCall(rec.at, rec.msg, []slog.Attr{slog.Bool("ok", true)}) || other.Len() > 0 {
		t.Fatalf("a bool attribute was written by writeCall (%q), want it left to Handle", other.String())
	}
	derived := slog.New(newTextCallHandler(&other, nil)).With("replica", "a").Handler()
	if _, ok := derived.(*textCallHandler); ok {
		t.Error("a logger derived with With still writes call records itself, without its attributes")
	}
}

// textRecord is a random record as data, to shrink and print.
type textRecord struct {
	at    time.Time
	msg   string
	attrs []slog.Attr
}

func (rec textRecord) slogText() string {
	var buf bytes.Buffer
	r := slog.NewRecord(rec.at, slog.LevelInfo, rec.msg, 0)
	r.AddAttrs(rec.attrs...)
	_ = slog.NewTextHandler(&buf, nil).Handle(context.Background(), r)
	return buf.String()
}

// mismatch is "" when appendCallText declines rec for a reason, or
// writes slog's text.
func (rec textRecord) mismatch() string {
	got, ok := appendCallText(nil, rec.at, rec.msg, rec.attrs)
	if !ok {
		for _, a := range rec.attrs {
			if k := a.Value.Kind(); textNeedsQuoting(a.Key) || k != slog.KindString && k != slog.KindInt64 && k != slog.KindFloat64 {
				return ""
			}
		}
		return "declined a record of plain attributes: " + rec.slogText()
	}
	if want := rec.slogText(); string(got) != want {
		return "wrote\n " + string(got) + "slog writes\n " + want
	}
	return ""
}

// logRunes are the characters of random log text: each class slog's
// text handler treats apart, and plain ones.
var logRunes = []string{"a", "Z", "0", "_", "-", ".", "/", ":", "{", "}", " ", "=", `"`, `\`, "\t", "\n", "\x00", "\x1f", "\x7f",
	"\x80", "\xff", "\xe2\x80", "é", "ß", "日", "本", "🐈", "\u00a0", "\u2028", "\u200b", "\u3000", "\ufeff", "\u0301", "\U000e0001", "\ufffd"}

func randomLogString(r *rand.Rand) string {
	var sb strings.Builder
	for n := r.IntN(12); n > 0; n-- {
		sb.WriteString(logRunes[r.IntN(len(logRunes))])
	}
	return sb.String()
}

func randomTextRecord(r *rand.Rand) textRecord {
	rec := textRecord{at: randomLogTime(r), msg: callMessage}
	if r.IntN(4) == 0 {
		rec.msg = randomLogString(r)
	}
	keys := []string{"tool", "outcome", "error_kind", "status", "retries", "latency_ms", "request_id", "trace_id", "args"}
	for n := r.IntN(11); n > 0; n-- {
		key := keys[r.IntN(len(keys))]
		if r.IntN(20) == 0 {
			key = randomLogString(r)
		}
		rec.attrs = append(rec.attrs, randomLogAttr(r, key))
	}
	return rec
}

func randomLogAttr(r *rand.Rand, key string) slog.Attr {
	ints := []int{0, 1, 200, 404, 599, -1, math.MaxInt, math.MinInt}
	floats := []float64{0, 0.001, 1.5, 12.345, 1e21, 1e-7, -3, math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64}
	switch r.IntN(12) {
	case 0, 1:
		if r.IntN(2) == 0 {
			return slog.Int(key, ints[r.IntN(len(ints))])
		}
		return slog.Int(key, int(r.Int64())>>r.IntN(64))
	case 2, 3:
		if r.IntN(2) == 0 {
			return slog.Float64(key, floats[r.IntN(len(floats))])
		}
		return slog.Float64(key, float64(r.Int64N(1e9))/1000)
	case 4:
		return []slog.Attr{slog.Bool(key, true), slog.Duration(key, time.Second), slog.Any(key, []int{1}), slog.Group(key, "x", 1)}[r.IntN(4)]
	}
	return slog.String(key, randomLogString(r))
}

func randomLogTime(r *rand.Rand) time.Time {
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("x", -9*3600-30*60), time.FixedZone("y", 14*3600)}
	switch r.IntN(4) {
	case 0:
		return time.Now() // with a monotonic reading
	case 1:
		return time.Time{}
	}
	return time.Unix(r.Int64N(1<<36)-1<<35, r.Int64N(1e9)).In(zones[r.IntN(len(zones))])
}

// shrinkTextRecord drops attributes, then characters of the message and
// of string values, while the record still fails.
func shrinkTextRecord(rec textRecord) textRecord {
	fails := func(rec textRecord) bool { return rec.mismatch() != "" }
	for i := 0; i < len(rec.attrs); i++ {
		try := rec
		try.attrs = append(append([]slog.Attr{}, rec.attrs[:i]...), rec.attrs[i+1:]...)
		if fails(try) {
			rec, i = try, i-1
		}
	}
	for i := 0; i < len(rec.msg); i++ {
		if try := (textRecord{rec.at, rec.msg[:i] + rec.msg[i+1:], rec.attrs}); fails(try) {
			rec, i = try, i-1
		}
	}
	for ai := range rec.attrs {
		for i := 0; rec.attrs[ai].Value.Kind() == slog.KindString && i < len(rec.attrs[ai].Value.String()); i++ {
			s := rec.attrs[ai].Value.String()
			try := rec
			try.attrs = append([]slog.Attr{}, rec.attrs...)
			try.attrs[ai] = slog.String(rec.attrs[ai].Key, s[:i]+s[i+1:])
			if fails(try) {
				rec, i = try, i-1
			}
		}
	}
	return rec
}
