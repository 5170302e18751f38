package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestRedisRateLimitBursts: random bursts of calls for one key from three
// clients (three replicas) against a random limit. Admitted calls never
// exceed burst + rate x elapsed (GCRA on Redis's clock has no further
// error), and a quiet key admits its whole burst at once.
func TestRedisRateLimitBursts(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	url := oa2mcptest.StartRedis(t)
	var limiters []runtime.RateStore
	for i := 0; i < 3; i++ {
		limiters = append(limiters, open(t, url).(runtime.RateStore))
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	ctx := context.Background()
	for round := 0; round < 6; round++ {
		perMinute := float64(60 + rng.IntN(1200))
		burst := 1 + rng.IntN(30)
		workers := 2 + rng.IntN(10)
		calls := 10 + rng.IntN(30)
		key := fmt.Sprintf("rl:%d:%d", seed, round)
		var admitted atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				l := limiters[w%len(limiters)]
				rng := rand.New(rand.NewPCG(seed, uint64(round*100+w+1)))
				for i := 0; i < calls; i++ {
					ok, wait, err := l.Allow(ctx, key, perMinute, burst)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						admitted.Add(1)
					} else if wait <= 0 || wait > time.Minute*time.Duration(burst) {
						t.Errorf("refused with wait %s", wait)
					}
					time.Sleep(time.Duration(rng.IntN(15)) * time.Millisecond)
				}
			}(w)
		}
		wg.Wait()
		elapsed := time.Since(start).Seconds()
		limit := float64(burst) + perMinute/60*elapsed
		total := workers * calls
		t.Logf("round %d: %d calls, %d admitted, limit %.1f (per_minute %.0f, burst %d, %.2fs)", round, total, admitted.Load(), limit, perMinute, burst, elapsed)
		if float64(admitted.Load()) > limit {
			t.Errorf("seed %d round %d: %d admitted > burst %d + %.0f/min x %.2fs = %.1f", seed, round, admitted.Load(), burst, perMinute, elapsed, limit)
		}
		if admitted.Load() < int64(min(burst, total)) {
			t.Errorf("seed %d round %d: only %d admitted of a quiet key's burst %d", seed, round, admitted.Load(), burst)
		}
	}
}
