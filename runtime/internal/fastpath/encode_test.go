package fastpath

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// randomText draws a string rich in what JSON escapes: quotes,
// backslashes, control bytes, <, >, &, U+2028, U+2029, other non-ASCII
// and invalid UTF-8.
func randomText(r *rand.Rand) string {
	pieces := []string{"a", "Z", " ", `"`, `\`, "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "<", ">", "&",
		"\u2028", "\u2029", "é", "日本", "😀", "\xff", "\xe2\x80", "\xed\xa0\x80", "{", "}", "/"}
	var sb strings.Builder
	for range r.IntN(12) {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}

// randomValue draws a JSON value of depth at most d.
func randomValue(r *rand.Rand, d int) any {
	switch k := r.IntN(7); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return float64(r.IntN(2000)-1000) / 8
	case k <= 4 || d == 0:
		return randomText(r)
	case k == 5:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, d-1)
		}
		return a
	}
	m := map[string]any{}
	for range r.IntN(4) {
		m[randomText(r)] = randomValue(r, d-1)
	}
	return m
}

// randomResult draws a tool result: mostly plain ones (one text, JSON
// structured content), and the others the encoder leaves to the SDK.
func randomResult(r *rand.Rand) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: r.IntN(4) == 0}
	switch r.IntN(8) {
	case 0: // no content
	case 1:
		res.Content = []mcp.Content{}
	case 2:
		res.Content = []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: randomText(r)}}
	case 3:
		res.Content = []mcp.Content{&mcp.TextContent{Text: randomText(r), Annotations: &mcp.Annotations{Priority: 0.5}}}
	default:
		res.Content = []mcp.Content{&mcp.TextContent{Text: randomText(r)}}
	}
	v := randomValue(r, 3)
	switch r.IntN(6) {
	case 0:
	case 1:
		res.StructuredContent = v // not raw: the SDK's
	case 2:
		b, _ := json.MarshalIndent(v, "", " ") // not compact
		res.StructuredContent = json.RawMessage(b)
	default:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(r.IntN(2) == 0) // as finishResult writes it, or escaped
		_ = enc.Encode(v)
		res.StructuredContent = json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	if r.IntN(8) == 0 {
		res.Meta = mcp.Meta{"k": randomText(r)}
	}
	return res
}

// TestEncodeResponseMatchesSDK encodes random results both ways, the
// encoder's own and the SDK's MarshalJSON, for every combination of
// annotate and complete, and for numeric and string ids: the bytes are
// the same.
func TestEncodeResponseMatchesSDK(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	e := newResultEncoder(&mcp.Implementation{Name: "p<s>", Version: "1.0.0&"})
	plain := 0
	for i := range 5000 {
		res := randomResult(r)
		annotate, complete := r.IntN(2) == 0, r.IntN(2) == 0
		c := &fastCall{idKey: `7`}
		c.id, _ = jsonrpc.MakeID(float64(7))
		if r.IntN(2) == 0 {
			c.idKey = `"x-1"`
			c.id, _ = jsonrpc.MakeID("x-1")
		}
		if _, ok := e.appendPlainResult(nil, res, annotate); ok {
			plain++
		}
		got, err := e.encode([]byte("prefix"), c, res, nil, annotate, complete)
		if err != nil {
			continue // the SDK fails on it too (checked below)
		}
		sdk, sdkErr := e.sdkResult(res, annotate) // may add _meta to res: after encode
		if sdkErr != nil {
			t.Fatalf("seed %d, result %d: encoded although the SDK fails (%v): %s", seed, i, sdkErr, got)
		}
		want := `prefix{"jsonrpc":"2.0","id":` + c.idKey + `,"result":` + string(sdk)
		if complete {
			want = want[:len(want)-1]
			if !strings.HasSuffix(want, "{") {
				want += ","
			}
			want += `"resultType":"complete"}`
		}
		want += "}"
		if string(got) != want {
			t.Fatalf("seed %d, result %d (annotate %v, complete %v):\n got %s\nwant %s", seed, i, annotate, complete, got, want)
		}
		if !json.Valid(got[len("prefix"):]) {
			t.Fatalf("seed %d, result %d: invalid JSON %s", seed, i, got)
		}
	}
	if plain < 1000 {
		t.Errorf("only %d of 5000 results took the encoder's own path: the test exercises too little of it", plain)
	}
	t.Logf("%d of 5000 results encoded without the SDK", plain)
}

// TestAppendStringMatchesEncodingJSON: appendString writes what
// json.Marshal writes, on random strings.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	for i := range 20000 {
		s := randomText(r)
		if i < 256 {
			s = string([]byte{byte(i)}) + s
		}
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("seed %d: %q: got %s, encoding/json %s", seed, s, got, want)
		}
	}
}

// FuzzAppendString: whatever the string, appendString and json.Marshal
// agree.
func FuzzAppendString(f *testing.F) {
	f.Add("a<b>&\u2028\xff\x01\"\\")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Fatalf("%q: got %s, encoding/json %s", s, got, want)
		}
	})
}

// TestEncodePlainResultAllocatesNothing: a plain result (one text, the
// same JSON as structured content, the server named, resultType added)
// is encoded into the pooled buffer without one allocation: no
// reflection, no copy of the result, no fresh buffer per call.
func TestEncodePlainResultAllocatesNothing(t *testing.T) {
	e := newResultEncoder(&mcp.Implementation{Name: "petstore", Version: "1.0.0"})
	c := &fastCall{idKey: `12`}
	c.id, _ = jsonrpc.MakeID(float64(12))
	data := `{"id":1,"name":"doggie","photoUrls":["https://example.com/a.png"],"status":"available","tags":[{"id":1,"name":"t"}]}`
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: data}}, StructuredContent: json.RawMessage(data)}
	var line []byte
	allocs := testing.AllocsPerRun(1000, func() {
		buf := e.getBuffer()
		l, err := e.encode((*buf)[:0], c, res, nil, true, true)
		if err != nil {
			t.Fatal(err)
		}
		line = append(line[:0], l...)
		*buf = l
		e.putBuffer(buf)
	})
	if allocs > 0 && !(raceDetector && allocs <= 1) { // -race: the pool drops buffers at random
		t.Errorf("encoding a plain result allocates %.0f times per call, want 0 (is the result left to the SDK, or the buffer not pooled?)", allocs)
	}
	if want := `{"jsonrpc":"2.0","id":12,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"petstore","version":"1.0.0"}},"content":[{"type":"text","text":` + string(appendString(nil, data)) + `}],"structuredContent":` + data + `,"resultType":"complete"}}`; string(line) != want {
		t.Errorf("got  %s\nwant %s", line, want)
	}
}
