package runtime

import (
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/handle"
)

// TestHandleExampleWellFormed: the example the generator puts in input
// schemas passes the runtime's own handle check.
func TestHandleExampleWellFormed(t *testing.T) {
	ht := &HandleType{Prefix: "ln_"}
	if ex := handle.Example(ht.Prefix); !wellFormed(ht, ex) {
		t.Errorf("handle.Example(%q) = %q is not well formed", ht.Prefix, ex)
	}
}
