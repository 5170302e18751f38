package runtime

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProgressStreams: only a POST that asks for progress (and accepts an
// event stream) is served by the streaming handler, and the body reaches
// the handler whole either way.
func TestProgressStreams(t *testing.T) {
	served := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			w.Write([]byte(name + ":" + string(b)))
		})
	}
	p := progressStreams{json: served("json"), stream: served("stream")}
	const both = "application/json, text/event-stream"
	for _, tc := range []struct{ accept, body, want string }{
		{both, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"p1"}}}`, "stream"},
		{both, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":7}}}`, "stream"},
		{both, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}`, "json"},
		{both, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"progressToken":"x"}}}`, "json"},
		{both, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":null}}}`, "json"},
		{both, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}]`, "json"},
		{"application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}`, "json"},
		{both, `not json "progressToken"`, "json"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tc.body))
		req.Header.Set("Accept", tc.accept)
		p.ServeHTTP(rec, req)
		if got := rec.Body.String(); got != tc.want+":"+tc.body {
			t.Errorf("Accept %q body %s: served %q, want %s with the whole body", tc.accept, tc.body, got, tc.want)
		}
	}
}
