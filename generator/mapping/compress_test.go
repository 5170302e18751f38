package mapping

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestJSONSize: jsonSize counts exactly what json.Marshal writes, and
// past a limit says so, for escapes, unicode, invalid UTF-8 and random
// schema-like values.
func TestJSONSize(t *testing.T) {
	strs := []string{"", "plain", `quo"te`, `back\slash`, "tab\tnl\ncr\r", "bell\a\b\f\x00\x1f", "<a href='x'>&amp;</a>",
		"naïve café ☕ 𝄞", "bad \xff\xfe utf8", "line\u2028sep\u2029", strings.Repeat("x", 3000)}
	var values []any
	for _, s := range strs {
		values = append(values, s, map[string]any{s: s}, []any{s, nil, true, false, json.Number("12.5e3")})
	}
	r := rand.New(rand.NewPCG(1, 2))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := r.IntN(7); {
		case depth > 4 || k == 0:
			return strs[r.IntN(len(strs)-1)]
		case k == 1:
			return json.Number("42")
		case k == 2:
			return r.IntN(2) == 0
		case k == 3:
			out := []any{}
			for range r.IntN(4) {
				out = append(out, gen(depth+1))
			}
			return out
		case k == 4:
			return 3.25
		default:
			out := map[string]any{}
			for range r.IntN(5) {
				out[strs[r.IntN(len(strs)-1)]+string(rune('a'+r.IntN(26)))] = gen(depth + 1)
			}
			return out
		}
	}
	for range 500 {
		values = append(values, gen(0))
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonSize(v, 1<<30); got != len(b) {
			t.Fatalf("jsonSize = %d, json.Marshal wrote %d: %s", got, len(b), b)
		}
		for _, limit := range []int{0, 10, len(b) - 1, len(b)} {
			if got := jsonSize(v, limit); (got > limit) != (len(b) > limit) {
				t.Fatalf("limit %d: jsonSize = %d, actual %d: %s", limit, got, len(b), b)
			}
		}
	}
}

// TestCompressionNamesTheUnionsItCuts: for random schemas over budget
// with a union nested at random depth, its arms inline or definitions
// under $defs, compression may cut the union's structure but never its
// variants' names: every variant's tag is still in the compressed
// schema, and a summary says which field tells them apart.
func TestCompressionNamesTheUnionsItCuts(t *testing.T) {
	for seed := uint64(1); seed <= 120; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		n := 2 + r.IntN(8)
		defs := map[string]any{}
		byRef := r.IntN(2) == 0
		var arms []any
		var tags []string
		for i := range n {
			tag := fmt.Sprintf("form%d_%d", seed, i)
			tags = append(tags, tag)
			arm := map[string]any{"type": "object", "required": []any{"form"}, "properties": map[string]any{
				"form": map[string]any{"const": tag}, "text": map[string]any{"type": "string", "description": strings.Repeat("words ", 20)}}}
			if byRef {
				name := fmt.Sprintf("Variant%d", i)
				defs[name] = arm
				arms = append(arms, map[string]any{"$ref": "#/$defs/" + name})
				continue
			}
			arms = append(arms, arm)
		}
		union := map[string]any{"oneOf": arms}
		node := union
		for range r.IntN(4) {
			node = map[string]any{"type": "object", "properties": map[string]any{"inner": node}}
		}
		root := map[string]any{"type": "object", "properties": map[string]any{"shopper": node}}
		if byRef {
			root["$defs"] = defs
		}
		for i := range 10 + r.IntN(20) {
			root["properties"].(map[string]any)[fmt.Sprintf("p%d", i)] = map[string]any{"type": "object", "properties": map[string]any{
				"x": map[string]any{"type": "object", "properties": map[string]any{"y": map[string]any{"type": "string", "description": strings.Repeat("long ", 30)}}}}}
		}
		compressSchema(root)
		b, _ := json.Marshal(root)
		for _, tag := range tags {
			if !strings.Contains(string(b), tag) {
				t.Fatalf("seed %d: the compressed schema lost variant %s of a %d-variant union:\n%s", seed, tag, n, b)
			}
		}
		if strings.Contains(string(b), "shapes the API accepts") && !strings.Contains(string(b), `told apart by \"form\"`) {
			t.Fatalf("seed %d: a summary of a union discriminated by form does not say so (arms by $ref: %v):\n%s", seed, byRef, b)
		}
	}
}

// TestSubschemaKeysSorted: walkSchemas visits subschemas in key order,
// which holds only while its key list is sorted.
func TestSubschemaKeysSorted(t *testing.T) {
	if !slices.IsSorted(subschemaKeys) {
		t.Fatalf("subschemaKeys %v are not in byte order", subschemaKeys)
	}
}
