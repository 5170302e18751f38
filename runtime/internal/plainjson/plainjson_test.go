package plainjson

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// reference decodes text as the runtime did before Decode: a json.Decoder
// with UseNumber reading one value.
func reference(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// referenceAppend encodes v as marshalJSON did before Append.
func referenceAppend(v any, html bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(html)
	err := enc.Encode(v)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), err
}

// checkDecode fails t when Decode answers text differently from
// encoding/json: a value where encoding/json fails, or another value.
func checkDecode(t *testing.T, text string) {
	t.Helper()
	got, ok := Decode(text)
	if !ok {
		return // left to encoding/json: the same by construction
	}
	want, err := reference(text)
	if err != nil {
		t.Fatalf("Decode(%q) = %#v, but encoding/json fails: %v", text, got, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v, encoding/json gives %#v", text, got, want)
	}
}

// pieces of JSON text, valid and not, that a document is made of.
var textPieces = []string{`a`, ` `, `"`, `\"`, `\\`, `\n`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\x`, "\t", "\x01",
	"\xff", "\xed\xa0\x80", "é", "\u2028", `<&>`, `\/`, `\u0000`}

func randomString(r *rand.Rand) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for range r.IntN(6) {
		sb.WriteString(textPieces[r.IntN(len(textPieces))])
	}
	sb.WriteByte('"')
	return sb.String()
}

var numbers = []string{"0", "-0", "1", "-12", "3.25", "1e9", "1E+2", "2.5e-3", "123456789012345678901234567890",
	"01", "1.", ".5", "-", "1e", "+1", "0x1", "1.5.2", "NaN"}

var spaces = []string{"", "", " ", "\n\t", "\r"}

// randomText draws a JSON document, mostly valid, sometimes with a
// syntax error, a duplicate key or trailing data somewhere.
func randomText(r *rand.Rand, d int) string {
	sp := func() string { return spaces[r.IntN(len(spaces))] }
	switch k := r.IntN(9); {
	case k == 0:
		return []string{"true", "false", "null", "nul", "truex", "tru"}[r.IntN(6)]
	case k == 1:
		return numbers[r.IntN(len(numbers))]
	case k <= 3 || d == 0:
		return randomString(r)
	case k <= 5:
		var sb strings.Builder
		sb.WriteString("[" + sp())
		for i := range r.IntN(4) {
			if i > 0 {
				sb.WriteString(sp() + "," + sp())
			}
			sb.WriteString(randomText(r, d-1))
		}
		if r.IntN(20) == 0 {
			sb.WriteString(",")
		}
		sb.WriteString(sp() + "]")
		return sb.String()
	}
	var sb strings.Builder
	sb.WriteString("{" + sp())
	keys := []string{`"a"`, `"b"`, `"a"`, randomString(r)}
	for i := range r.IntN(4) {
		if i > 0 {
			sb.WriteString(sp() + "," + sp())
		}
		sb.WriteString(keys[r.IntN(len(keys))] + sp() + ":" + sp() + randomText(r, d-1))
	}
	if r.IntN(20) == 0 {
		sb.WriteString(",")
	}
	sb.WriteString(sp() + "}")
	return sb.String()
}

// randomDocument is randomText with white space around it and, now and
// then, data after it.
func randomDocument(r *rand.Rand) string {
	text := spaces[r.IntN(len(spaces))] + randomText(r, 4) + spaces[r.IntN(len(spaces))]
	if r.IntN(30) == 0 {
		text += []string{"x", " {}", "1", "]"}[r.IntN(4)]
	}
	return text
}

// TestDecodeMatchesEncodingJSON draws 20,000 documents; wherever Decode
// answers, encoding/json must give the same value, and Decode must
// answer the valid ones without trailing data (else it would never run).
func TestDecodeMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 1))
	answered := 0
	for range 20000 {
		text := randomDocument(r)
		checkDecode(t, text)
		if _, ok := Decode(text); ok {
			answered++
		}
	}
	if answered < 5000 {
		t.Fatalf("Decode answered only %d of 20,000 documents: the fast path would rarely run", answered)
	}
}

func TestDecodeAnswersPlainDocuments(t *testing.T) {
	for _, text := range []string{`{"id":1,"name":"doggie","tags":[],"photoUrls":["a"],"category":{}}`, `[1,2.5,-3e2]`, ` "x" `, `null`} {
		if _, ok := Decode(text); !ok {
			t.Errorf("Decode(%q) left a plain document to encoding/json", text)
		}
	}
	for _, text := range []string{`{"a":1} x`, `{"a":1}{}`, `01`, `{"a":}`, strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)} {
		if _, ok := Decode(text); ok {
			t.Errorf("Decode(%q) answered what it must leave to encoding/json", text)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\u00e9",true,null]}`, `"\ud800"`, "\"\xff\"", `-0.5e+7`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) { checkDecode(t, text) })
}

