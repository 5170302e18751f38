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

// TestCallLineTextIsSlogText: for any call line and time, seeded random
// with the characters slog's text handler quotes for (space, '=', '"',
// controls, DEL, invalid UTF-8, non-printing and space runes), the
// record textCallHandler writes is byte for byte the record
// slog.TextHandler writes. A failure is shrunk to the fewest characters.
func TestCallLineTextIsSlogText(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	for i := 0; i < 20000; i++ {
		c, at := randomCallLine(r), randomLogTime(r)
		if want, got := slogText(c, at), string(appendCallText(nil, at, &c)); got != want {
			c = shrinkCallLine(c, func(c callLine) bool { return slogText(c, at) != string(appendCallText(nil, at, &c)) })
			t.Fatalf("seed %d, line %d: %+v at %v:\n got %q\nwant %q", seed, i, c, at, appendCallText(nil, at, &c), slogText(c, at))
		}
	}
}

// TestTextCallHandlerIsTheTextHandler: Main's text logger writes a call's
// record itself only when the plain text handler would write the same;
// with AddSource or ReplaceAttr, and in a logger derived with With, the
// record is the TextHandler's.
func TestTextCallHandlerIsTheTextHandler(t *testing.T) {
	c := callLine{tool: "get_pet", outcome: "ok", status: 200, latencyMS: 1.25, requestID: "ab12", args: "{petId=1}"}
	at := time.Date(2026, 12, 2, 3, 4, 5, 678901234, time.UTC)
	var fast bytes.Buffer
	if !newTextCallHandler(&fast, &slog.HandlerOptions{Level: slog.LevelInfo}).writeCall(at, &c) || fast.String() != slogText(c, at) {
		t.Fatalf("plain text handler: wrote %q, slog writes %q", fast.String(), slogText(c, at))
	}
	for name, opts := range map[string]*slog.HandlerOptions{
		"AddSource":   {AddSource: true},
		"ReplaceAttr": {ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr { return a }},
	} {
		var buf bytes.Buffer
		if newTextCallHandler(&buf, opts).writeCall(at, &c) || buf.Len() > 0 {
			t.Errorf("%s: the record was written by textCallHandler (%q), want the TextHandler's", name, buf.String())
		}
	}
	var buf bytes.Buffer
	derived := slog.New(newTextCallHandler(&buf, nil)).With("replica", "a").Handler()
	if _, ok := derived.(*textCallHandler); ok {
		t.Error("a logger derived with With still writes call lines itself, without its attributes")
	}
}

func slogText(c callLine, at time.Time) string {
	var buf bytes.Buffer
	_ = slog.NewTextHandler(&buf, nil).Handle(context.Background(), c.record(at))
	return buf.String()
}

// logRunes are the characters of random log values: each class slog's
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

func randomCallLine(r *rand.Rand) callLine {
	ints := []int{0, 1, 200, 404, 599, -1, math.MaxInt, math.MinInt}
	floats := []float64{0, 0.001, 1.5, 12.345, 1e21, 1e-7, -3, math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64}
	num := func() int {
		if r.IntN(2) == 0 {
			return ints[r.IntN(len(ints))]
		}
		return int(r.Int64()) >> r.IntN(64)
	}
	flt := floats[r.IntN(len(floats))]
	if r.IntN(2) == 0 {
		flt = float64(r.Int64N(1e9)) / 1000
	}
	return callLine{tool: randomLogString(r), outcome: randomLogString(r), errorKind: randomLogString(r),
		status: num(), retries: num(), latencyMS: flt,
		requestID: randomLogString(r), traceID: randomLogString(r), args: randomLogString(r)}
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

// shrinkCallLine drops characters of c's strings and zeroes its numbers
// while fails holds.
func shrinkCallLine(c callLine, fails func(callLine) bool) callLine {
	fields := func(c *callLine) []*string {
		return []*string{&c.tool, &c.outcome, &c.errorKind, &c.requestID, &c.traceID, &c.args}
	}
	for changed := true; changed; {
		changed = false
		for fi := range fields(&c) {
			for i := 0; i < len(*fields(&c)[fi]); i++ {
				try := c
				s := fields(&try)[fi]
				*s = (*s)[:i] + (*s)[i+1:]
				if fails(try) {
					c, changed = try, true
					i--
				}
			}
		}
		for _, zero := range []func(*callLine){func(c *callLine) { c.status = 0 }, func(c *callLine) { c.retries = 0 }, func(c *callLine) { c.latencyMS = 0 }} {
			try := c
			zero(&try)
			if try != c && fails(try) {
				c, changed = try, true
			}
		}
	}
	return c
}
