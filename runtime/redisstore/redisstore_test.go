package redisstore_test

import (
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
	"github.com/oa2mcp/oa2mcp/runtime/redisstore"
)

func open(t *testing.T, url string) runtime.HandleStore {
	t.Helper()
	store, err := redisstore.Open(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

func TestRedisStoreContract(t *testing.T) {
	url := oa2mcptest.StartRedis(t)
	oa2mcptest.HandleStoreContract(t, open(t, url))
	oa2mcptest.UpdateContract(t, open(t, url))
}

// TestRedisStoreConcurrency: three clients of one redis-server (three
// replicas) updating, reading and renewing one record at random never
// lose an acknowledged update.
func TestRedisStoreConcurrency(t *testing.T) {
	url := oa2mcptest.StartRedis(t)
	oa2mcptest.HandleStoreConcurrency(t, oa2mcptest.Seed(t), open(t, url), open(t, url), open(t, url))
}

func TestOpenUnreachable(t *testing.T) {
	if _, err := redisstore.Open("redis://127.0.0.1:1/0"); err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
}
