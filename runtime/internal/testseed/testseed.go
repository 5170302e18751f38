// Package testseed picks the seed of a test's random inputs, the same way
// in every test of the runtime module and in oa2mcptest.Seed.
package testseed

import (
	"hash/fnv"
	"os"
	"strconv"
	"testing"
	"time"
)

// Seed is $OA2MCP_SEED when set to a number (to replay a failure); a new
// seed from the clock with OA2MCP_SEED=random (for longer hunts); else a
// seed fixed by the test's name, so that the test command gives the same
// inputs on every run and machine. The seed is logged either way.
func Seed(t testing.TB) uint64 {
	t.Helper()
	var seed uint64
	switch s := os.Getenv("OA2MCP_SEED"); s {
	case "":
		h := fnv.New64a()
		h.Write([]byte(t.Name()))
		seed = h.Sum64()
	case "random":
		seed = uint64(time.Now().UnixNano())
	default:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("$OA2MCP_SEED=%q is neither a number nor random", s)
		}
		seed = n
	}
	t.Logf("seed %d (replay with OA2MCP_SEED=%d)", seed, seed)
	return seed
}
