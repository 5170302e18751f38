//go:build linux && e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPaymentsInspector is a stranger's trial of the payments golden
// case (testdata/payments): the generated server is built, run against a
// real upstream on 127.0.0.1 that logs every request, and every tool is
// called with the MCP Inspector CLI over stdio and Streamable HTTP. Each
// call's request must carry exactly what the caller and the override
// file gave (nested amounts built from inputs, no spec defaults, no
// unexpanded expressions) and the API key the server was given.
func TestPaymentsInspector(t *testing.T) {
	x := requireExternalTools(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	server := filepath.Join(dir, "payments")
	build := exec.CommandContext(ctx, "go", "build", "-o", server, "./testdata/payments/want/cmd/payments")
	build.Dir = x.root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the payments server: %v\n%s", err, truncate(string(out), 8000))
	}
	up := &paymentsUpstream{}
	api := httptest.NewServer(up)
	defer api.Close()
	base := api.URL + "/v71"
	t.Setenv("PAYMENTS_API_KEY_AUTH", "test-key-1234")
	mcpURL := startDaemon(t, "payments MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
		server, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", base)

	type call struct {
		tool     string
		args     []string
		wantCode int
		method   string
		path     string
		body     string // the JSON the upstream must receive; "" for none
	}
	calls := []call{
		{"pay_pay_by_card", []string{"amount_minor=1250", "currency=EUR", "order_reference=ORD-1", `card_number="4111111111111111"`, "expiry_month=03", `expiry_year="2030"`}, 0,
			"POST", "/v71/payments", `{"amount":{"currency":"EUR","value":1250},"paymentMethod":{"expiryMonth":"03","expiryYear":"2030","number":"4111111111111111","type":"scheme"},"reference":"ORD-1"}`},
		{"pay_start_payment", []string{"amount_minor=990", "currency=EUR", "order_reference=ORD-2", `paymentMethod={"type":"ideal"}`}, 0,
			"POST", "/v71/payments", `{"amount":{"currency":"EUR","value":990},"paymentMethod":{"type":"ideal"},"reference":"ORD-2"}`},
		{"pay_start_local_payment", []string{`amount={"value":100,"currency":"EUR"}`, "reference=ORD-3", `paymentMethod={"type":"paypal"}`}, 0,
			"POST", "/v71/payments", `{"amount":{"currency":"EUR","value":100},"paymentMethod":{"type":"paypal"},"reference":"ORD-3"}`},
		{"pay_start_local_payment", []string{`amount={"value":100,"currency":"EUR"}`, "reference=ORD-4", `paymentMethod={"type":"scheme"}`}, inspectorExitToolError, "", "", ""},
		{"pay_manage_payment", []string{"action=refund", "paymentId=PSP-4F7A2C9B1D", "amount_minor=500", "currency=EUR", "reference=R-1"}, 0,
			"POST", "/v71/payments/PSP-4F7A2C9B1D/refunds", `{"amount":{"currency":"EUR","value":500},"reference":"R-1"}`},
		{"pay_manage_payment", []string{"action=refund", "paymentId=PSP-4F7A2C9B1D", "amount_minor=500"}, inspectorExitToolError, "", "", ""},
		{"pay_manage_payment", []string{"action=capture", "paymentId=PSP-4F7A2C9B1D", "amount_minor=700", "currency=EUR"}, 0,
			"POST", "/v71/payments/PSP-4F7A2C9B1D/captures", `{"amount":{"currency":"EUR","value":700}}`},
		{"pay_manage_payment", []string{"action=cancel", "paymentId=PSP-4F7A2C9B1D", "reference=C-1"}, 0,
			"POST", "/v71/payments/PSP-4F7A2C9B1D/cancels", `{"reference":"C-1"}`},
		{"pay_manage_payment", []string{"action=reverse", "paymentId=PSP-4F7A2C9B1D"}, 0,
			"POST", "/v71/payments/PSP-4F7A2C9B1D/reversals", `{}`},
		{"pay_manage_payment", []string{"action=get", "paymentId=PSP-4F7A2C9B1D"}, 0,
			"GET", "/v71/payments/PSP-4F7A2C9B1D", ""},
		{"pay_list_payments", []string{"offset=10"}, 0, "GET", "/v71/payments?limit=10&offset=10", ""},
	}
	targets := map[string][]string{
		"stdio": {server, "-e", "PAYMENTS_BASE_URL=" + base, "-e", "PAYMENTS_API_KEY_AUTH=test-key-1234"},
		"http":  {mcpURL, "--transport", "http"},
	}
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			var list struct {
				Result struct {
					Tools []struct {
						Name        string `json:"name"`
						Annotations struct {
							Destructive bool `json:"destructiveHint"`
						} `json:"annotations"`
					} `json:"tools"`
				} `json:"result"`
			}
			decodeInspector(t, x.runNode(t, time.Minute, x.inspector, append(append([]string{"--cli"}, targets[transport]...), "--method", "tools/list", "--format", "json")...), 0, &list)
			for _, tool := range list.Result.Tools {
				if want := tool.Name == "pay_manage_payment"; tool.Annotations.Destructive != want {
					t.Errorf("%s: destructiveHint %v, want %v (refund, cancel and reverse are destructive)", tool.Name, tool.Annotations.Destructive, want)
				}
			}
			for _, c := range calls {
				args := append([]string{"--cli"}, targets[transport]...)
				args = append(args, "--method", "tools/call", "--tool-name", c.tool)
				for _, a := range c.args {
					args = append(args, "--tool-arg", a)
				}
				args = append(args, "--format", "json")
				before := up.count()
				var res toolResult
				decodeInspector(t, x.runNode(t, time.Minute, x.inspector, args...), c.wantCode, &res)
				got := up.since(before)
				what := fmt.Sprintf("%s %s", c.tool, strings.Join(c.args, " "))
				if c.method == "" {
					if len(got) != 0 || !res.Result.IsError {
						t.Errorf("%s: want a refusal before any request; got %d requests, %s", what, len(got), truncate(res.text(), 400))
					}
					continue
				}
				if len(got) != 1 || got[0].method != c.method || got[0].path != c.path || got[0].key != "test-key-1234" {
					t.Errorf("%s: the upstream got %+v, want one %s %s with the API key", what, got, c.method, c.path)
					continue
				}
				if c.body != "" && !sameJSONText(got[0].body, c.body) {
					t.Errorf("%s: the upstream got the body %s, want %s", what, got[0].body, c.body)
				}
			}
		})
	}
}

