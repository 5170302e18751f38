package mapping

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// randomJSONLike draws what schemas in the mapping hold, and now and then
// what JSON cannot hold or changes (NaN, invalid UTF-8, json.Number,
// typed slices, nil maps and slices).
func randomJSONLike(r *rand.Rand, depth int) any {
	switch k := r.IntN(16); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return []string{"a", "é<&>", "\u2028", "\xff", ""}[r.IntN(5)]
	case k == 3:
		return []float64{0, -0.5, 1e21, 3.25, math.NaN(), math.Inf(1), math.Copysign(0, -1)}[r.IntN(7)]
	case k == 4:
		return []any{7, int64(-3), uint64(1 << 60), json.Number("12"), []string{"x", "é"}, []string{"\xff"}, []string(nil), map[string]any(nil), []any(nil)}[r.IntN(9)]
	case k <= 9 || depth == 0:
		return "s"
	case k <= 12:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomJSONLike(r, depth-1)
		}
		return l
	}
	m := map[string]any{}
	for range r.IntN(4) {
		m[[]string{"type", "properties", "enum", "\xfe", "x"}[r.IntN(5)]] = randomJSONLike(r, depth-1)
	}
	return m
}

// TestDeepCopyIsTheJSONTrip: on seeded random values deepCopy gives what
// the trip through encoding/json gives, and shares no map or slice with
// its input.
func TestDeepCopyIsTheJSONTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(oa2mcptest.Seed(t), 1))
	direct := 0
	for range 20000 {
		v := randomJSONLike(r, 4)
		if r.IntN(3) > 0 {
			v = map[string]any{"type": "object", "properties": v}
		}
		got, want := deepCopy(v), copyThroughJSON(v)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("deepCopy(%#v) = %#v, the JSON trip gives %#v", v, got, want)
		}
		if _, ok := copyPlain(v); ok {
			direct++
		}
		if m, ok := v.(map[string]any); ok && len(got) > 0 {
			got["type"] = "changed"
			if m["type"] == "changed" {
				t.Fatalf("deepCopy(%#v) shares its top map with its input", v)
			}
		}
	}
	if direct < 5000 {
		t.Fatalf("only %d of 20,000 values were copied directly", direct)
	}
}
