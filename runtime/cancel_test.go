package runtime

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowUpstream answers /slow only when its request is cancelled, and
// reports when that happened; /fast answers at once.
type slowUpstream struct {
	*httptest.Server
	cancelled chan time.Time
}

func newSlowUpstream(t *testing.T) *slowUpstream {
	u := &slowUpstream{cancelled: make(chan time.Time, 4)}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/fast" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"ok":true}`))
			return
		}
		select {
		case <-r.Context().Done():
			u.cancelled <- time.Now()
		case <-time.After(20 * time.Second):
		}
	}))
	t.Cleanup(u.Close)
	return u
}

func slowSpec() *ServerDef {
	get := func(p string) Operation { return Operation{Method: "GET", Path: p} }
	return &ServerDef{Name: "slow", Tools: []*Tool{
		{Name: "slow", InputSchema: `{"type":"object"}`, Op: &Operation{Method: "GET", Path: "/slow"}},
		{Name: "two_steps", InputSchema: `{"type":"object"}`, Steps: []Step{
			{ID: "a", Op: get("/fast")}, {ID: "b", Op: get("/fast"), After: []string{"a"}},
			{ID: "c", Op: get("/fast"), After: []string{"b"}}}},
	}}
}

// TestCancellationReachesUpstream: a call the client cancels stops its
// upstream request within a second, over stdio (notifications/cancelled)
// and Streamable HTTP (the request closed).
func TestCancellationReachesUpstream(t *testing.T) {
	for _, tr := range transports {
		if tr.name == "inmemory" {
			continue
		}
		t.Run(tr.name, func(t *testing.T) {
			up := newSlowUpstream(t)
			srv, err := NewServer(slowSpec(), Options{BaseURL: up.URL, Timeout: 15 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			cs, closeFn := tr.connect(t, srv)
			defer closeFn()
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
			}()
			time.Sleep(300 * time.Millisecond)
			start := time.Now()
			cancel()
			select {
			case at := <-up.cancelled:
				if d := at.Sub(start); d > time.Second {
					t.Errorf("upstream request cancelled after %v, want within 1s", d)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("the upstream request kept running after the client cancelled the call")
			}
			wg.Wait()
		})
	}
}

// TestProgressOfSteps: a multi-step call sends one progress notification
// per step to a client that asked for them.
func TestProgressOfSteps(t *testing.T) {
	up := newSlowUpstream(t)
	srv, err := NewServer(slowSpec(), Options{BaseURL: up.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var mu sync.Mutex
	var got []float64
	client := mcp.NewClient(&mcp.Implementation{Name: "p", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			got = append(got, r.Params.Progress)
			mu.Unlock()
		}})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "two_steps", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("progress notifications %v, want 1, 2, 3", got)
	}
}
