package runtime

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"
)

// Defaults of the resilience settings in serverSpec and toolSpec.
const (
	defaultMaxConcurrent = 64
	defaultMaxRetries    = 2
	defaultRetryBase     = 100 * time.Millisecond
	defaultRetryMaxWait  = 3 * time.Second
)

// limiter bounds calls in flight; nil means unlimited.
type limiter struct {
	slots chan struct{}
	size  int
}

func newLimiter(n int) *limiter {
	if n <= 0 {
		return nil
	}
	return &limiter{slots: make(chan struct{}, n), size: n}
}

// acquire waits for a slot until ctx is done.
func (l *limiter) acquire(ctx context.Context) bool {
	if l == nil {
		return true
	}
	select {
	case l.slots <- struct{}{}:
		return true
	default:
	}
	select {
	case l.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (l *limiter) release() {
	if l != nil {
		<-l.slots
	}
}

// retryPolicy is how one tool retries.
type retryPolicy struct {
	allowed    bool
	max        int
	base       time.Duration
	maxWait    time.Duration
	idemHeader string
}

// idempotentMethods may be repeated without changing the outcome (RFC 9110).
func idempotentMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions, http.MethodTrace, "QUERY":
		return true
	}
	return false
}

func newRetryPolicy(spec *ServerDef, op *Operation, method string) retryPolicy {
	p := retryPolicy{max: defaultMaxRetries, base: defaultRetryBase, maxWait: defaultRetryMaxWait}
	if spec.MaxRetries != 0 {
		p.max = max(spec.MaxRetries, 0)
	}
	if spec.RetryBaseMillis > 0 {
		p.base = time.Duration(spec.RetryBaseMillis) * time.Millisecond
	}
	if spec.RetryMaxWaitMillis > 0 {
		p.maxWait = time.Duration(spec.RetryMaxWaitMillis) * time.Millisecond
	}
	p.idemHeader = strings.TrimSpace(op.IdempotencyKeyHeader)
	switch strings.ToLower(op.Retry) {
	case "always":
		p.allowed = true
	case "never":
		p.allowed = false
	default:
		p.allowed = idempotentMethod(method) || p.idemHeader != ""
	}
	if p.max == 0 {
		p.allowed = false
	}
	return p
}

// wait returns how long to wait before retry number n (0-based) after e,
// or false when the call must not be retried: not retryable, out of
// attempts, a Retry-After beyond the cap, or no time left before deadline.
func (p *retryPolicy) wait(n int, e *callError, deadline time.Time) (time.Duration, bool) {
	if !p.allowed || n >= p.max || !e.retryable {
		return 0, false
	}
	var d time.Duration
	if e.retryAfter >= 0 {
		// Compare in seconds first: the product cannot overflow then.
		if int64(e.retryAfter) > int64(p.maxWait/time.Second)+1 {
			return 0, false
		}
		d = time.Duration(e.retryAfter) * time.Second
		if d > p.maxWait {
			return 0, false
		}
	} else {
		// Exponential backoff with full jitter.
		ceil := min(p.base<<n, p.maxWait)
		d = time.Duration(rand.Int64N(int64(ceil))) + ceil/4
	}
	// Leave the next attempt at least a little time before the deadline.
	if !deadline.IsZero() && time.Until(deadline) < d+50*time.Millisecond {
		return 0, false
	}
	return d, true
}

// sleepCtx waits d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// newIdempotencyKey returns a random UUID (version 4).
func newIdempotencyKey() string {
	var b [16]byte
	crand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// traceContext is the W3C trace context of one tool call.
type traceContext struct {
	traceID string // 32 lower-case hex
	flags   string // 2 hex
	state   string // tracestate, passed through
}

// newTraceContext continues the caller's trace when the MCP request
// carries a valid traceparent (in _meta, or on HTTP as a header), and
// starts a new sampled trace otherwise.
func newTraceContext(meta map[string]any, header http.Header) traceContext {
	tp, _ := meta["traceparent"].(string)
	ts, _ := meta["tracestate"].(string)
	if tp == "" && header != nil {
		tp, ts = header.Get("Traceparent"), header.Get("Tracestate")
	}
	if id, flags, ok := parseTraceparent(tp); ok {
		if len(ts) > 512 || strings.ContainsAny(ts, "\r\n") {
			ts = ""
		}
		return traceContext{traceID: id, flags: flags, state: ts}
	}
	return traceContext{traceID: randomHex(16), flags: "01"}
}

// parseTraceparent accepts "VV-TRACEID-PARENTID-FLAGS" per W3C Trace
// Context (future versions may append fields).
func parseTraceparent(s string) (traceID, flags string, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < 55 || s[2] != '-' || s[35] != '-' || s[52] != '-' {
		return "", "", false
	}
	ver, id, parent, fl := s[0:2], s[3:35], s[36:52], s[53:55]
	if !isLowerHex(ver) || ver == "ff" || !isLowerHex(id) || !isLowerHex(parent) || !isLowerHex(fl) ||
		strings.Trim(id, "0") == "" || strings.Trim(parent, "0") == "" || (ver == "00" && len(s) != 55) {
		return "", "", false
	}
	return id, fl, true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// header renders the traceparent of one upstream request with a fresh
// span (parent) id.
func (tc *traceContext) header() string {
	return "00-" + tc.traceID + "-" + randomHex(8) + "-" + tc.flags
}

// randomHex returns n random bytes as hex; ids, not secrets.
func randomHex(n int) string {
	var b [16]byte
	for i := 0; i < n; i += 8 {
		v := rand.Uint64()
		for j := 0; j < 8 && i+j < n; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	if n > 16 {
		n = 16
	}
	return hex.EncodeToString(b[:n])
}