// paymentsUpstream answers like a small payments API and logs requests.
type paymentsUpstream struct {
	mu  sync.Mutex
	log []loggedRequest
}

type loggedRequest struct{ method, path, key, body string }

func (u *paymentsUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	u.mu.Lock()
	u.log = append(u.log, loggedRequest{r.Method, r.URL.RequestURI(), r.Header.Get("X-API-Key"), string(b)})
	u.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == "GET" && r.URL.Path == "/v71/payments":
		var items []string
		for i := 11; i <= 20; i++ {
			items = append(items, fmt.Sprintf(`{"id":"PSP-%010X","status":"authorised","amount":{"value":%d,"currency":"EUR"}}`, i, 100*i))
		}
		io.WriteString(w, `{"data":[`+strings.Join(items, ",")+`],"total":23}`)
	case r.Method == "GET":
		io.WriteString(w, `{"id":"PSP-4F7A2C9B1D","status":"authorised","amount":{"value":1250,"currency":"EUR"}}`)
	case r.URL.Path == "/v71/payments":
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"PSP-4F7A2C9B1D","status":"authorised","amount":{"value":1,"currency":"EUR"}}`)
	default:
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id":"MOD-1","status":"received"}`)
	}
}

func (u *paymentsUpstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.log)
}

func (u *paymentsUpstream) since(n int) []loggedRequest {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]loggedRequest(nil), u.log[n:]...)
}

func sameJSONText(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}
