// Package workers runs the generator's independent, CPU-bound steps (one
// per tool, operation or schema) on every CPU, with results that do not
// depend on the order in which they finish.
package workers

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(0) … f(n-1) on as many goroutines as there are CPUs
// and returns when all are done; f must only write to its own index's
// results.
func ForEach(n int, f func(i int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// ForChunks splits 0..n into one contiguous range per worker and runs f
// on each concurrently, for work that shares state within a range.
func ForChunks(n int, f func(lo, hi int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}
