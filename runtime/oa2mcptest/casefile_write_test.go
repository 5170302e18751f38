package oa2mcptest_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestWriteCasesIsEncodingJSON: for seeded suites of hostile text (JSON
// compact and spaced, valid and broken, strings with every character
// encoding/json escapes, HTML, U+2028, bytes that are not UTF-8, keys of
// the same), EncodeCases writes the very bytes encoding/json writes for
// the case file, and refuses the same suites. A failure prints the
// smallest suite that still differs.
func TestWriteCasesIsEncodingJSON(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 11))
	jsonTexts, written := 0, 0
	for round := range 3000 {
		s := hostileSuite(r)
		if differ(s) {
			s = shrinkSuite(s)
			got, gotErr := oa2mcptest.EncodeCases(s)
			want, wantErr := oa2mcptest.EncodeCasesWithEncodingJSON(s)
			t.Fatalf("seed %d round %d: EncodeCases differs from encoding/json for the suite %#v\n got (%v):\n%s\nwant (%v):\n%s", seed, round, s, gotErr, got, wantErr, want)
		}
		if data, err := oa2mcptest.EncodeCases(s); err == nil {
			written++
			jsonTexts += strings.Count(string(data), "\"args\": {") + strings.Count(string(data), "\"args\": [")
		}
	}
	// The generator must reach the writer, and its JSON path, not only
	// refusals and strings.
	if written < 2000 || jsonTexts < 2000 {
		t.Fatalf("seed %d: %d of 3000 suites written, %d arguments as JSON", seed, written, jsonTexts)
	}
}

// differ reports whether EncodeCases and encoding/json disagree on s.
func differ(s oa2mcptest.Suite) bool {
	got, gotErr := oa2mcptest.EncodeCases(s)
	want, wantErr := oa2mcptest.EncodeCasesWithEncodingJSON(s)
	return (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want)
}

// hostileSuite is a random suite of hostile texts, with hostile keys in
// its credentials and answers.
func hostileSuite(r *rand.Rand) oa2mcptest.Suite {
	pick := func() string {
		// Text that is not UTF-8 refuses the whole suite; most keep to it.
		t := hostileText(r)
		if r.IntN(40) == 0 {
			return t
		}
		return strings.ToValidUTF8(t, "\ufffd")
	}
	s := randomSuiteOf(r, pick)
	for range r.IntN(3) {
		s.Credentials[hostileText(r)] = pick()
	}
	if r.IntN(2) == 0 {
		if s.Responses == nil {
			s.Responses = map[string]oa2mcptest.Response{}
		}
		s.Responses[hostileText(r)] = oa2mcptest.Response{Body: pick()}
	}
	if r.IntN(4) == 0 {
		s.Cases = nil
	}
	return s
}

// hostileText is a JSON value (compact or spaced, possibly cut short or
// with a byte changed) or plain text, built from runes encoding/json
// treats specially.
func hostileText(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return hostileString(r)
	case 1:
		return ""
	}
	var b strings.Builder
	writeJSONValue(&b, r, 0, r.IntN(3) == 0)
	t := b.String()
	switch r.IntN(8) {
	case 0:
		t = t[:r.IntN(len(t)+1)]
	case 1:
		i := r.IntN(len(t) + 1)
		t = t[:i] + hostileRune(r) + t[i:]
	}
	return t
}

// hostileRunes are what encoding/json escapes or could mistake: quotes,
// backslashes, every short escape, other control bytes, DEL, HTML, the
// two line separators, a byte that is not UTF-8, white space, non-ASCII.
var hostileRunes = []string{`"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
	"\u2028", "\u2029", "\xff", " ", "é", "名", "😀", "\ufffd", "a", "{", "}", "[", "]", ",", ":"}

func hostileRune(r *rand.Rand) string { return hostileRunes[r.IntN(len(hostileRunes))] }

func hostileString(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(8) {
		b.WriteString(hostileRune(r))
	}
	return b.String()
}

// writeJSONValue writes a random JSON value; spaced puts white space
// where JSON allows it. The top value is an object or an array.
func writeJSONValue(b *strings.Builder, r *rand.Rand, depth int, spaced bool) {
	sp := func() {
		if spaced && r.IntN(2) == 0 {
			b.WriteString([]string{" ", "\n", "\t", "\r\n  "}[r.IntN(4)])
		}
	}
	kind := r.IntN(7)
	if depth == 0 {
		kind = r.IntN(2)
	} else if depth > 3 {
		kind = 2 + r.IntN(5)
	}
	switch kind {
	case 0, 1:
		open, end := "{", "}"
		if kind == 1 {
			open, end = "[", "]"
		}
		b.WriteString(open)
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteString(",")
			}
			sp()
			if kind == 0 {
				b.WriteString(jsonStringOf(r))
				sp()
				b.WriteString(":")
				sp()
			}
			writeJSONValue(b, r, depth+1, spaced)
			sp()
		}
		b.WriteString(end)
	case 2:
		b.WriteString(jsonStringOf(r))
	case 3:
		b.WriteString([]string{"0", "-1", "3.25", "1e9", "-0.5E-3", "12345678901234567890"}[r.IntN(6)])
	case 4:
		b.WriteString([]string{"true", "false", "null"}[r.IntN(3)])
	default:
		b.WriteString(`"\"\\\/\b\f\n\r\t\u00e9\u2028\ud83d\ude00"`)
	}
}

// jsonStringOf is a JSON string literal holding hostile runes, escaped
// the way a hand-written document might.
func jsonStringOf(r *rand.Rand) string {
	var b strings.Builder
	b.WriteByte('"')
	for range r.IntN(6) {
		switch h := hostileRune(r); h {
		case `"`, `\`:
			b.WriteString(`\` + h)
		case "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f":
			fmt.Fprintf(&b, `\u%04x`, h[0])
		default:
			b.WriteString(h)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// shrinkSuite drops cases, answers, credentials and characters while
// the two encoders still differ.
func shrinkSuite(s oa2mcptest.Suite) oa2mcptest.Suite {
	for changed := true; changed; {
		changed = false
		for i := range s.Cases {
			t := s
			t.Cases = append(append([]oa2mcptest.Case{}, s.Cases[:i]...), s.Cases[i+1:]...)
			if differ(t) {
				s, changed = t, true
				break
			}
		}
		for _, k := range mapKeys(s.Responses) {
			t := s
			t.Responses = without(s.Responses, k)
			if differ(t) {
				s, changed = t, true
			}
		}
		for _, k := range mapKeys(s.Credentials) {
			t := s
			t.Credentials = without(s.Credentials, k)
			if differ(t) {
				s, changed = t, true
			}
		}
		for i := range s.Cases {
			for _, f := range []func(*oa2mcptest.Case){
				func(c *oa2mcptest.Case) { c.Name = "" }, func(c *oa2mcptest.Case) { c.Args = "" },
				func(c *oa2mcptest.Case) { c.Answers = "" }, func(c *oa2mcptest.Case) { c.WantText = nil },
				func(c *oa2mcptest.Case) { c.Responses = nil }, func(c *oa2mcptest.Case) { c.WantPage = nil },
			} {
				t := s
				t.Cases = append([]oa2mcptest.Case{}, s.Cases...)
				f(&t.Cases[i])
				if !equalCase(t.Cases[i], s.Cases[i]) && differ(t) {
					s, changed = t, true
				}
			}
		}
	}
	return s
}

func equalCase(a, b oa2mcptest.Case) bool { return fmt.Sprintf("%#v", a) == fmt.Sprintf("%#v", b) }

func mapKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func without[V any](m map[string]V, key string) map[string]V {
	out := map[string]V{}
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}
