package oa2mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// ConcurrencyCase is one run of HandleStoreConcurrency: Workers
// goroutines, spread over the stores (one per replica), each doing Ops
// random operations chosen by Seed.
type ConcurrencyCase struct {
	Seed    uint64
	Workers int
	Ops     int
}

// errRefused is what an update that refuses to write returns.
var errRefused = errors.New("refused on purpose")

// HandleStoreConcurrency runs random interleavings of updates (appending
// a unique number to one record), refused updates, reads and expiry
// renewals against one key from several stores (each a replica's client
// of one shared store, or the same store several times) and checks that
// every acknowledged update is kept, nothing refused or never attempted
// appears, and every read sees at least the updates acknowledged before
// it started. On failure it shrinks the case and prints the smallest one
// that still fails, with its seed.
func HandleStoreConcurrency(t *testing.T, seed uint64, stores ...runtime.HandleStore) {
	t.Helper()
	c := ConcurrencyCase{Seed: seed, Workers: 8, Ops: 40}
	msg := runConcurrency(c, stores)
	if msg == "" {
		return
	}
	// Shrink: halve the operations, then the workers, keeping the seed, as
	// long as the smaller case still fails (interleavings vary, so each
	// try runs three times).
	small, smallMsg := c, msg
	for _, next := range []func(ConcurrencyCase) ConcurrencyCase{
		func(c ConcurrencyCase) ConcurrencyCase { c.Ops /= 2; return c },
		func(c ConcurrencyCase) ConcurrencyCase { c.Workers /= 2; return c },
	} {
		for i := 0; i < 4; i++ {
			try := next(small)
			if try.Ops < 1 || try.Workers < 2 {
				break
			}
			m := ""
			for r := 0; r < 3 && m == ""; r++ {
				m = runConcurrency(try, stores)
			}
			if m == "" {
				break
			}
			small, smallMsg = try, m
		}
	}
	t.Fatalf("store lost or invented updates: %s\nseed %d (%+v); smallest failing case %+v: %s", msg, seed, c, small, smallMsg)
}

// runConcurrency runs one case; "" when every invariant held.
func runConcurrency(c ConcurrencyCase, stores []runtime.HandleStore) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := fmt.Sprintf("oa2mcptest:conc:%d:%d", c.Seed, time.Now().UnixNano())
	rec := runtime.HandleRecord{Type: "set", Owner: "o", Value: json.RawMessage(`[]`), Expires: time.Now().Add(time.Hour).UnixMilli()}
	if err := stores[0].Put(ctx, key, rec, time.Minute); err != nil {
		return "Put: " + err.Error()
	}
	defer stores[0].Delete(ctx, key)
	var (
		mu       sync.Mutex
		acked    []int // in acknowledgement order
		refused  = map[int]bool{}
		failures []string
	)
	fail := func(f string, a ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(f, a...))
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for w := 0; w < c.Workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(c.Seed, uint64(w)))
			store := stores[w%len(stores)]
			for i := 0; i < c.Ops; i++ {
				id := w*100_000 + i
				switch op := rng.IntN(10); {
				case op < 5: // update
					refuse := rng.IntN(8) == 0
					_, ok, err := store.Update(ctx, key, func(cur runtime.HandleRecord) (runtime.HandleRecord, time.Duration, error) {
						if refuse {
							return cur, 0, errRefused
						}
						var ids []int
						json.Unmarshal(cur.Value, &ids)
						cur.Value, _ = json.Marshal(append(ids, id))
						return cur, time.Minute, nil
					})
					switch {
					case refuse && errors.Is(err, errRefused):
						mu.Lock()
						refused[id] = true
						mu.Unlock()
					case err != nil || !ok:
						fail("update %d: found %v, error %v", id, ok, err)
					default:
						mu.Lock()
						acked = append(acked, id)
						mu.Unlock()
					}
				case op < 8: // read
					mu.Lock()
					before := slices.Clone(acked)
					mu.Unlock()
					got, ok, err := store.Get(ctx, key)
					if err != nil || !ok {
						fail("read: found %v, error %v", ok, err)
						continue
					}
					var ids []int
					json.Unmarshal(got.Value, &ids)
					for _, a := range before {
						if !slices.Contains(ids, a) {
							fail("read after update %d was acknowledged does not hold it", a)
						}
					}
				default: // renewal of the expiry
					exp := time.Now().Add(time.Duration(30+rng.IntN(30)) * time.Minute).UnixMilli()
					if ok, err := store.Renew(ctx, key, exp, time.Minute); err != nil || !ok {
						fail("renew: found %v, error %v", ok, err)
					}
				}
			}
		}(w)
	}
	wg.Wait()
	final, ok, err := stores[0].Get(ctx, key)
	if err != nil || !ok {
		return fmt.Sprintf("final read: found %v, error %v", ok, err)
	}
	var ids []int
	json.Unmarshal(final.Value, &ids)
	kept := map[int]int{}
	for _, id := range ids {
		kept[id]++
	}
	lost := 0
	for _, a := range acked {
		if kept[a] != 1 {
			lost++
		}
	}
	if lost > 0 {
		failures = append(failures, fmt.Sprintf("%d of %d acknowledged updates not kept exactly once", lost, len(acked)))
	}
	if len(ids) != len(acked) {
		failures = append(failures, fmt.Sprintf("record holds %d entries, %d were acknowledged", len(ids), len(acked)))
	}
	for id := range refused {
		if kept[id] > 0 {
			failures = append(failures, fmt.Sprintf("refused update %d was written", id))
		}
	}
	if final.Type != rec.Type || final.Owner != rec.Owner {
		failures = append(failures, fmt.Sprintf("record's type/owner changed: %+v", final))
	}
	if len(failures) > 3 {
		failures = append(failures[:3], fmt.Sprintf("and %d more", len(failures)-3))
	}
	return strings.Join(failures, "; ")
}

// Seed is the seed of a test's random inputs: $OA2MCP_SEED when set (to
// replay a failure), else a new one, logged so that a failure can be
// replayed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	return testseed.Seed(t)
}
