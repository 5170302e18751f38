package runtime

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// referenceOrderedJSON writes v as jsonObject.MarshalJSON did through
// encoding/json: keys by json.Marshal, values by marshalNoEscape.
func referenceOrderedJSON(t *testing.T, v any) string {
	o, ok := v.(*jsonObject)
	if !ok {
		b, err := marshalNoEscape(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshalNoEscape(o.vals[k])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.String()
}

// randomSchemaText is a random JSON document of schema-like keys and
// values, with keys and strings holding what encoders escape.
func randomSchemaText(r *rand.Rand, depth int) string {
	words := []string{`"type"`, `"properties"`, `"a<b"`, `"x&y"`, `"é"`, `"\u2028"`, `"line\nbreak"`, `"q\"uote"`, `"<tag>"`}
	switch k := r.IntN(6); {
	case k == 0 || depth == 0:
		return []string{`true`, `null`, `12`, `-0.5e3`, `"text <b> & more"`, `"\ud83d\ude00"`}[r.IntN(6)]
	case k <= 2:
		items := make([]string, r.IntN(4))
		for i := range items {
			items[i] = randomSchemaText(r, depth-1)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	members := make([]string, r.IntN(5))
	for i := range members {
		members[i] = words[r.IntN(len(words))] + ":" + randomSchemaText(r, depth-1)
	}
	return "{" + strings.Join(members, ",") + "}"
}

// TestOrderedJSONMatchesEncodingJSON: on random documents, decoding in
// order and writing back gives what the encoding/json path gave, byte
// for byte, so advertised schemas do not change.
func TestOrderedJSONMatchesEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 1))
	for range 5000 {
		text := randomSchemaText(r, 4)
		v, err := decodeOrdered(text)
		if err != nil {
			t.Fatalf("decodeOrdered(%s): %v", text, err)
		}
		got, err := appendOrdered(nil, v)
		if err != nil {
			t.Fatalf("appendOrdered(%s): %v", text, err)
		}
		if want := referenceOrderedJSON(t, v); string(got) != want {
			t.Fatalf("%s is written as\n%s\nencoding/json wrote\n%s", text, got, want)
		}
	}
}
