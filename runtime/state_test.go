package runtime

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// stateSpec adds a state handle type (a basket) and its tools to the test
// spec: basket_add creates and grows it, basket_get reads it, basket_order
// binds ${handle.basket.items} into an upstream call and consumes it.
func stateSpec() *ServerDef {
	spec := testSpec()
	spec.Handles = []HandleType{{Name: "basket", Prefix: "bsk_", LifetimeSeconds: 3600, State: true, Creators: []string{"basket_add"}}}
	hin := []HandleInput{{Arg: "basket", Type: "basket"}}
	spec.Tools = append(spec.Tools,
		&Tool{Name: "basket_add", Description: "Add.",
			InputSchema:  `{"type":"object","properties":{"basket":{"type":"string"},"sku":{"type":"string"},"note":{"type":"string"}},"required":["sku"]}`,
			HandleInputs: hin,
			UpdatesHandle: &HandleUpdate{Type: "basket", Arg: "basket",
				Append: []Binding{{Arg: "items", Fields: []Binding{{Arg: "sku", Expr: "${input.sku}"}, {Arg: "qty", Const: "1"}}}},
				Set:    []Binding{{Arg: "note", Expr: "${input.note}"}}}},
		&Tool{Name: "basket_get", Description: "Get.", ReadOnly: true,
			InputSchema:  `{"type":"object","properties":{"basket":{"type":"string"}},"required":["basket"]}`,
			HandleInputs: hin},
		&Tool{Name: "basket_order", Description: "Order.",
			InputSchema:    `{"type":"object","properties":{"basket":{"type":"string"}},"required":["basket"]}`,
			HandleInputs:   hin,
			ConsumesHandle: "basket",
			Steps: []Step{{ID: "order", Op: Operation{Method: "POST", Path: "/orders",
				Body: &Body{MediaType: "application/json", Required: true, Fields: []BodyField{{Name: "items", Arg: "items"}}}},
				Args: []Binding{{Arg: "items", Expr: "${handle.basket.items}"}}}}},
	)
	return spec
}

