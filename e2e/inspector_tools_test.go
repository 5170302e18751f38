//go:build linux && e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inspectorCall is one tools/call the Inspector makes: the arguments
// ("key=value", values JSON where they parse) and what must come back.
type inspectorCall struct {
	tool string
	args []string
	// wantError: the call must end in isError containing wantText;
	// otherwise it must succeed (the TypeScript client accepted the
	// result, structuredContent checked against the outputSchema).
	wantError bool
	wantText  string
}

// TestInspectorEveryTool calls every tool of both examples with the MCP
// Inspector CLI (the official TypeScript client, which checks
// structuredContent against the outputSchema and refuses a tool with an
// output schema that returns none), once on a success path and once on an
// error path, over Streamable HTTP in the 2026-07-28 era, against the
// bundled backends. It reports how many calls the strict client accepted.
func TestInspectorEveryTool(t *testing.T) {
	x := requireExternalTools(t)
	bins := buildPetstore(t, x.root)
	petURL := startMCPServer(t, bins, startBackend(t, bins))
	tokens := filepath.Join(t.TempDir(), "tokens")
	must(t, os.WriteFile(tokens, []byte("inspector-token-0123456789 C-1 tickets:read tickets:write\n"), 0o600))
	asURL := startAftersales(t, x.root, "--auth-tokens-file", tokens)

	run := func(t *testing.T, url, header string, calls []inspectorCall) (accepted int) {
		for _, c := range calls {
			args := []string{"--cli", url, "--transport", "http", "--protocol-era", "modern", "--format", "json",
				"--method", "tools/call", "--tool-name", c.tool}
			if header != "" {
				args = append(args, "--header", header)
			}
			for _, a := range c.args {
				args = append(args, "--tool-arg", a)
			}
			res := x.runNode(t, time.Minute, x.inspector, args...)
			want := 0
			if c.wantError {
				want = inspectorExitToolError
			}
			var out toolResult
			decodeInspector(t, res, want, &out)
			switch {
			case out.Result.IsError != c.wantError:
				t.Errorf("%s %v: isError=%v, want %v: %s", c.tool, c.args, out.Result.IsError, c.wantError, truncate(out.text(), 600))
			case !strings.Contains(out.text(), c.wantText):
				t.Errorf("%s %v: text lacks %q: %s", c.tool, c.args, c.wantText, truncate(out.text(), 600))
			case c.wantError && len(out.Result.StructuredContent) > 0:
				t.Errorf("%s %v: an error result carries structuredContent", c.tool, c.args)
			default:
				accepted++
			}
		}
		return accepted
	}

	t.Run("petstore", func(t *testing.T) {
		calls := []inspectorCall{
			{tool: "petstore_count_stock", wantText: "available"},
			{tool: "petstore_count_stock", args: []string{"extra=1"}, wantError: true, wantText: "extra"},
			{tool: "petstore_find_pets", args: []string{"action=by_status", "status=available"}, wantText: "totalCount"},
			{tool: "petstore_find_pets", args: []string{"action=by_status", `tags=["a"]`}, wantError: true, wantText: `"tags" is for action by_tags`},
			{tool: "petstore_get_pet", args: []string{"pet_id=1"}, wantText: `"id":1`},
			{tool: "petstore_get_pet", args: []string{"pet_id=999999"}, wantError: true, wantText: "404"},
			{tool: "petstore_manage_pet", args: []string{"action=add", "name=Rex", `photoUrls=["https://example.com/rex.jpg"]`}, wantText: `"name":"Rex"`},
			{tool: "petstore_manage_pet", args: []string{"action=delete", "petId=999999"}, wantError: true, wantText: "404"},
			{tool: "petstore_manage_order", args: []string{"action=get", "orderId=1"}, wantText: `"id":1`},
			{tool: "petstore_manage_order", args: []string{"action=get"}, wantError: true, wantText: "orderId"},
			{tool: "petstore_manage_user", args: []string{"action=get", "username=user1"}, wantText: "user1"},
			{tool: "petstore_manage_user", args: []string{"action=get", "username=nobody-here"}, wantError: true, wantText: "404"},
			{tool: "petstore_manage_session", args: []string{"action=login", "username=user1", "password=password1"}, wantText: "session"},
			{tool: "petstore_manage_session", args: []string{"action=fly"}, wantError: true, wantText: "action"},
		}
		n := run(t, petURL, "", calls)
		t.Logf("petstore: the strict TypeScript client accepted %d of %d calls (%d tools)", n, len(calls), len(calls)/2)
	})
	t.Run("aftersales", func(t *testing.T) {
		h := "Authorization: Bearer inspector-token-0123456789"
		calls := []inspectorCall{
			{tool: "aftersales_query_ticket", args: []string{"ticket_id=T-2026-1001"}, wantText: "ticket_handle"},
			{tool: "aftersales_query_ticket", args: []string{"ticket_id=T-2026-1002"}, wantError: true, wantText: "not_found"},
			{tool: "aftersales_estimate_refund", args: []string{"order_id=O-100001", "reason=changed_mind"}, wantText: "restocking_fee"},
			{tool: "aftersales_estimate_refund", args: []string{"order_id=O-1", "reason=defect"}, wantError: true, wantText: "order_id"},
			{tool: "aftersales_create_ticket", args: []string{"order_id=O-100002", "reason=defect", "refund_method=store_credit"}, wantText: "ticket_handle"},
			{tool: "aftersales_create_ticket", args: []string{"order_id=O-100002", "reason=defect"}, wantError: true, wantText: "refund_method"},
			{tool: "aftersales_list_tickets", args: []string{"status=repair"}, wantText: "T-2026-1001"},
			{tool: "aftersales_list_tickets", args: []string{"status=lost"}, wantError: true, wantText: "status"},
			{tool: "aftersales_return_policy", args: []string{"reason=defect"}, wantText: "return_window_days"},
			{tool: "aftersales_return_policy", args: []string{"reason=bored"}, wantError: true, wantText: "bored"},
			{tool: "aftersales_add_return_item", args: []string{"order_id=O-100001", "sku=KB-200", "quantity=1"}, wantText: "basket_id"},
			{tool: "aftersales_add_return_item", args: []string{"order_id=O-100001", "sku=KB-200", "quantity=0"}, wantError: true, wantText: "quantity"},
			// The cancel success path needs the user's confirmation, which the
			// Inspector CLI cannot give (no elicitation): the refusal is the
			// path it can take; the go-sdk tests cover the confirmed cancel.
			{tool: "aftersales_cancel_ticket", args: []string{"ticket=tkt_" + strings.Repeat("a", 32), "reason=found the part"}, wantError: true, wantText: "unknown or has expired"},
		}
		// Handles live in the server: take them from the calls that return
		// them, as a model would.
		basket := handleFrom(t, x, asURL, h, "aftersales_add_return_item", "basket_id", "order_id=O-100001", "sku=KB-200", "quantity=1")
		ticket := handleFrom(t, x, asURL, h, "aftersales_query_ticket", "ticket_handle", "ticket_id=T-2026-1001")
		calls = append(calls,
			inspectorCall{tool: "aftersales_get_return_basket", args: []string{"basket_id=" + basket}, wantText: "KB-200"},
			inspectorCall{tool: "aftersales_get_return_basket", args: []string{"basket_id=rb_" + strings.Repeat("a", 32)}, wantError: true, wantText: "unknown or has expired"},
			inspectorCall{tool: "aftersales_close_return_basket", args: []string{"basket_id=" + basket}, wantText: "KB-200"},
			inspectorCall{tool: "aftersales_close_return_basket", args: []string{"basket_id=" + basket}, wantError: true, wantText: "unknown or has expired"},
			inspectorCall{tool: "aftersales_cancel_ticket", args: []string{"ticket=" + ticket, "reason=found the part"}, wantError: true, wantText: "confirmation"},
		)
		n := run(t, asURL, h, calls)
		t.Logf("aftersales: the strict TypeScript client accepted %d of %d calls (9 tools)", n, len(calls))
	})
}

// handleFrom calls a tool with the Inspector and returns the handle in
// field of its structured result.
func handleFrom(t *testing.T, x *externalTools, url, header, tool, field string, args ...string) string {
	t.Helper()
	all := []string{"--cli", url, "--transport", "http", "--protocol-era", "modern", "--format", "json",
		"--method", "tools/call", "--tool-name", tool, "--header", header}
	for _, a := range args {
		all = append(all, "--tool-arg", a)
	}
	var out toolResult
	decodeInspector(t, x.runNode(t, time.Minute, x.inspector, all...), 0, &out)
	var m map[string]any
	if err := json.Unmarshal(out.Result.StructuredContent, &m); err != nil {
		t.Fatalf("%s: %v: %s", tool, err, out.text())
	}
	h, _ := m[field].(string)
	if h == "" {
		t.Fatalf("%s returned no %s: %s", tool, field, out.text())
	}
	return h
}