// randomValue draws a plain value, a Go value schemas are built from
// ([]string, integers, floats at the edges of encoding/json's formats),
// and now and then one Append must leave to encoding/json (another type,
// an invalid number, a float that is not finite).
func randomValue(r *rand.Rand, d int) any {
	if r.IntN(8) == 0 {
		return randomGoValue(r)
	}
	switch k := r.IntN(10); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return json.Number(numbers[r.IntN(len(numbers))])
	case k == 3:
		return []any{json.Number(""), int8(r.IntN(100)), map[string]any(nil), []any(nil)}[r.IntN(4)]
	case k <= 6 || d == 0:
		var s string
		_ = json.Unmarshal([]byte(randomString(r)), &s)
		return s + string(rune(r.IntN(0x3000)))
	case k == 7:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, d-1)
		}
		return a
	}
	m := map[string]any{}
	for range r.IntN(5) {
		var k string
		_ = json.Unmarshal([]byte(randomString(r)), &k)
		m[k] = randomValue(r, d-1)
	}
	return m
}

// floatEdges are where encoding/json's float format changes or is exact
// only by its rules.
var floatEdges = []float64{0, math.Copysign(0, -1), 1e-6, 9.999999999999999e-7, 1e-7, 1e21, 9.999999999999999e20, 1e20,
	-1e21, 5e-324, math.MaxFloat64, -math.MaxFloat64, 0.1, 1.0 / 3, 123456789.125, 1e-10, 2.5e-8, 100, -7.5,
	math.NaN(), math.Inf(1), math.Inf(-1)}

// randomGoValue draws one of the Go types Append writes besides the
// decoded ones.
func randomGoValue(r *rand.Rand) any {
	switch r.IntN(6) {
	case 0:
		if r.IntN(5) == 0 {
			return []string(nil)
		}
		a := make([]string, r.IntN(4))
		for i := range a {
			_ = json.Unmarshal([]byte(randomString(r)), &a[i])
		}
		return a
	case 1:
		return int(r.Int64()) >> r.IntN(64)
	case 2:
		return -r.Int64() >> r.IntN(64)
	case 3:
		return r.Uint64() >> r.IntN(64)
	case 4:
		return floatEdges[r.IntN(len(floatEdges))]
	}
	// Any bit pattern: every exponent and mantissa encoding/json may meet.
	return math.Float64frombits(r.Uint64())
}

// TestAppendMatchesEncodingJSON draws 20,000 values; wherever Append
// answers, encoding/json must write the same bytes, with and without
// HTML escaping.
func TestAppendMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 2))
	answered := 0
	for range 20000 {
		v := randomValue(r, 4)
		html := r.IntN(2) == 0
		got, ok := Append([]byte("prefix"), v, html)
		if !ok {
			if string(got) != "prefix" {
				t.Fatalf("Append(%#v) refused but changed dst to %q", v, got)
			}
			continue
		}
		answered++
		want, err := referenceAppend(v, html)
		if err != nil {
			t.Fatalf("Append(%#v) = %q, but encoding/json fails: %v", v, got, err)
		}
		if string(got) != "prefix"+string(want) {
			t.Fatalf("Append(%#v, html %v) = %q, encoding/json writes %q", v, html, got[len("prefix"):], want)
		}
	}
	if answered < 5000 {
		t.Fatalf("Append answered only %d of 20,000 values", answered)
	}
}

