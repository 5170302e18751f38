package runtime

import (
	"context"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// RateStore is implemented by handle stores that keep rate limits for
// every replica (redisstore does, with GCRA on the store's clock). With
// one, a limit holds for a caller however its calls spread over replicas
// and across restarts; without one (the memory store) each process
// limits on its own.
type RateStore interface {
	// Allow admits one call under key for perMinute calls a minute with
	// burst at once; when it refuses, wait is how long until the next
	// call would be admitted.
	Allow(ctx context.Context, key string, perMinute float64, burst int) (ok bool, wait time.Duration, err error)
}

// rateLimiter limits calls per caller key: in the shared RateStore when
// the handle store is one, else (and while the shared store fails) in a
// token bucket per key in this process, rate tokens per second, at most
// burst stored. Idle full buckets are forgotten, so memory stays bounded
// by the callers active in the last minutes.
type rateLimiter struct {
	perMinute float64
	rate      float64
	burst     float64
	now       func() time.Time

	shared RateStore
	ns     string              // key namespace of the shared store
	digest func(string) string // of a key, before it reaches the shared store
	logger *slog.Logger
	// warned is when the last fallback warning was logged (Unix ns), so
	// that an outage logs once a minute rather than once a call.
	warned atomic.Int64

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

const maxBuckets = 10_000

// sharedLimitTimeout bounds what a slow shared store adds to a call
// before the limit falls back to this process's bucket.
const sharedLimitTimeout = 300 * time.Millisecond

// defaultBurst is the burst of a limit that states none: a tenth of the
// calls a minute, at least 1 (what docs/state-and-auth.md promises).
func defaultBurst(perMinute float64) float64 { return math.Max(1, math.Floor(perMinute/10)) }

// newRateLimiter returns nil for no limit. shared (nil: none) keeps the
// counters under ns, each under digest of its key (the server's keyed
// owner digest, which replicas sharing the state key agree on); logger
// reports falling back to local buckets.
func newRateLimiter(r *RateLimit, now func() time.Time, shared RateStore, ns string, digest func(string) string, logger *slog.Logger) *rateLimiter {
	if r == nil || r.PerMinute <= 0 {
		return nil
	}
	burst := float64(r.Burst)
	if burst <= 0 {
		burst = defaultBurst(r.PerMinute)
	}
	return &rateLimiter{perMinute: r.PerMinute, rate: r.PerMinute / 60, burst: burst, now: now,
		shared: shared, ns: ns, digest: digest, logger: logger, buckets: map[string]*bucket{}}
}

// take admits one call of key (tool and caller) or reports how long until
// one would be admitted. key is hashed before it reaches a shared store,
// which never sees who the caller is.
func (l *rateLimiter) take(ctx context.Context, key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
	if l.shared != nil {
		ctx, cancel := context.WithTimeout(ctx, sharedLimitTimeout)
		ok, wait, err := l.shared.Allow(ctx, l.ns+"rl:"+l.digest(key), l.perMinute, int(l.burst))
		cancel()
		if err == nil {
			return ok, wait
		}
		l.warnFallback(err)
	}
	return l.takeLocal(key)
}

// warnFallback logs, at most once a minute, that limits are per process
// while the shared store fails.
func (l *rateLimiter) warnFallback(err error) {
	now := time.Now().UnixNano()
	last := l.warned.Load()
	if now-last < int64(time.Minute) || !l.warned.CompareAndSwap(last, now) {
		return
	}
	if l.logger != nil {
		l.logger.Warn("rate limits fall back to this process's own buckets: the shared store does not answer, so each replica admits the full limit until it does", "error", err)
	}
}

// takeLocal spends one token of key's bucket in this process.
func (l *rateLimiter) takeLocal(key string) (bool, time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			l.sweep(now)
		}
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
	return false, wait
}

// sweep drops buckets that have refilled (their callers are idle); if
// none has, the oldest half goes.
func (l *rateLimiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate >= l.burst {
			delete(l.buckets, k)
		}
	}
	for k := range l.buckets {
		if len(l.buckets) < maxBuckets/2 {
			break
		}
		delete(l.buckets, k)
	}
}
