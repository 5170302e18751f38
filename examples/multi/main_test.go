package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	asbackend "github.com/oa2mcp/oa2mcp/examples/aftersales/backend"
	petbackend "github.com/oa2mcp/oa2mcp/examples/petstore/backend"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// countingStore is the shared handle store, counting writes per server
// namespace.
type countingStore struct {
	runtime.HandleStore
	mu   sync.Mutex
	puts map[string]int
}

func (c *countingStore) Put(ctx context.Context, key string, rec runtime.HandleRecord, ttl time.Duration) error {
	c.mu.Lock()
	c.puts[strings.SplitN(key, ":", 3)[1]]++
	c.mu.Unlock()
	return c.HandleStore.Put(ctx, key, rec, ttl)
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestTwoServersOneBinary: both servers answer on one mux with one token
// (one auth configuration), call their APIs through one client, and keep
// their handles in the one store.
func TestTwoServersOneBinary(t *testing.T) {
	pet := httptest.NewServer(petbackend.NewHandler())
	defer pet.Close()
	as := httptest.NewServer(asbackend.NewHandler())
	defer as.Close()
	store := &countingStore{HandleStore: runtime.NewMemoryHandleStore(0, nil), puts: map[string]int{}}
	client := newSharedClient()
	auth := &runtime.AuthOptions{Tokens: map[string]runtime.Caller{"shared-token-0123456789": {Subject: "C-1", Scopes: []string{"tickets:read", "tickets:write"}}}}
	mux, drain, err := newMux(shared{store: store, client: client, auth: auth}, urls{petstore: pet.URL + petbackend.BasePath, aftersales: as.URL + asbackend.BasePath})
	if err != nil {
		t.Fatal(err)
	}
	defer drain()
	hs := httptest.NewServer(mux)
	defer hs.Close()
	call := func(path, tool string, args map[string]any) map[string]any {
		t.Helper()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "multi-test", Version: "1"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL + path, HTTPClient: &http.Client{Transport: bearer{"shared-token-0123456789"}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s %s: %v %v", path, tool, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		json.Unmarshal(b, &out)
		return out
	}
	if got := call("/petstore/mcp", "petstore_get_pet", map[string]any{"pet_id": 1}); got["pet"] == nil {
		t.Errorf("petstore: %v", got)
	}
	if got := call("/aftersales/mcp", "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"}); got["ticket_handle"] == nil {
		t.Errorf("aftersales: %v", got)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.puts["aftersales"] == 0 {
		t.Errorf("the after-sales handle did not land in the shared store: %v", store.puts)
	}
	// Unauthenticated calls are refused by both: one auth configuration.
	for _, path := range []string{"/petstore/mcp", "/aftersales/mcp"} {
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without a token: %d, want 401", path, resp.StatusCode)
		}
	}
}
