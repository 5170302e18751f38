package runtime

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"
)

// httpStep is one POST to /: a body and the headers beyond the usual.
type httpStep struct {
	body   string
	header map[string]string
}

// postScript posts the steps to srv's HTTP handler and returns each
// answer as status, headers (but Date and Content-Length) and body,
// random ids normalised.
func postScript(t *testing.T, srv *Server, steps []httpStep) []string {
	t.Helper()
	hs := httptest.NewServer(srv.HTTPHandler())
	defer hs.Close()
	var out []string
	for _, st := range steps {
		req, err := http.NewRequest("POST", hs.URL, strings.NewReader(st.body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range map[string]string{"Accept": "application/json, text/event-stream", "Content-Type": "application/json"} {
			req.Header.Set(k, v)
		}
		for k, v := range st.header {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var hdr []string
		for k, v := range resp.Header {
			if k != "Date" && k != "Content-Length" {
				hdr = append(hdr, k+": "+strings.Join(v, ", "))
			}
		}
		sort.Strings(hdr)
		out = append(out, normalizeRandom(resp.Status+"\n"+strings.Join(hdr, "\n")+"\n"+string(b)))
	}
	return out
}

// httpScript exercises what the HTTP fast path serves and leaves to the
// SDK: both protocol eras, header mismatches, errors of every kind.
func httpScript() []httpStep {
	modern := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
	with := func(h map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	call := func(id, name, args string, h map[string]string) httpStep {
		return httpStep{body: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + modernMeta + `,"name":"` + name + `","arguments":` + args + `}}`,
			header: with(h, "Mcp-Name", name)}
	}
	legacy := func(id, name, args string) httpStep {
		return httpStep{body: `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`,
			header: map[string]string{"Mcp-Protocol-Version": "2025-11-25"}}
	}
	return []httpStep{
		call("1", "get_pet", `{"petId":"7"}`, modern), // teaches the shape
		call("2", "get_pet", `{"petId":"8"}`, modern),
		call(`"s3"`, "get_pet", `{"petId":""}`, modern), // invalid: isError
		call("4", "get_pet", `[1]`, modern),
		call("5", "find_pets", `{"status":["sold"],"tags":["a<b&c"],"trace":"t"}`, modern),
		call("6", "find_pets", `{"status":["sold"]}`, modern),
		call("7", "fetch", `{"which":"list"}`, modern),
		call("8", "fetch", `{"which":"list"}`, modern),
		call("9", "fetch", `{"which":"empty"}`, modern),
		call("10", "fail", `{"code":"404"}`, modern),
		call("11", "fail", `{"code":"404"}`, modern),
		call("12", "boom", `{}`, with(modern, "X-Request-Id", "req-12")),
		call("13", "boom", `{}`, with(modern, "X-Request-Id", "req-13")),
		call("14", "no_such_tool", `{}`, modern),
		call("15", "get_pet", `{"petId":"7"}`, with(modern, "Traceparent", "00-"+testTraceID+"-b7ad6b7169203331-01")),
		{body: call("16", "get_pet", `{"petId":"7"}`, nil).body, header: with(modern, "Mcp-Name", "fetch")}, // header mismatch
		{body: call("17", "get_pet", `{"petId":"7"}`, nil).body, header: with(modern, "Mcp-Name", "get_pet", "Accept", "application/json")},
		{body: call("18", "get_pet", `{"petId":"7"}`, nil).body, header: with(modern, "Mcp-Name", "get_pet", "Mcp-Protocol-Version", "")},
		legacy("19", "get_pet", `{"petId":"7"}`),
		legacy("20", "get_pet", `{"petId":"9"}`),
		legacy("21", "fetch", `{"which":"list"}`),
		{body: `{"jsonrpc":"2.0","id":22,"method":"tools/list","params":{` + modernMeta + `}}`, header: with(modern, "Mcp-Method", "tools/list")},
		// a header parameter is checked against its argument by the SDK,
		// which a shape cannot see: such tools stay with the SDK
		call("23", "regional", `{"region":"eu"}`, with(modern, "Mcp-Param-Region", "eu")),
		call("24", "regional", `{"region":"us"}`, with(modern, "Mcp-Param-Region", "eu")),
	}
}

// TestHTTPFastPathMatchesSDK posts the same script through the fast path
// and through the SDK alone: every answer must be the same (random ids
// aside), and the fast path must have served what it may.
func TestHTTPFastPathMatchesSDK(t *testing.T) {
	up := testUpstream(t).URL
	sdk := postScript(t, fastTestServer(t, up, false), httpScript())
	fast := fastTestServer(t, up, true)
	got := postScript(t, fast, httpScript())
	for i := range sdk {
		if got[i] != sdk[i] {
			t.Errorf("answer %d differs:\nfast:\n%s\nsdk:\n%s", i, clipText(got[i]), clipText(sdk[i]))
		}
	}
	if n := fast.fastCalls.Load(); n != fastServed(9) {
		t.Errorf("fast path served %d calls, want %d", n, fastServed(9))
	}
}
