package prommetrics_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/prommetrics"
)

// TestMetrics calls a tool once successfully and once against an
// upstream failing with 500 (retried twice), then reads /metrics.
func TestMetrics(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/fail") {
			w.WriteHeader(http.StatusInternalServerError)
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	defer up.Close()
	def := &runtime.ServerDef{Name: "shop", Tools: []*runtime.Tool{
		{Name: "get_item", InputSchema: `{"type":"object"}`, Op: &runtime.Operation{Method: "GET", Path: "/item"}},
		{Name: "fail", InputSchema: `{"type":"object"}`, Op: &runtime.Operation{Method: "GET", Path: "/fail"}},
	}, RetryBaseMillis: 1}
	m := prommetrics.New(def)
	srv, err := runtime.NewServer(def, runtime.Options{BaseURL: up.URL, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.MCPServer().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, name := range []string{"get_item", "fail"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err != nil {
			t.Fatal(err)
		}
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, w := range []string{
		`mcp_tool_calls_total{kind="",outcome="ok",server="shop",tool="get_item"} 1`,
		`mcp_tool_calls_total{kind="upstream_error",outcome="error",server="shop",tool="fail"} 1`,
		`mcp_upstream_responses_total{server="shop",status="500",tool="fail"} 3`,
		`mcp_upstream_retries_total{server="shop",tool="fail"} 2`,
		`mcp_tool_call_duration_seconds_bucket`,
		`mcp_tool_calls_in_flight{server="shop",tool="get_item"} 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}