func TestStateHandles(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_000_000, 0)}
	srv, err := NewServer(stateSpec(), Options{Getenv: testEnv(testUpstream(t).URL), Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{srv: srv, cs: connect(t, srv, "")}
	decode := func(name string, args map[string]any) (map[string]any, string, bool) {
		t.Helper()
		res, text := h.call(t, name, args)
		var m map[string]any
		json.Unmarshal([]byte(text), &m)
		return m, text, res.IsError
	}
	// Create: no basket given.
	m, text, isErr := decode("basket_add", map[string]any{"sku": "A", "note": "first"})
	b, _ := m["basket"].(string)
	if isErr || !strings.HasPrefix(b, "bsk_") {
		t.Fatalf("create: %s", text)
	}
	// Append and set.
	m, text, isErr = decode("basket_add", map[string]any{"basket": b, "sku": "B", "note": "second"})
	if isErr || m["basket"] != b {
		t.Fatalf("update: %s", text)
	}
	m, text, _ = decode("basket_get", map[string]any{"basket": b})
	st, _ := m["state"].(map[string]any)
	items, _ := st["items"].([]any)
	if len(items) != 2 || st["note"] != "second" || items[1].(map[string]any)["sku"] != "B" || items[0].(map[string]any)["qty"] != float64(1) {
		t.Fatalf("state after two adds: %s", text)
	}
	// Owner check: another caller can neither read nor update it.
	other := srv.signer.owner("someone else")
	if _, cerr := srv.handles.resolve(context.Background(), HandleInput{Arg: "basket", Type: "basket"}, b, other); cerr == nil || cerr.kind != KindForbidden {
		t.Errorf("foreign resolve: %v", cerr)
	}
	if _, cerr := srv.handles.updateState(context.Background(), srv.handles.types["basket"], b, other, func(map[string]any) {}); cerr == nil {
		t.Error("foreign update allowed")
	}
	// ${handle.basket.items} reaches the upstream; the basket is consumed.
	m, text, isErr = decode("basket_order", map[string]any{"basket": b})
	if isErr || !strings.Contains(text, `\"items\":[{\"qty\":1,\"sku\":\"A\"},{\"qty\":1,\"sku\":\"B\"}]`) {
		t.Fatalf("order: %s", text)
	}
	if _, text, isErr = decode("basket_get", map[string]any{"basket": b}); !isErr || !strings.Contains(text, "unknown or has expired") {
		t.Errorf("consumed basket still readable: %s", text)
	}
	// A set binding without a value leaves the field alone.
	m, _, _ = decode("basket_add", map[string]any{"sku": "C"})
	b2 := m["basket"].(string)
	if _, ok := m["state"].(map[string]any)["note"]; ok {
		t.Errorf("unset note was set: %v", m)
	}
	// Expiry (sliding, 1 hour).
	clk.t = clk.t.Add(59 * time.Minute)
	if _, text, isErr = decode("basket_get", map[string]any{"basket": b2}); isErr {
		t.Fatalf("renew: %s", text)
	}
	clk.t = clk.t.Add(61 * time.Minute)
	if _, text, isErr = decode("basket_add", map[string]any{"basket": b2, "sku": "D"}); !isErr || !strings.Contains(text, "after 1 hour without use") {
		t.Errorf("expired basket: %s", text)
	}
	// Size bound: the state never grows past maxStateBytes.
	m, _, _ = decode("basket_add", map[string]any{"sku": "E"})
	b3 := m["basket"].(string)
	big := strings.Repeat("x", 20<<10)
	var last string
	for i := 0; i < 5; i++ {
		_, last, isErr = decode("basket_add", map[string]any{"basket": b3, "sku": big})
	}
	if !isErr || !strings.Contains(last, "would hold more than") {
		t.Errorf("unbounded state: %.200s", last)
	}
	// A tool with neither an operation nor a state handle is refused.
	if _, err := NewServer(&ServerDef{Name: "x", Tools: []*Tool{{Name: "bad", InputSchema: `{"type":"object"}`}}}, Options{Getenv: func(string) string { return "" }}); err == nil {
		t.Error("tool without operation or state accepted")
	}
}

func TestMemoryStoreDelete(t *testing.T) {
	st := NewMemoryHandleStore(0, nil)
	ctx := context.Background()
	st.Put(ctx, "k", HandleRecord{Type: "x"}, time.Minute)
	st.Delete(ctx, "k")
	st.Delete(ctx, "missing")
	if _, ok, _ := st.Get(ctx, "k"); ok {
		t.Error("deleted record still there")
	}
}

// TestStateUpdatesConcurrent: two handle managers (two servers of one
// process) sharing the memory store update one state handle at random
// while others resolve it (renewing its expiry); every update that
// returned without error is in the state exactly once.
func TestStateUpdatesConcurrent(t *testing.T) {
	seed := testseed.Seed(t)
	spec := &ServerDef{Name: "x", Handles: []HandleType{{Name: "basket", Prefix: "bsk_", LifetimeSeconds: 3600, State: true}}}
	store := NewMemoryHandleStore(0, nil)
	hms := []*handleManager{newHandleManager(spec, store, time.Now), newHandleManager(spec, store, time.Now)}
	ctx := context.Background()
	owner := (&stateSigner{key: []byte("0123456789abcdef0123456789abcdef")}).owner("u1")
	typ := hms[0].types["basket"]
	v, err := hms[0].create(ctx, typ, owner, map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := map[int]bool{}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := 0; i < 50; i++ {
				hm := hms[rng.IntN(2)]
				if rng.IntN(3) == 0 {
					hm.resolve(ctx, HandleInput{Arg: "b", Type: "basket"}, v, owner)
					continue
				}
				id := w*1000 + i
				if _, cerr := hm.updateState(ctx, typ, v, owner, func(st map[string]any) {
					arr, _ := st["items"].([]any)
					st["items"] = append(arr, id)
				}); cerr == nil {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	rec, _, _ := store.Get(ctx, hms[0].key(v))
	var st struct{ Items []int }
	json.Unmarshal(rec.Value, &st)
	seen := map[int]int{}
	for _, id := range st.Items {
		seen[id]++
	}
	lost := 0
	for id := range acked {
		if seen[id] != 1 {
			lost++
		}
	}
	if lost > 0 || len(st.Items) != len(acked) {
		t.Fatalf("seed %d: %d updates acknowledged, %d stored, %d lost", seed, len(acked), len(st.Items), lost)
	}
}
