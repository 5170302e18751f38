package runtime_test

import (
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

func TestMemoryHandleStoreContract(t *testing.T) {
	oa2mcptest.HandleStoreContract(t, runtime.NewMemoryHandleStore(0, nil))
}
