package runtime

import "testing"

// TestHandleExampleWellFormed: the example the generator puts in input
// schemas passes the runtime's own handle check.
func TestHandleExampleWellFormed(t *testing.T) {
	ht := &HandleType{Prefix: "ln_"}
	if ex := HandleExample(ht.Prefix); !wellFormed(ht, ex) {
		t.Errorf("HandleExample(%q) = %q is not well formed", ht.Prefix, ex)
	}
}
