package redisstore_test

import (
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
	"github.com/oa2mcp/oa2mcp/runtime/redisstore"
)

func TestRedisStoreContract(t *testing.T) {
	store, err := redisstore.Open(oa2mcptest.StartRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	oa2mcptest.HandleStoreContract(t, store)
}

func TestOpenUnreachable(t *testing.T) {
	if _, err := redisstore.Open("redis://127.0.0.1:1/0"); err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
}
