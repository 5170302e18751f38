package runtime

import (
	"math"
	"sync"
	"time"
)

// rateLimiter is a token bucket per caller key: rate tokens per second,
// at most burst stored. Idle full buckets are forgotten, so memory stays
// bounded by the callers active in the last minutes.
type rateLimiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

const maxBuckets = 10_000

func newRateLimiter(r *RateLimit, now func() time.Time) *rateLimiter {
	if r == nil || r.PerMinute <= 0 {
		return nil
	}
	burst := float64(r.Burst)
	if burst <= 0 {
		burst = math.Max(1, math.Floor(r.PerMinute/6))
	}
	return &rateLimiter{rate: r.PerMinute / 60, burst: burst, now: now, buckets: map[string]*bucket{}}
}

// take spends one token of key's bucket; when empty it reports how long
// until one is available.
func (l *rateLimiter) take(key string) (bool, time.Duration) {
	if l == nil {
		return true, 0
	}
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
