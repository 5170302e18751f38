package oa2mcptest

import (
	"context"
	"encoding/json"
	"errors"
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

// UpdateContract checks Update and Renew of a store: Update of an unknown
// key runs nothing, an error from the function writes nothing, Renew
// moves only the expiry and leaves an unknown key unknown.
func UpdateContract(t *testing.T, store runtime.HandleStore) {
	t.Helper()
	ctx := context.Background()
	fn := func(cur runtime.HandleRecord) (runtime.HandleRecord, time.Duration, error) {
		cur.Value = json.RawMessage(`"changed"`)
		return cur, time.Minute, nil
	}
	if _, ok, err := store.Update(ctx, "u-missing", fn); ok || err != nil {
		t.Errorf("Update of an unknown key = %v, %v; want false, nil", ok, err)
	}
	if _, ok, _ := store.Get(ctx, "u-missing"); ok {
		t.Error("Update of an unknown key created it")
	}
	rec := runtime.HandleRecord{Type: "basket", Owner: "o1", Value: json.RawMessage(`{"a":[1]}`), Expires: 1000}
	if err := store.Put(ctx, "u1", rec, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Update(ctx, "u1", func(cur runtime.HandleRecord) (runtime.HandleRecord, time.Duration, error) {
		cur.Value = json.RawMessage(`"lost"`)
		return cur, time.Minute, errRefused
	}); !errors.Is(err, errRefused) {
		t.Errorf("Update's error = %v; want the function's own", err)
	}
	if got, _, _ := store.Get(ctx, "u1"); string(got.Value) != `{"a":[1]}` {
		t.Errorf("a refused Update wrote %s", got.Value)
	}
	got, ok, err := store.Update(ctx, "u1", fn)
	if err != nil || !ok || string(got.Value) != `"changed"` {
		t.Errorf("Update = %+v, %v, %v", got, ok, err)
	}
	if ok, err := store.Renew(ctx, "u1", 5000, time.Minute); !ok || err != nil {
		t.Errorf("Renew = %v, %v", ok, err)
	}
	got, _, _ = store.Get(ctx, "u1")
	if got.Expires != 5000 || string(got.Value) != `"changed"` || got.Owner != "o1" || got.Type != "basket" {
		t.Errorf("after Renew: %+v; want the record with only the expiry moved", got)
	}
	if ok, err := store.Renew(ctx, "u-missing", 5000, time.Minute); ok || err != nil {
		t.Errorf("Renew of an unknown key = %v, %v", ok, err)
	}
	if _, ok, _ := store.Get(ctx, "u-missing"); ok {
		t.Error("Renew of an unknown key created it")
	}
	if err := store.Put(ctx, "u-short", rec, 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	store.Renew(ctx, "u-short", 9000, 400*time.Millisecond)
	time.Sleep(120 * time.Millisecond)
	if _, ok, _ := store.Get(ctx, "u-short"); !ok {
		t.Error("Renew did not extend the time to live")
	}
}
