package aftersales

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestExtensionPoints checks the hand-written parts of extend.go over
// Streamable HTTP (the library, New) and over stdio (the generated
// command, Main): the Go tool is listed with schemas from its Go types,
// answers in structured content, maps its ToolError, and shares the
// generated tools' scopes; the middleware tidies and refuses a cancel
// reason before the upstream is called, and adds to a ticket lookup.
func TestExtensionPoints(t *testing.T) {
	be := startBackend(t)
	tokens := testTokens()
	tokens["token-none-0123456789"] = runtime.Caller{Subject: "C-1"}
	_, url := startServer(t, be.URL, Options{Auth: &runtime.AuthOptions{Tokens: tokens}, Now: newClock().Now})
	ada := connectHTTP(t, url, tokenC1, "", &elicitor{action: "accept"}, true)
	checkExtensions(t, ada, be)
	none := connectHTTP(t, url, "token-none-0123456789", "", nil, true)
	r := callTool(t, none, "aftersales_return_policy", map[string]any{"reason": "defect"})
	mustFail(t, r, "Go tool without its scope", "forbidden", "tickets:read")

	t.Run("stdio", func(t *testing.T) {
		be := startBackend(t) // the HTTP part cancelled the ticket
		bin := filepath.Join(t.TempDir(), "aftersales")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/aftersales").CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "AFTERSALES_BASE_URL="+be.URL, "AFTERSALES_STDIO_CALLER=C-1 tickets:read tickets:write")
		el := &elicitor{action: "accept"}
		client := mcp.NewClient(&mcp.Implementation{Name: "aftersales-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: el.handle})
		cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		checkExtensions(t, cs, be)
	})
}

// checkExtensions runs the extension checks on one session of C-1's.
func checkExtensions(t *testing.T, cs *mcp.ClientSession, be *countingBackend) {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var policy *mcp.Tool
	for _, tool := range list.Tools {
		if tool.Name == "aftersales_return_policy" {
			policy = tool
		}
	}
	if policy == nil {
		t.Fatal("the hand-written tool is not listed")
	}
	in, _ := json.Marshal(policy.InputSchema)
	out, _ := json.Marshal(policy.OutputSchema)
	if !strings.Contains(string(in), `"reason"`) || !strings.Contains(string(out), `"return_window_days"`) || !policy.Annotations.ReadOnlyHint {
		t.Errorf("schemas or hints not from the Go types: %s %s %+v", in, out, policy.Annotations)
	}
	r := callTool(t, cs, "aftersales_return_policy", map[string]any{"reason": "changed_mind"})
	mustOK(t, r, "Go tool")
	if r.data["return_window_days"] != float64(14) || r.data["restocking_fee_percent"] != float64(10) || r.raw.StructuredContent == nil {
		t.Errorf("Go tool result: %s", r.text)
	}
	mustFail(t, callTool(t, cs, "aftersales_return_policy", map[string]any{"reason": "bored"}), "Go tool error", "invalid_input", `reason "bored"`)
	mustFail(t, callTool(t, cs, "aftersales_return_policy", map[string]any{"reason": 3}), "Go tool schema", "invalid_input", `"reason"`)

	q := callTool(t, cs, "aftersales_query_ticket", map[string]any{"ticket_id": "T-2026-1001"})
	mustOK(t, q, "query")
	if q.str("support_contact") != "returns@shop.example" {
		t.Errorf("after-middleware did not add the support contact: %s", q.text)
	}
	before := be.calls.Load()
	r = callTool(t, cs, "aftersales_cancel_ticket", map[string]any{"ticket": q.str("ticket_handle"), "reason": "  no  "})
	mustFail(t, r, "short reason", "invalid_input", "at least 5 characters")
	if be.calls.Load() != before {
		t.Errorf("a refused call reached the upstream")
	}
	r = callTool(t, cs, "aftersales_cancel_ticket", map[string]any{"ticket": q.str("ticket_handle"), "reason": "  found   the right part  "})
	mustOK(t, r, "cancel with a tidied reason")
	if r.str("cancel_reason") != "found the right part" {
		t.Errorf("before-middleware did not tidy the reason: %s", r.text)
	}
}
