package runtime

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkCallTool measures the runtime's own work per call (validation,
// request building, upstream round trip over loopback, result mapping),
// without the SDK's JSON-RPC layer.
func BenchmarkCallTool(b *testing.B) {
	up := testUpstream(b)
	srv, err := NewServer(testSpec(), Options{Getenv: testEnv(up.URL)})
	if err != nil {
		b.Fatal(err)
	}
	var bt *boundTool
	for _, ts := range testSpec().Tools {
		if ts.Name == "find_pets" {
			bt, _ = srv.bindTool(ts)
		}
	}
	args := json.RawMessage(`{"status":["available","sold"],"tags":["a","b"],"filter":{"color":"red"},"trace":"t"}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, res := srv.callTool(context.Background(), bt, callIn{raw: args}, &callRecord{}); res.IsError {
			b.Fatal("isError")
		}
	}
}
