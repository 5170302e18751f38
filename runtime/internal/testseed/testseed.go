// Package testseed picks the seed of a test's random inputs, the same way
// in every test of the runtime module and in oa2mcptest.Seed.
package testseed

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// Seed is $OA2MCP_SEED when set (to replay a failure), else a new seed,
// logged so that a failure can be replayed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	if s := os.Getenv("OA2MCP_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("$OA2MCP_SEED=%q is not a number", s)
		}
		return n
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (replay with OA2MCP_SEED=%d)", seed, seed)
	return seed
}
