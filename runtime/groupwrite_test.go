package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// slowWriter records each write and takes a while, as a pipe to a busy
// client does.
type slowWriter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
	err    error
}

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(200 * time.Microsecond)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if w.err != nil {
		return 0, w.err
	}
	return w.buf.Write(p)
}

// TestGroupWriter: lines written at once arrive whole, each once, in
// fewer writes than lines; a failed write reaches every writer it carried.
func TestGroupWriter(t *testing.T) {
	sw := &slowWriter{}
	g := newGroupWriter(sw)
	const writers, lines = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range lines {
				line := fmt.Sprintf("{\"writer\":%d,\"line\":%d,\"pad\":%q}\n", w, i, strings.Repeat("x", 40))
				if n, err := g.Write([]byte(line)); err != nil || n != len(line) {
					t.Errorf("Write = %d, %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	got := strings.Split(strings.TrimSuffix(sw.buf.String(), "\n"), "\n")
	if len(got) != writers*lines {
		t.Fatalf("%d lines arrived, want %d", len(got), writers*lines)
	}
	seen := map[string]bool{}
	for _, l := range got {
		if !strings.HasPrefix(l, "{\"writer\":") || !strings.HasSuffix(l, "\"}") || seen[l] {
			t.Fatalf("line torn or repeated: %q", l)
		}
		seen[l] = true
	}
	if sw.writes >= writers*lines {
		t.Errorf("%d writes for %d lines: nothing was joined", sw.writes, writers*lines)
	}
	t.Logf("%d lines in %d writes", writers*lines, sw.writes)

	sw.err = errors.New("pipe closed")
	for range 3 {
		if _, err := g.Write([]byte("late\n")); err == nil || !strings.Contains(err.Error(), "pipe closed") {
			t.Errorf("Write after the stream closed: %v", err)
		}
	}
}

// TestGroupWriterLargeBatches: batches larger than the buffer kept for
// reuse never share memory with the batch being written (-race).
func TestGroupWriterLargeBatches(t *testing.T) {
	sw := &slowWriter{}
	g := newGroupWriter(sw)
	big := strings.Repeat("y", 30<<10)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				g.Write([]byte(fmt.Sprintf("%d-%d %s\n", w, i, big)))
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(sw.buf.String(), "\n"), "\n")
	if len(lines) != 120 {
		t.Fatalf("%d lines, want 120", len(lines))
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, " "+big) {
			t.Fatalf("a line was torn: %q...", l[:min(len(l), 40)])
		}
	}
}
