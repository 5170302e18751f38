package workers

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
)

// TestEveryIndexOnce: for seeded random sizes and CPU counts (one CPU
// included, where the caller is the only worker), ForEach and ForChunks
// call every index exactly once, and ForChunks hands each index to one
// contiguous range.
func TestEveryIndexOnce(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	r := rand.New(rand.NewPCG(20, 25))
	for seed := range 300 {
		runtime.GOMAXPROCS(1 + seed%5)
		n := r.IntN(300)
		each := make([]atomic.Int32, n)
		ForEach(n, func(i int) { each[i].Add(1) })
		chunks := make([]atomic.Int32, n)
		ForChunks(n, func(lo, hi int) {
			if lo > hi || lo < 0 || hi > n {
				t.Errorf("seed %d, n %d: range [%d, %d)", seed, n, lo, hi)
				return
			}
			for i := lo; i < hi; i++ {
				chunks[i].Add(1)
			}
		})
		for i := range n {
			if each[i].Load() != 1 || chunks[i].Load() != 1 {
				t.Fatalf("seed %d, n %d: index %d called %d times by ForEach, %d by ForChunks", seed, n, i, each[i].Load(), chunks[i].Load())
			}
		}
	}
}
