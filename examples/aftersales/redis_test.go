package aftersales

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestRedisTwoReplicas: two server replicas on different ports share one
// redis-server: a handle made on one works on the other, a requestState
// issued by one is accepted once by the other, and expiry holds on both.
func TestRedisTwoReplicas(t *testing.T) {
	redisURL := oa2mcptest.StartRedis(t)
	be := startBackend(t)
	clock := newClock()
	opts := Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: clock.Now, HandleStoreURL: redisURL}
	_, urlA := startServer(t, be.URL, opts)
	_, urlB := startServer(t, be.URL, opts)
	if urlA == urlB {
		t.Fatal("replicas share a port")
	}
	el := &elicitor{action: "accept", content: map[string]any{"refund_method": "store_credit"}}
	a := connectHTTP(t, urlA, tokenC1, "2026-07-28", el, true)
	b := connectHTTP(t, urlB, tokenC1, "2026-07-28", el, true)
	benB := connectHTTP(t, urlB, tokenC2, "2026-07-28", el, true)

	created := callTool(t, a, "aftersales_create_ticket", map[string]any{"order_id": "O-100002", "reason": "defect"})
	mustOK(t, created, "create on A")
	h := created.str("ticket_handle")
	mustFail(t, callTool(t, benB, "aftersales_cancel_ticket", map[string]any{"ticket": h, "reason": "plans changed"}), "foreign on B", "was not issued to you")
	q := callTool(t, b, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"})
	mustOK(t, q, "query on B")
	hq := q.str("ticket_handle")

	// A requestState from A, answered on B, once.
	raw := connectHTTP(t, urlA, tokenC1, "2026-07-28", &elicitor{}, false)
	rawB := connectHTTP(t, urlB, tokenC1, "2026-07-28", &elicitor{}, false)
	args := map[string]any{"ticket": h, "reason": "Changed plans."}
	first := callTool(t, raw, "aftersales_cancel_ticket", args).raw
	if !first.NeedsInput() {
		t.Fatalf("want input_required from A: %+v", first)
	}
	ans := map[string]any{"oa2mcp_input": map[string]any{"action": "accept", "content": map[string]any{}}}
	ansJSON, _ := json.Marshal(ans)
	res := callRaw(t, rawB, "aftersales_cancel_ticket", args, first.RequestState, ansJSON)
	mustOK(t, res, "cancel on B with A's state")
	if res.str("status") != "cancelled" {
		t.Errorf("cancel on B: %s", res.text)
	}
	mustReject(t, callRaw(t, raw, "aftersales_cancel_ticket", args, first.RequestState, ansJSON), "replay on A", "already used")

	// Expiry across replicas: hq is renewed on A at 23h, then expires on
	// B after 24h without use.
	clock.Advance(23 * time.Hour)
	el.action = "decline"
	mustFail(t, callTool(t, a, "aftersales_cancel_ticket", map[string]any{"ticket": hq, "reason": "plans changed"}), "renew on A", "declined")
	clock.Advance(23 * time.Hour)
	mustFail(t, callTool(t, b, "aftersales_cancel_ticket", map[string]any{"ticket": hq, "reason": "plans changed"}), "renewed on B", "declined")
	clock.Advance(25 * time.Hour)
	r := callTool(t, a, "aftersales_cancel_ticket", map[string]any{"ticket": hq, "reason": "plans changed"})
	mustFail(t, r, "expired on A", "unknown or has expired")
	if strings.Contains(r.text, "T-2026") {
		t.Errorf("expired-handle error reveals the ticket: %s", r.text)
	}
}

// TestRedisReturnBasket: a state handle's state is stored with its record
// in Redis, so a basket started on one replica grows on another and is
// consumed for both.
func TestRedisReturnBasket(t *testing.T) {
	redisURL := oa2mcptest.StartRedis(t)
	be := startBackend(t)
	opts := Options{Auth: &runtime.AuthOptions{Tokens: testTokens()}, Now: newClock().Now, HandleStoreURL: redisURL}
	_, urlA := startServer(t, be.URL, opts)
	_, urlB := startServer(t, be.URL, opts)
	el := &elicitor{action: "accept"}
	a := connectHTTP(t, urlA, tokenC1, "2026-07-28", el, true)
	b := connectHTTP(t, urlB, tokenC1, "2026-07-28", el, true)
	benB := connectHTTP(t, urlB, tokenC2, "2026-07-28", el, true)

	r := callTool(t, a, "aftersales_add_return_item", map[string]any{"order_id": "O-100001", "sku": "SKU-1", "quantity": 1})
	mustOK(t, r, "create on A")
	basket := r.str("basket_id")
	mustOK(t, callTool(t, b, "aftersales_add_return_item", map[string]any{"basket_id": basket, "order_id": "O-100002", "sku": "SKU-2", "quantity": 3}), "add on B")
	mustFail(t, callTool(t, benB, "aftersales_get_return_basket", map[string]any{"basket_id": basket}), "foreign on B", "was not issued to you")
	r = callTool(t, a, "aftersales_get_return_basket", map[string]any{"basket_id": basket})
	mustOK(t, r, "read on A")
	if !strings.Contains(r.text, `"SKU-2"`) || !strings.Contains(r.text, `"SKU-1"`) {
		t.Errorf("basket on A: %s", r.text)
	}
	mustOK(t, callTool(t, b, "aftersales_close_return_basket", map[string]any{"basket_id": basket}), "close on B")
	mustFail(t, callTool(t, a, "aftersales_get_return_basket", map[string]any{"basket_id": basket}), "consumed on A", "unknown or has expired")
}
