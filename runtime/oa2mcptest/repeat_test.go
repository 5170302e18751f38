package oa2mcptest_test

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestRepeatedJSON builds seeded JSON arrays, some of one item repeated,
// some with one element changed or spaced differently, and checks that
// RepeatedJSON finds exactly those that oa2mcptest.RepeatJSON rebuilds
// byte for byte.
func TestRepeatedJSON(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	items := []string{`{"id":1,"name":"a"}`, `1`, `"x"`, `[1,2]`, `{"a":{"b":[]}}`, `null`}
	for round := range 500 {
		item := items[r.IntN(len(items))]
		n := r.IntN(30)
		s := oa2mcptest.RepeatJSON(n, item)
		want := n >= 3
		switch r.IntN(4) {
		case 0: // one element differs
			if n > 0 {
				parts := strings.Split(strings.Repeat(item+"\x00", n-1)+`"other"`, "\x00")
				s, want = "["+strings.Join(parts, ",")+"]", false
			}
		case 1: // spaced: same values, other bytes
			s, want = strings.ReplaceAll(s, ",", ", "), false
		}
		got, gn, ok := oa2mcptest.RepeatedJSON(s)
		if ok != want || (ok && (oa2mcptest.RepeatJSON(gn, got) != s)) {
			t.Fatalf("seed %d round %d: RepeatedJSON(%s) = %q, %d, %v; want ok %v", seed, round, strconv.Quote(s), got, gn, ok, want)
		}
	}
}
