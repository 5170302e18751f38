// Package workers runs the generator's independent, CPU-bound steps (one
// per tool, operation or schema) on every CPU, with results that do not
// depend on the order in which they finish.
//
// The calling goroutine is one of the workers. A goroutine starts with a
// small stack and grows it by copying; a run too short to collect
// garbage never learns a larger start, so every new goroutine copied its
// stack again as the deep recursion of schema and YAML work grew it. The
// caller's stack is already grown, and there is one goroutine fewer.
package workers

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForEach calls f(0) … f(n-1) on as many goroutines as there are CPUs
// (the caller's among them) and returns when all are done; f must only
// write to its own index's results.
func ForEach(n int, f func(i int)) {
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
			f(i)
		}
	}
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
}

// ForChunks splits 0..n into one contiguous range per worker and runs f
// on each concurrently (the last on the caller), for work that shares
// state within a range.
func ForChunks(n int, f func(lo, hi int)) {
	workers := min(n, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers - 1 {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() { f(lo, hi) })
	}
	if workers > 0 {
		f(n*(workers-1)/workers, n)
	}
	wg.Wait()
}
