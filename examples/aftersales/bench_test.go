package aftersales

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/oa2mcp/oa2mcp/examples/aftersales/backend"
)

// BenchmarkHandle measures what handle resolution adds to a call (type,
// owner and expiry check plus the sliding renewal) with the in-memory
// and the Redis store, next to a whole tool call without handles
// (validation, upstream round trip to the in-process backend, shaping).
func BenchmarkHandle(b *testing.B) {
	ctx := context.Background()
	owner := ownerDigest("C-1")
	resolve := func(b *testing.B, storeURL string) {
		srv, err := New(Options{BaseURL: "http://127.0.0.1:1/api", HandleStoreURL: storeURL, Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		bt, err := srv.bindTool(toolAftersalesCancelTicket)
		if err != nil {
			b.Fatal(err)
		}
		h, err := srv.handles.create(ctx, srv.handles.types["ticket"], owner, "T-2026-1001")
		if err != nil {
			b.Fatal(err)
		}
		args := map[string]any{"ticket": h, "reason": "x"}
		b.ReportAllocs()
		for b.Loop() {
			if _, cerr := srv.resolveHandles(ctx, bt, args, owner); cerr != nil {
				b.Fatal(cerr.msg)
			}
		}
	}
	b.Run("resolve-memory", func(b *testing.B) { resolve(b, "memory") })
	b.Run("resolve-redis", func(b *testing.B) { resolve(b, startRedis(b)) })
	b.Run("call-without-handle", func(b *testing.B) {
		srv, err := New(Options{BaseURL: "http://backend/api", Upstream: backend.NewHandler(), Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		srv.rate = nil // measure the call, not the limiter's refusals
		bt, err := srv.bindTool(toolAftersalesEstimateRefund)
		if err != nil {
			b.Fatal(err)
		}
		raw := json.RawMessage(`{"order_id":"O-100001","reason":"defect"}`)
		b.ReportAllocs()
		for b.Loop() {
			if _, res := srv.callTool(ctx, bt, nil, raw, nil, &callRecord{}); res.IsError {
				b.Fatal("isError")
			}
		}
	})
}
