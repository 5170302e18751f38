package runtime

import (
	"io"
	"sync"
)

// groupWriter writes whole messages (JSON-RPC lines, log records) to w,
// joining the ones that arrive while a write is in progress into the next
// single write. Under load one system call carries many responses instead
// of one each, and the client wakes once to read them all. Each Write
// returns once its bytes are written, with the error of the write that
// carried them, so a writer learns of a closed stream as before.
type groupWriter struct {
	mu      sync.Mutex
	written sync.Cond
	w       io.Writer
	pending []byte // bytes of the next batch
	spare   []byte // the last batch's buffer, reused
	busy    bool   // a batch is being written
	taken   uint64 // batches taken for writing so far
	done    uint64 // batches written so far
	err     error  // the error of the last batch written
}

// maxSpareBatch bounds the buffer kept for the next batch: one large
// result must not pin its size for the rest of the session.
const maxSpareBatch = 64 << 10

func newGroupWriter(w io.Writer) *groupWriter {
	g := &groupWriter{w: w}
	g.written.L = &g.mu
	return g
}

// Write queues p for the next batch and returns once that batch is
// written. The first writer to find no write in progress writes the
// batch, and everything queued with it.
func (g *groupWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, p...)
	batch := g.taken + 1 // the batch that will carry p
	for g.busy && g.done < batch {
		g.written.Wait()
	}
	if g.done >= batch {
		if g.err != nil {
			return 0, g.err
		}
		return len(p), nil
	}
	g.busy, g.taken = true, batch
	out := g.pending
	// The spare buffer becomes the next batch's, and is no longer spare:
	// out must never be appended to while it is written.
	g.pending, g.spare = g.spare[:0], nil
	g.mu.Unlock()
	_, err := g.w.Write(out)
	g.mu.Lock()
	if cap(out) <= maxSpareBatch {
		g.spare = out[:0]
	}
	g.busy, g.done, g.err = false, batch, err
	g.written.Broadcast()
	if err != nil {
		return 0, err
	}
	return len(p), nil
}
