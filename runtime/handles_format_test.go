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

func TestWithArticle(t *testing.T) {
	for in, want := range map[string]string{"appointment": "an appointment", "ticket": "a ticket", "order": "an order",
		"Item": "an Item", "user": "a user", "uuid": "a uuid", "": "a "} {
		if got := WithArticle(in); got != want {
			t.Errorf("WithArticle(%q) = %q, want %q", in, got, want)
		}
	}
}
