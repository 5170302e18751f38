package aftersales

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// call is tryCall with the protocol error folded into the result.
func call(cs *mcp.ClientSession, name string, args map[string]any) result {
	r, _ := tryCall(cs, name, args)
	return r
}

// TestRedisContention: two replica processes share one redis-server; four
// callers each fill one return basket with concurrent add_return_item
// calls (8 in flight per basket), interleaved at random with reads of the
// basket (which renew its expiry), each call sent to a replica chosen at
// random. Every add answered as added must be in the basket exactly once,
// and nothing else.
func TestRedisContention(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	be := startBackend(t)
	callers := map[string]string{}
	for i := 1; i <= 4; i++ {
		callers[fmt.Sprintf("token-contention-%02d-0123456789", i)] = fmt.Sprintf("C-%d", i)
	}
	rs := newReplicaSet(t, 2, oa2mcptest.StartRedis(t), be.URL, callers)
	rs.startAll()
	var attempted, acked, kept atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	c := 0
	for token := range callers {
		c++
		sessions := []*mcp.ClientSession{connectHTTP(t, rs.url(0), token, "2026-07-28", nil, true), connectHTTP(t, rs.url(1), token, "2026-07-28", nil, true)}
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			first := call(sessions[0], "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": "SKU-0", "quantity": 1})
			basket := first.str("basket_id")
			if first.isError || basket == "" {
				mu.Lock()
				failures = append(failures, "create basket: "+first.text)
				mu.Unlock()
				return
			}
			ok := map[string]bool{"SKU-0": true}
			var okMu sync.Mutex
			sem := make(chan struct{}, 8)
			var inner sync.WaitGroup
			for i := 1; i <= 18; i++ {
				sku := fmt.Sprintf("SKU-%d", i)
				cs := sessions[rng.IntN(2)]
				read := rng.IntN(3) == 0
				sem <- struct{}{}
				inner.Add(1)
				go func() {
					defer func() { <-sem; inner.Done() }()
					if read {
						call(cs, "aftersales_get_return_basket", map[string]any{"basket_id": basket})
					}
					attempted.Add(1)
					r := call(cs, "aftersales_add_return_item", map[string]any{"basket_id": basket, "order_id": "O-100001", "sku": sku, "quantity": 1})
					if !r.isError {
						acked.Add(1)
						okMu.Lock()
						ok[sku] = true
						okMu.Unlock()
					}
				}()
			}
			inner.Wait()
			r := call(sessions[rng.IntN(2)], "aftersales_get_return_basket", map[string]any{"basket_id": basket})
			var got struct {
				State struct {
					Items []struct {
						SKU string `json:"sku"`
					} `json:"items"`
				} `json:"state"`
			}
			json.Unmarshal([]byte(r.text), &got)
			seen := map[string]int{}
			for _, it := range got.State.Items {
				seen[it.SKU]++
			}
			kept.Add(int64(len(got.State.Items) - 1))
			mu.Lock()
			defer mu.Unlock()
			for sku := range ok {
				if seen[sku] != 1 {
					failures = append(failures, fmt.Sprintf("%s: %s answered as added, in the basket %d times", basket, sku, seen[sku]))
				}
			}
			for sku := range seen {
				if !ok[sku] {
					failures = append(failures, fmt.Sprintf("%s: %s in the basket but never answered as added", basket, sku))
				}
			}
		}(c)
	}
	wg.Wait()
	t.Logf("updates attempted %d, answered as added %d, kept %d", attempted.Load(), acked.Load(), kept.Load())
	if acked.Load() == 0 {
		t.Fatal("no update was answered as added")
	}
	if len(failures) > 0 {
		if len(failures) > 10 {
			failures = append(failures[:10], fmt.Sprintf("and %d more", len(failures)-10))
		}
		t.Fatalf("seed %d: lost or invented updates:\n%s", seed, strings.Join(failures, "\n"))
	}
}
