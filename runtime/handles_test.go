package runtime_test

import (
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

func TestMemoryHandleStoreContract(t *testing.T) {
	oa2mcptest.HandleStoreContract(t, runtime.NewMemoryHandleStore(0, nil))
	oa2mcptest.UpdateContract(t, runtime.NewMemoryHandleStore(0, nil))
}

// TestMemoryHandleStoreConcurrency: concurrent updates, reads and
// renewals of one record in one process never lose an acknowledged
// update.
func TestMemoryHandleStoreConcurrency(t *testing.T) {
	store := runtime.NewMemoryHandleStore(0, nil)
	oa2mcptest.HandleStoreConcurrency(t, oa2mcptest.Seed(t), store, store)
}
