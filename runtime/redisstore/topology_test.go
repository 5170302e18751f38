package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// redisCLI runs redis-cli against addr and returns its output.
func redisCLI(t *testing.T, addr string, args ...string) string {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	out, err := exec.Command("redis-cli", append([]string{"-h", host, "-p", port}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("redis-cli %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// waitFor polls cond every 50 ms for at most d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s", what, d)
}

// startSentinels starts a master, one replica and three sentinels
// (quorum 2) watching it as "main"; it returns the master and the
// redis+sentinel:// URL.
func startSentinels(t *testing.T) (*oa2mcptest.RedisServer, string) {
	master := oa2mcptest.StartRedisServer(t)
	host, port, _ := strings.Cut(master.Addr, ":")
	replica := oa2mcptest.StartRedisServer(t, "--replicaof", host, port)
	waitFor(t, 10*time.Second, "replica in sync", func() bool {
		return strings.Contains(redisCLI(t, replica.Addr, "INFO", "replication"), "master_link_status:up")
	})
	var addrs []string
	for i := 0; i < 3; i++ {
		conf := filepath.Join(t.TempDir(), "sentinel.conf")
		text := fmt.Sprintf("sentinel monitor main %s %s 2\nsentinel down-after-milliseconds main 400\nsentinel failover-timeout main 3000\nsentinel parallel-syncs main 1\n", host, port)
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		s := oa2mcptest.StartRedisServer(t, conf, "--sentinel")
		addrs = append(addrs, s.Addr)
	}
	waitFor(t, 10*time.Second, "sentinels see each other and the replica", func() bool {
		out := redisCLI(t, addrs[0], "SENTINEL", "MASTER", "main")
		return strings.Contains(out, "num-other-sentinels\n2\n") && strings.Contains(out, "num-slaves\n1\n")
	})
	return master, "redis+sentinel://" + strings.Join(addrs, ",") + "/0?master=main"
}

// TestRedisSentinelFailover: through a redis+sentinel:// URL the store
// works, and when the master dies during a stream of updates and rate
// checks, calls fail for the failover only (with errors, never wrong
// answers) and then succeed on the promoted replica.
func TestRedisSentinelFailover(t *testing.T) {
	master, url := startSentinels(t)
	store := open(t, url)
	oa2mcptest.UpdateContract(t, store)
	ctx := context.Background()
	rec := runtime.HandleRecord{Type: "set", Owner: "o", Value: json.RawMessage(`[]`), Expires: time.Now().Add(time.Hour).UnixMilli()}
	if err := store.Put(ctx, "fo", rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	var calls, errs, acked int
	var firstErr, lastErr time.Time
	var slowest time.Duration
	killAt := time.Now().Add(time.Second)
	killed := false
	deadline := time.Now().Add(25 * time.Second)
	okAfterKill := 0
	for n := 0; time.Now().Before(deadline) && okAfterKill < 50 && n < 5000; n++ {
		if !killed && time.Now().After(killAt) {
			master.Kill()
			killed = true
		}
		began := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, _, err := store.Update(cctx, "fo", func(cur runtime.HandleRecord) (runtime.HandleRecord, time.Duration, error) {
			var ids []int
			json.Unmarshal(cur.Value, &ids)
			cur.Value, _ = json.Marshal(append(ids, n))
			return cur, time.Hour, nil
		})
		if err == nil {
			_, _, err = store.(runtime.RateStore).Allow(cctx, "fo-rl", 6000, 100)
		}
		cancel()
		slowest = max(slowest, time.Since(began))
		calls++
		switch {
		case err != nil:
			errs++
			if firstErr.IsZero() {
				firstErr = time.Now()
			}
			lastErr = time.Now()
			time.Sleep(20 * time.Millisecond)
		case killed:
			acked++
			okAfterKill++
		default:
			acked++
			time.Sleep(5 * time.Millisecond)
		}
	}
	got, ok, err := store.Get(ctx, "fo")
	var ids []int
	json.Unmarshal(got.Value, &ids)
	t.Logf("sentinel failover: %d calls, %d errors over %s, slowest call %s, %d acknowledged, %d kept after the failover", calls, errs, lastErr.Sub(firstErr).Round(time.Millisecond), slowest.Round(time.Millisecond), acked, len(ids))
	if !killed || okAfterKill < 50 {
		t.Fatalf("store did not recover after the master was killed: %d calls, %d errors, %d succeeded after", calls, errs, okAfterKill)
	}
	if err != nil || !ok {
		t.Fatalf("record after failover: %v %v", ok, err)
	}
	// Replication is asynchronous: at most the writes of the last moment
	// before the crash may be missing, never more than a handful.
	if len(ids) < acked-5 || len(ids) > acked {
		t.Errorf("after failover the record holds %d updates of %d acknowledged", len(ids), acked)
	}
}

// TestRedisCluster: a three-master Redis Cluster through a
// redis+cluster:// URL passes the store contract, the concurrency check
// from three clients, and rate limits on keys spread over the slots.
func TestRedisCluster(t *testing.T) {
	var addrs []string
	for i := 0; i < 3; i++ {
		addrs = append(addrs, oa2mcptest.StartRedisServer(t, "--cluster-enabled", "yes", "--cluster-node-timeout", "2000").Addr)
	}
	redisCLI(t, addrs[0], append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...)
	waitFor(t, 15*time.Second, "cluster state ok", func() bool {
		for _, a := range addrs {
			if !strings.Contains(redisCLI(t, a, "CLUSTER", "INFO"), "cluster_state:ok") {
				return false
			}
		}
		return true
	})
	url := "redis+cluster://" + strings.Join(addrs, ",")
	store := open(t, url)
	oa2mcptest.HandleStoreContract(t, store)
	oa2mcptest.UpdateContract(t, store)
	oa2mcptest.HandleStoreConcurrency(t, oa2mcptest.Seed(t), store, open(t, url), open(t, url))
	ctx := context.Background()
	nodes := map[string]bool{}
	for i := 0; i < 30; i++ {
		key := fmt.Sprintf("oa2mcp:x:rl:%d", i)
		for j := 0; j < 3; j++ {
			ok, _, err := store.(runtime.RateStore).Allow(ctx, key, 60, 2)
			if err != nil {
				t.Fatal(err)
			}
			if want := j < 2; ok != want {
				t.Errorf("%s call %d: admitted %v, want %v", key, j, ok, want)
			}
		}
		nodes[redisCLI(t, addrs[0], "CLUSTER", "KEYSLOT", key)] = true
	}
	if len(nodes) < 3 {
		t.Errorf("test keys fell in only %d slots", len(nodes))
	}
}
