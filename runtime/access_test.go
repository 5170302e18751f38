package runtime

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"
)

type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func TestMemoryStoreBoundedAndExpiring(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	st := NewMemoryHandleStore(3, clk.now)
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c", "d"} {
		st.Put(ctx, k, HandleRecord{Type: k}, time.Minute)
	}
	if _, ok, _ := st.Get(ctx, "a"); ok {
		t.Error("least recently written record not evicted at the bound")
	}
	if r, ok, _ := st.Get(ctx, "d"); !ok || r.Type != "d" {
		t.Error("newest record missing")
	}
	clk.t = clk.t.Add(time.Minute)
	if _, ok, _ := st.Get(ctx, "d"); ok {
		t.Error("expired record returned")
	}
	if fresh, _ := st.Once(ctx, "n", time.Minute); !fresh {
		t.Error("first Once not fresh")
	}
	if fresh, _ := st.Once(ctx, "n", time.Minute); fresh {
		t.Error("second Once fresh")
	}
}

func TestHandleLifecycleFixedAndSliding(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	spec := &ServerDef{Name: "x", Handles: []HandleType{
		{Name: "cart", Prefix: "crt_", LifetimeSeconds: 3600, Creators: []string{"x_new_cart"}},
		{Name: "doc", Prefix: "doc_", LifetimeSeconds: 3600, Fixed: true, Creators: []string{"x_new_doc"}},
	}}
	hm := newHandleManager(spec, NewMemoryHandleStore(0, clk.now), clk.now)
	ctx := context.Background()
	signer := &stateSigner{key: []byte("0123456789abcdef0123456789abcdef"), now: clk.now}
	owner, other := signer.owner("u1"), signer.owner("u2")
	cart, _ := hm.create(ctx, hm.types["cart"], owner, 42)
	doc, _ := hm.create(ctx, hm.types["doc"], owner, "D-1")
	if !strings.HasPrefix(cart, "crt_") || len(cart) != 4+handleRandLen {
		t.Fatalf("handle %q", cart)
	}
	if v, cerr := hm.resolve(ctx, HandleInput{Arg: "cart", Type: "cart"}, cart, owner); cerr != nil || v.(interface{ String() string }).String() != "42" {
		t.Fatalf("resolve: %v %v", v, cerr)
	}
	// Wrong type: a doc handle where a cart is wanted.
	if _, cerr := hm.resolve(ctx, HandleInput{Arg: "cart", Type: "cart"}, doc, owner); cerr == nil || !strings.Contains(cerr.msg, "not a cart handle") {
		t.Errorf("wrong type: %v", cerr)
	}
	if _, cerr := hm.resolve(ctx, HandleInput{Arg: "cart", Type: "cart"}, cart, other); cerr == nil || cerr.kind != KindForbidden {
		t.Errorf("foreign: %v", cerr)
	}
	clk.t = clk.t.Add(50 * time.Minute)
	hm.resolve(ctx, HandleInput{Arg: "cart", Type: "cart"}, cart, owner) // renews the sliding one
	hm.resolve(ctx, HandleInput{Arg: "doc", Type: "doc"}, doc, owner)    // fixed: no renewal
	clk.t = clk.t.Add(20 * time.Minute)
	if _, cerr := hm.resolve(ctx, HandleInput{Arg: "cart", Type: "cart"}, cart, owner); cerr != nil {
		t.Errorf("sliding handle expired despite use: %v", cerr.msg)
	}
	_, cerr := hm.resolve(ctx, HandleInput{Arg: "doc", Type: "doc"}, doc, owner)
	if cerr == nil || !strings.Contains(cerr.msg, "x_new_doc") || !strings.Contains(cerr.msg, "1 hour after it is created") {
		t.Errorf("fixed handle: %v", cerr)
	}
	for _, bad := range []any{nil, 12, "crt_", "crt_" + strings.Repeat("A", handleRandLen), "crt_" + strings.Repeat("a", handleRandLen+1)} {
		if _, cerr := hm.resolve(ctx, HandleInput{Arg: "cart", Type: "cart"}, bad, owner); cerr == nil || cerr.kind != KindInvalidInput {
			t.Errorf("malformed %v: %v", bad, cerr)
		}
	}
}

func TestRateLimiterBucket(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	l := newRateLimiter(&RateLimit{PerMinute: 60, Burst: 2}, clk.now, nil, "", nil, nil)
	for i := 0; i < 2; i++ {
		if ok, _ := l.take(context.Background(), "a"); !ok {
			t.Fatal("burst refused")
		}
	}
	ok, wait := l.take(context.Background(), "a")
	if ok || wait != time.Second {
		t.Fatalf("over budget: %v %v", ok, wait)
	}
	if ok, _ := l.take(context.Background(), "b"); !ok {
		t.Error("other caller limited")
	}
	clk.t = clk.t.Add(time.Second)
	if ok, _ := l.take(context.Background(), "a"); !ok {
		t.Error("no refill")
	}
	var nilLimiter *rateLimiter
	if ok, _ := nilLimiter.take(context.Background(), "x"); !ok {
		t.Error("nil limiter refuses")
	}
}

func TestStateSigner(t *testing.T) {
	s := &stateSigner{key: []byte(strings.Repeat("k", 32)), now: time.Now}
	tok := s.sign(requestStateV1{Tool: "t", Args: "a", Caller: "c", Exp: 1, Nonce: "n"})
	if st, err := s.verify(tok); err != nil || st.Tool != "t" {
		t.Fatalf("verify: %+v %v", st, err)
	}
	other := &stateSigner{key: []byte(strings.Repeat("o", 32))}
	for _, bad := range []string{tok + "x", tok[:len(tok)-1], strings.Replace(tok, "v1.", "v2.", 1), "", "v1..", "v1.e30." + strings.Split(tok, ".")[2]} {
		if _, err := s.verify(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if _, err := other.verify(tok); err == nil {
		t.Error("accepted a state signed with another key")
	}
	if _, _, err := newStateKey("short"); err == nil {
		t.Error("short key accepted")
	}
}

// TestOwnerDigestKeyed: the owner digest depends on the server key, so
// whoever reads the handle store cannot confirm a guessed subject; one
// key gives one digest per subject (replicas sharing it agree).
func TestOwnerDigestKeyed(t *testing.T) {
	a := &stateSigner{key: []byte("0123456789abcdef0123456789abcdef")}
	b := &stateSigner{key: []byte("fedcba9876543210fedcba9876543210")}
	unkeyed := sha256.Sum256([]byte("oa2mcp-owner\x00" + "u1"))
	switch {
	case a.owner("u1") != a.owner("u1"):
		t.Error("one key, one subject: two digests")
	case a.owner("u1") == b.owner("u1"):
		t.Error("two keys give the same digest: it is not keyed")
	case a.owner("u1") == a.owner("u2"):
		t.Error("two subjects, one digest")
	case a.owner("u1") == hex.EncodeToString(unkeyed[:16]):
		t.Error("the digest is the unkeyed hash of the subject")
	}
}
