package oa2mcptest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
)

// HandleStoreContract checks that store honours the runtime.HandleStore
// contract: records round-trip, Put replaces, Delete removes, Once is
// true only the first time, and records vanish after their time to live
// (the test waits for real time, so the store's own clock applies).
// Every implementation's tests call it: the memory store's and
// redisstore's.
func HandleStoreContract(t *testing.T, store runtime.HandleStore) {
	t.Helper()
	ctx := context.Background()
	rec := runtime.HandleRecord{Type: "ticket", Owner: "o1", Value: json.RawMessage(`"T-1"`), Expires: 42}
	if err := store.Put(ctx, "k1", rec, time.Minute); err != nil {
		t.Fatalf("Put: %v", err)
	}
	got, ok, err := store.Get(ctx, "k1")
	if err != nil || !ok || got.Type != rec.Type || got.Owner != rec.Owner || string(got.Value) != string(rec.Value) || got.Expires != rec.Expires {
		t.Fatalf("Get after Put = %+v, %v, %v; want %+v", got, ok, err, rec)
	}
	rec.Owner = "o2"
	if err := store.Put(ctx, "k1", rec, time.Minute); err != nil {
		t.Fatalf("Put again: %v", err)
	}
	if got, _, _ := store.Get(ctx, "k1"); got.Owner != "o2" {
		t.Errorf("Put did not replace the record: owner %q", got.Owner)
	}
	if _, ok, err := store.Get(ctx, "missing"); ok || err != nil {
		t.Errorf("Get of an unknown key = %v, %v", ok, err)
	}
	if err := store.Delete(ctx, "k1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, ok, _ := store.Get(ctx, "k1"); ok {
		t.Error("record still there after Delete")
	}
	first, err := store.Once(ctx, "once", time.Minute)
	second, err2 := store.Once(ctx, "once", time.Minute)
	if err != nil || err2 != nil || !first || second {
		t.Errorf("Once = %v, %v (errors %v, %v); want true, then false", first, second, err, err2)
	}
	if err := store.Put(ctx, "short", rec, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if ok, _ := store.Once(ctx, "short-once", 50*time.Millisecond); !ok {
		t.Fatal("Once on a new key = false")
	}
	time.Sleep(120 * time.Millisecond)
	if _, ok, _ := store.Get(ctx, "short"); ok {
		t.Error("record still there after its time to live")
	}
	if ok, _ := store.Once(ctx, "short-once", time.Minute); !ok {
		t.Error("Once still refuses a key whose time to live has passed")
	}
}
