package aftersales

import (
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestWrongCustomer tries every tool that touches a customer's data as
// the wrong customer: C-2 (Ben) against C-1's (Ada's) tickets, orders,
// handles and basket, over Streamable HTTP with verified tokens. The
// customer comes from the caller's token only; the backend serves C-2
// nothing of C-1's, and handles work only for their creator. Each check
// looks at the text as well, so no data of C-1's leaks into an error.
func TestWrongCustomer(t *testing.T) {
	be := startBackend(t)
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: newClock().Now})
	ada := connectHTTP(t, url, tokenC1, "", &elicitor{action: "accept", content: map[string]any{"refund_method": "store_credit"}}, true)
	ben := connectHTTP(t, url, tokenC2, "", &elicitor{action: "accept", content: map[string]any{"refund_method": "store_credit"}}, true)
	leaks := []string{"Ada", "KB-200", "O-100001\",", "repair"}
	noLeak := func(r result, what string) {
		t.Helper()
		for _, l := range leaks {
			if strings.Contains(r.text, l) && !strings.Contains(r.text, "O-100001 does not exist") {
				t.Errorf("%s: the answer to the wrong customer shows %q: %s", what, l, r.text)
			}
		}
	}

	// Ada's own calls work, and give her handles.
	q := callTool(t, ada, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"})
	mustOK(t, q, "Ada queries her ticket")
	adaTicket := q.str("ticket_handle")
	basket := callTool(t, ada, "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": "KB-200", "quantity": 1})
	mustOK(t, basket, "Ada starts a basket")
	adaBasket := basket.str("basket_id")

	// Ben is refused everything of Ada's.
	r := callTool(t, ben, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"})
	mustFail(t, r, "Ben queries Ada's ticket", "not_found")
	noLeak(r, "query")
	r = callTool(t, ben, "aftersales_cancel_ticket", map[string]any{"ticket": adaTicket, "reason": "not mine"})
	mustFail(t, r, "Ben cancels with Ada's handle", "forbidden", "not issued to you")
	r = callTool(t, ben, "aftersales_estimate_refund", map[string]any{"order_id": "O-100001", "reason": "defect"})
	mustFail(t, r, "Ben estimates Ada's order", "not_found")
	noLeak(r, "estimate")
	r = callTool(t, ben, "aftersales_create_ticket", map[string]any{"order_id": "O-100002", "reason": "defect", "refund_method": "store_credit"})
	mustFail(t, r, "Ben opens a ticket on Ada's order", "not_found")
	noLeak(r, "create")
	list := callTool(t, ben, "aftersales_list_tickets", map[string]any{})
	mustOK(t, list, "Ben lists tickets")
	if strings.Contains(list.text, "T-2026-1001") || strings.Contains(list.text, "C-1") || !strings.Contains(list.text, "T-2026-1002") {
		t.Errorf("Ben's list is not Ben's own tickets: %s", list.text)
	}
	for _, tool := range []string{"aftersales_get_return_basket", "aftersales_close_return_basket"} {
		r = callTool(t, ben, tool, map[string]any{"basket_id": adaBasket})
		mustFail(t, r, "Ben uses Ada's basket with "+tool, "forbidden")
		noLeak(r, tool)
	}
	r = callTool(t, ben, "aftersales_add_return_item", map[string]any{"basket_id": adaBasket, "order_id": "O-100003", "sku": "KB-200", "quantity": 1})
	mustFail(t, r, "Ben adds to Ada's basket", "forbidden")

	// Nothing of Ada's changed: her ticket is still open, her basket holds
	// her one item.
	q = callTool(t, ada, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"})
	if q.str("status") != "repair" {
		t.Errorf("Ada's ticket changed: %s", q.text)
	}
	got := callTool(t, ada, "aftersales_get_return_basket", map[string]any{"basket_id": adaBasket})
	if n := strings.Count(got.text, "\"sku\""); n != 1 {
		t.Errorf("Ada's basket holds %d items, want 1: %s", n, got.text)
	}
}