// TestAppendAllocatesOnlyKeys: an object costs one allocation (its
// sorted keys) beyond the output's growth.
func TestAppendAllocatesOnlyKeys(t *testing.T) {
	v := map[string]any{"id": json.Number("1"), "name": "doggie", "tags": []any{"a"}, "ok": true}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { _, _ = Append(buf[:0], v, false) }); n > 1 {
		t.Fatalf("Append made %v allocations, want at most 1", n)
	}
}

// checkValid fails t when Valid says valid where json.Valid does not.
func checkValid(t *testing.T, text string) {
	t.Helper()
	if Valid([]byte(text)) && !json.Valid([]byte(text)) {
		t.Fatalf("Valid(%q) is true, json.Valid false", text)
	}
}

// TestValidMatchesEncodingJSON draws the documents of
// TestDecodeMatchesEncodingJSON, valid and not: Valid never accepts what
// json.Valid refuses, and accepts the valid ones within its depth.
func TestValidMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 5))
	for range 20000 {
		text := randomDocument(r)
		if r.IntN(10) == 0 && len(text) > 1 {
			text = text[:r.IntN(len(text))] // cut short
		}
		checkValid(t, text)
		if json.Valid([]byte(text)) && !Valid([]byte(text)) {
			t.Fatalf("Valid(%q) is false, json.Valid true", text)
		}
	}
	deep := strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1)
	if Valid([]byte(deep)) {
		t.Fatal("Valid accepted nesting deeper than maxDepth")
	}
}

