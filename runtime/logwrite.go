package runtime

import (
	"io"
	"sync"
	"time"
)

// logWriter is where a generated server's log records go on their way
// to stderr: Write only copies the record, and the records of the next
// logFlushDelay leave in one write. slog's handlers write each record
// under their own lock, so a record written straight to stderr cost a
// system call per tool call (and a wake-up of whoever reads stderr),
// with every other caller's record waiting behind it. A record is
// written at the latest logFlushDelay after it was logged, at once
// before more is added once logMaxBuffered bytes wait (so memory stays
// bounded and a flood of records is paced by stderr), and on Close, which Main calls before
// it returns; what a process killed outright (SIGKILL, a crash outside
// the call handlers) had not yet written is lost.
type logWriter struct {
	w io.Writer

	writing sync.Mutex // held while a batch is written: batches stay in order

	mu     sync.Mutex
	buf    []byte
	spare  []byte
	timer  *time.Timer // armed while buf holds records
	armed  bool
	closed bool
}

const (
	// logFlushDelay bounds how long a record waits in memory.
	logFlushDelay = 20 * time.Millisecond
	// logMaxBuffered bounds the bytes waiting; past them Write writes.
	logMaxBuffered = 64 << 10
)

func newLogWriter(w io.Writer) *logWriter {
	l := &logWriter{w: w}
	l.timer = time.AfterFunc(time.Hour, l.Flush)
	l.timer.Stop()
	return l
}

// Write queues p for the next batch. After Close it writes p at once.
func (l *logWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		l.writing.Lock()
		defer l.writing.Unlock()
		return l.w.Write(p)
	}
	for len(l.buf) >= logMaxBuffered {
		// Full: this writer writes (or waits for the write in progress)
		// before it adds more, so the bytes waiting stay bounded by the
		// bound and one record per writer.
		l.mu.Unlock()
		l.Flush()
		l.mu.Lock()
	}
	l.buf = append(l.buf, p...)
	if !l.armed {
		l.armed = true
		l.timer.Reset(logFlushDelay)
	}
	l.mu.Unlock()
	return len(p), nil
}

// Flush writes what waits, in one write.
func (l *logWriter) Flush() {
	l.writing.Lock()
	defer l.writing.Unlock()
	l.mu.Lock()
	out := l.buf
	l.buf, l.spare = l.spare[:0], nil
	l.armed = false
	l.mu.Unlock()
	if len(out) > 0 {
		_, _ = l.w.Write(out) // stderr failing: nowhere left to say so
	}
	l.mu.Lock()
	if cap(out) <= logMaxBuffered*2 {
		l.spare = out[:0]
	}
	l.mu.Unlock()
}

// Close writes what waits; later records are written as they come.
func (l *logWriter) Close() error {
	l.mu.Lock()
	l.closed = true
	l.timer.Stop()
	l.mu.Unlock()
	l.Flush()
	return nil
}
