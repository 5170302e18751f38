package textkit

import "testing"

func TestWithArticle(t *testing.T) {
	for in, want := range map[string]string{"appointment": "an appointment", "ticket": "a ticket", "order": "an order",
		"Item": "an Item", "user": "a user", "uuid": "a uuid", "": "a "} {
		if got := WithArticle(in); got != want {
			t.Errorf("WithArticle(%q) = %q, want %q", in, got, want)
		}
	}
}