func FuzzValid(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\u00e9",true,null]}`, `"\ud800"`, "\"\xff\"", `-0.5e+7`, `{"a":1,"a":2}`, `"\u12"`, `[1,]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkValid(t, text)
		if json.Valid([]byte(text)) && !Valid([]byte(text)) && !strings.Contains(text, strings.Repeat("[", 64)) && !strings.Contains(text, strings.Repeat("{", 64)) {
			t.Fatalf("Valid(%q) is false, json.Valid true", text)
		}
	})
}

// members is an object as TestDecodeOrderedKeepsOrder builds it: every
// member in document order, duplicates included.
type members struct {
	keys []string
	vals []any
}

// referenceOrdered decodes one value with json.Decoder.Token, objects as
// members.
func referenceOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		m := members{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := referenceOrdered(dec)
			if err != nil {
				return nil, err
			}
			m.keys, m.vals = append(m.keys, k.(string)), append(m.vals, v)
		}
		_, err := dec.Token()
		return m, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := referenceOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return tok, nil
}

// TestDecodeOrderedKeepsOrder: on 20,000 random documents DecodeOrdered
// answers exactly where Decode does, and gives what json.Decoder's
// tokens give, every object's members in document order.
func TestDecodeOrderedKeepsOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 2))
	build := func(keys []string, vals []any) any { return members{keys, vals} }
	objects := 0
	for range 20000 {
		text := randomText(r, 4)
		got, ok := DecodeOrdered(text, build)
		if _, plain := Decode(text); ok != plain {
			t.Fatalf("DecodeOrdered(%q) answers %v, Decode %v", text, ok, plain)
		}
		if !ok {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		want, err := referenceOrdered(dec)
		if err != nil {
			t.Fatalf("DecodeOrdered(%q) = %#v, but json.Decoder fails: %v", text, got, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeOrdered(%q) = %#v, json.Decoder's tokens give %#v", text, got, want)
		}
		if m, isObject := got.(members); isObject && len(m.keys) > 1 {
			objects++
		}
	}
	if objects < 200 {
		t.Fatalf("only %d documents were objects of two or more members", objects)
	}
}

// TestMembersMatchesEncodingJSON: on 20,000 random documents Members
// answers exactly the valid objects (within its depth), and its members
// are the document's: each key as encoding/json decodes it, each value's
// text decoding to what json.Decoder's tokens give for that member, in
// document order with repeated keys kept.
func TestMembersMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 7))
	objects := 0
	for range 20000 {
		text := randomDocument(r)
		keys, vals, ok := Members([]byte(text))
		isObject := json.Valid([]byte(text)) && strings.TrimLeft(text, " \t\r\n")[0] == '{'
		if ok != isObject {
			t.Fatalf("Members(%q) answers %v; a valid object: %v", text, ok, isObject)
		}
		if !ok {
			continue
		}
		objects++
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		want, err := referenceOrdered(dec)
		if err != nil {
			t.Fatal(err)
		}
		m := want.(members)
		if !reflect.DeepEqual(keys, m.keys) && !(len(keys) == 0 && len(m.keys) == 0) {
			t.Fatalf("Members(%q) keys %q, want %q", text, keys, m.keys)
		}
		for i, raw := range vals {
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			v, err := referenceOrdered(dec)
			if err != nil || !reflect.DeepEqual(v, m.vals[i]) {
				t.Fatalf("Members(%q) value %d is %q (%v), want %#v", text, i, raw, err, m.vals[i])
			}
		}
	}
	if objects < 2000 {
		t.Fatalf("only %d of 20,000 documents were valid objects", objects)
	}
	deep := "{\"a\":" + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + "}"
	if _, _, ok := Members([]byte(deep)); ok {
		t.Fatal("Members accepted nesting deeper than maxDepth")
	}
}

// TestSkippingScannerAgreesWithMembers: on 20,000 random documents, for
// every valid object EachMember gives the members Members gives (keys as
// written, refusing a key with escapes; as written, a key that is not
// UTF-8 is not its decoded text), and ValueEnd finds the end of
// every valid value with white space after it.
func TestSkippingScannerAgreesWithMembers(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 9))
	compared := 0
	for range 20000 {
		text := randomText(r, 4)
		data := []byte(text + spaces[r.IntN(len(spaces))])
		if !json.Valid(data) {
			continue
		}
		if end := ValueEnd(data, 0); end != len(text) {
			t.Fatalf("ValueEnd(%q) = %d, want %d", data, end, len(text))
		}
		keys, vals, ok := Members(data)
		if !ok {
			continue
		}
		var gotKeys []string
		var gotVals [][]byte
		all := EachMember(data, func(k, v []byte) bool {
			gotKeys, gotVals = append(gotKeys, string(k)), append(gotVals, v)
			return true
		})
		escaped := strings.Contains(text, `\`)
		if !all {
			if !escaped {
				t.Fatalf("EachMember(%q) refused an object without escapes", data)
			}
			continue
		}
		for i, k := range gotKeys {
			if strings.Contains(k, `\`) {
				t.Fatalf("EachMember(%q) gave the escaped key %q", data, k)
			}
			// As written, a key is its decoded self unless it holds bytes
			// that are not UTF-8 (decoded as U+FFFD).
			if (utf8.ValidString(k) && k != keys[i]) || string(gotVals[i]) != string(vals[i]) {
				t.Fatalf("EachMember(%q) member %d is %q: %q, Members gives %q: %q", data, i, k, gotVals[i], keys[i], vals[i])
			}
		}
		if len(gotKeys) != len(keys) {
			t.Fatalf("EachMember(%q) gave %d members, Members %d", data, len(gotKeys), len(keys))
		}
		compared++
	}
	if compared < 1000 {
		t.Fatalf("only %d objects compared", compared)
	}
}

// FuzzMembers: Members answers exactly the valid JSON objects (within
// its depth), and each member's value is one valid JSON value.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x\u00e9",true,null]}`, `{"a":1,"a":2}`, `{}`, ` {"\ud800":{}} `, `{"a":1}x`, `[1]`, `{"a" 1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		data := []byte(text)
		keys, vals, ok := Members(data)
		object := json.Valid(data) && strings.TrimLeft(text, " \t\r\n")[0] == '{'
		if ok && !object {
			t.Fatalf("Members(%q) answered; not a valid object", text)
		}
		if !ok && object && !strings.Contains(text, strings.Repeat("[", 64)) && !strings.Contains(text, strings.Repeat("{", 64)) {
			t.Fatalf("Members(%q) refused a valid object", text)
		}
		if len(keys) != len(vals) {
			t.Fatalf("Members(%q): %d keys, %d values", text, len(keys), len(vals))
		}
		for i, v := range vals {
			if !json.Valid(v) {
				t.Fatalf("Members(%q) value %d %q is not one JSON value", text, i, v)
			}
		}
	})
}
