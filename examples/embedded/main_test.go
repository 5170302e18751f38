package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/examples/petstore/backend"
)

// countingHandler counts the requests an http.Handler serves.
type countingHandler struct {
	h http.Handler
	n atomic.Int64
}

func (c *countingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// TestToolCallInProcess proves a tools/call over Streamable HTTP reaches
// the API mounted in the same binary through Options.Upstream: the API
// handler sees the request although the tools' base URL names a host that
// does not exist.
func TestToolCallInProcess(t *testing.T) {
	api := &countingHandler{h: backend.NewHandler()}
	mux, err := newMux(api, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mux)
	defer hs.Close()

	// The REST API is served on the same mux.
	resp, err := http.Get(hs.URL + backend.BasePath + "/pet/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /pet/1: %s", resp.Status)
	}
	restCalls := api.n.Load()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "embedded-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	name, arg := petLookupTool(t, ctx, cs)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{arg: 1}})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res)
	if res.IsError {
		t.Fatalf("%s: isError: %s", name, text)
	}
	if !strings.Contains(text, "doggie") && !strings.Contains(text, `"id":1`) {
		t.Errorf("%s: unexpected result %s", name, text)
	}
	if api.n.Load() <= restCalls {
		t.Error("the tool call did not reach the in-process API handler")
	}
}

// petLookupTool finds the tool that reads one pet by id, whatever the
// override file named it, and its id argument.
func petLookupTool(t *testing.T, ctx context.Context, cs *mcp.ClientSession) (string, string) {
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if !strings.HasSuffix(tool.Name, "get_pet") && !strings.HasSuffix(tool.Name, "get_pet_by_id") {
			continue
		}
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		json.Unmarshal(raw, &schema)
		for _, arg := range []string{"pet_id", "petId"} {
			if _, ok := schema.Properties[arg]; ok {
				return tool.Name, arg
			}
		}
	}
	t.Fatalf("no pet lookup tool among %d tools", len(list.Tools))
	return "", ""
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
