//go:build oa2mcp_prometheus

package rt

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestPrometheusMetrics(t *testing.T) {
	fu := newFaultUpstream(t)
	srv := newFaultServer(t, fu, nil)
	defer srv.Close()
	cs := connect(t, srv, "")
	cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_item", Arguments: map[string]any{"itemId": "1"}})
	cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fault", Arguments: map[string]any{"name": "500"}})
	h := srv.metrics.handler()
	if h == nil {
		t.Fatal("no metrics handler")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, w := range []string{
		`mcp_tool_calls_total{kind="",outcome="ok",server="faults",tool="get_item"} 1`,
		`mcp_tool_calls_total{kind="upstream_error",outcome="error",server="faults",tool="fault"} 1`,
		`mcp_upstream_responses_total{server="faults",status="500",tool="fault"} 3`,
		`mcp_upstream_retries_total{server="faults",tool="fault"} 2`,
		`mcp_tool_call_duration_seconds_bucket`,
		`mcp_tool_calls_in_flight{server="faults",tool="get_item"} 0`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}
