package aftersales

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// The example's limit: 120 calls a minute per caller and tool, burst 20.
const (
	examplePerMinute = 120
	exampleBurst     = 20
)

// TestRedisRateLimitAcrossReplicas: one caller spreads calls of one tool
// over three replica processes sharing one redis-server for 3 seconds.
// The calls let through stay within the declared limit (burst + rate x
// elapsed; GCRA on Redis's clock adds no error), and the refusals are
// rate_limited with a wait.
func TestRedisRateLimitAcrossReplicas(t *testing.T) {
	be := startBackend(t)
	token := "token-limit-0123456789"
	rs := newReplicaSet(t, 3, oa2mcptest.StartRedis(t), be.URL, map[string]string{token: "C-1"})
	rs.startAll()
	var sessions []*mcp.ClientSession
	for i := 0; i < 6; i++ {
		sessions = append(sessions, connectHTTP(t, rs.url(i%3), token, "2026-07-28", nil, true))
	}
	var admitted, refused, other atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(3 * time.Second)
	for _, cs := range sessions {
		wg.Add(1)
		go func(cs *mcp.ClientSession) {
			defer wg.Done()
			for n := 0; n < 2000 && time.Now().Before(deadline); n++ {
				r := call(cs, "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": "SKU-1", "quantity": 1})
				switch {
				case !r.isError:
					admitted.Add(1)
				case strings.Contains(r.text, "Too many calls"):
					refused.Add(1)
				default:
					other.Add(1)
				}
			}
		}(cs)
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	limit := exampleBurst + examplePerMinute/60.0*elapsed
	t.Logf("three replicas, %.1fs: %d let through (declared limit %.1f), %d refused, %d other errors", elapsed, admitted.Load(), limit, refused.Load(), other.Load())
	if float64(admitted.Load()) > limit {
		t.Errorf("%d calls let through across three replicas; the declared limit allows %.1f", admitted.Load(), limit)
	}
	if admitted.Load() < exampleBurst || refused.Load() == 0 || other.Load() != 0 {
		t.Errorf("want the burst admitted, then refusals only: %d admitted, %d refused, %d other", admitted.Load(), refused.Load(), other.Load())
	}
}

// TestRateLimitFallsBackWhenRedisIsDown: with the shared store gone the
// limit still holds in each process (local bucket), and the server logs
// that it fell back.
func TestRateLimitFallsBackWhenRedisIsDown(t *testing.T) {
	redis := oa2mcptest.StartRedisServer(t)
	be := startBackend(t)
	var logs syncBuffer
	// A stopped clock: the local bucket does not refill while calls wait
	// for the dead store.
	opts := Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, HandleStoreURL: redis.URL, Now: newClock().Now,
		Logger: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	_, url := startServer(t, be.URL, opts)
	cs := connectHTTP(t, url, tokenC1, "2026-07-28", nil, true)
	redis.Kill()
	// Five at a time: every call waits for the dead store.
	var limited, succeeded atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 5)
	for i := 0; i < exampleBurst+5; i++ {
		sem <- struct{}{}
		wg.Add(1)
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			r := call(cs, "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": fmt.Sprint("SKU-", i), "quantity": 1})
			if !r.isError {
				succeeded.Add(1)
			}
			if strings.Contains(r.text, "Too many calls") {
				limited.Add(1)
			}
		}(i)
	}
	wg.Wait()
	if succeeded.Load() != 0 {
		t.Errorf("%d calls succeeded with the handle store down", succeeded.Load())
	}
	if limited.Load() != 5 {
		t.Errorf("%d of %d calls rate limited with Redis down; want the 5 past the burst of %d", limited.Load(), exampleBurst+5, exampleBurst)
	}
	if n := strings.Count(logs.String(), "rate limits fall back"); n != 1 {
		t.Errorf("fallback warning logged %d times; want once:\n%s", n, logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
