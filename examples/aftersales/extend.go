package aftersales

// This file is written by hand, next to the generated code of the same
// package, and oa2mcp never touches it. The override file names extend
// (server.extend), so the generated New and Main pass every Options
// through it: whatever it adds shares the generated server's
// authentication, scopes, rate limits, logging, metrics and error
// mapping.

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// extend adds a hand-written tool (the return policy, which no API
// serves) and one middleware around the generated tools.
func extend(opts Options) Options {
	opts.Tools = append(opts.Tools, returnPolicyTool)
	opts.Middleware = append(opts.Middleware, cancelReasonRule, supportContact)
	return opts
}

// PolicyInput is the input of aftersales_return_policy.
type PolicyInput struct {
	Reason string `json:"reason" jsonschema:"why the order would go back: defect, wrong_item, not_as_described or changed_mind"`
}

// PolicyOutput is what aftersales_return_policy returns.
type PolicyOutput struct {
	Reason               string   `json:"reason"`
	ReturnWindowDays     int      `json:"return_window_days"`
	RestockingFeePercent int      `json:"restocking_fee_percent"`
	RefundMethods        []string `json:"refund_methods"`
	FinalSaleReturnable  bool     `json:"final_sale_returnable"`
}

// returnPolicyTool answers from Go code what the shop's rules are.
var returnPolicyTool = mustTool(runtime.NewTool(runtime.Tool{
	Name:  "aftersales_return_policy",
	Title: "Return rules for a reason",
	Description: "Say what the shop's return rules are for one return reason: how many days the customer " +
		"has, the restocking fee, which refund methods are offered and whether final-sale items can go back. " +
		"Use it when the user asks \"can I still return this\" or \"is there a fee\" before any order is named. " +
		"For the amount of a real order use aftersales_estimate_refund instead. reason is defect, wrong_item, " +
		"not_as_described or changed_mind. Returns the rules only; it changes nothing.",
	ReadOnly: true, Idempotent: true,
	Scopes: []string{"tickets:read"},
}, returnPolicy))

// returnPolicy is the shop's policy table.
func returnPolicy(_ context.Context, _ *runtime.Call, in PolicyInput) (PolicyOutput, error) {
	out := PolicyOutput{Reason: in.Reason, ReturnWindowDays: 30, RefundMethods: []string{"original_payment", "store_credit", "bank_transfer"}, FinalSaleReturnable: true}
	switch in.Reason {
	case "defect", "wrong_item", "not_as_described":
	case "changed_mind":
		out.ReturnWindowDays, out.RestockingFeePercent = 14, 10
		out.RefundMethods, out.FinalSaleReturnable = []string{"original_payment", "store_credit"}, false
	default:
		return PolicyOutput{}, &runtime.ToolError{Kind: runtime.KindInvalidInput,
			Message: fmt.Sprintf("Invalid arguments: reason %q is not one of defect, wrong_item, not_as_described or changed_mind. Ask the user why the order goes back and call again.", in.Reason)}
	}
	return out, nil
}

// cancelReasonRule runs before a cancellation: it tidies the reason and
// refuses one too short to tell a person anything.
var cancelReasonRule = runtime.Middleware{
	Tools: []string{"aftersales_cancel_ticket"},
	Wrap: func(next runtime.CallFunc) runtime.CallFunc {
		return func(ctx context.Context, call *runtime.Call) (*mcp.CallToolResult, error) {
			reason, _ := call.Args["reason"].(string)
			reason = strings.Join(strings.Fields(reason), " ")
			if utf8.RuneCountInString(reason) < 5 {
				return nil, &runtime.ToolError{Kind: runtime.KindInvalidInput,
					Message: "Invalid arguments: reason must say in the user's words why they cancel (at least 5 characters). Ask them and call again."}
			}
			call.Args["reason"] = reason
			return next(ctx, call)
		}
	},
}

// supportContact runs after a ticket lookup: it adds where the customer
// can write about the ticket.
var supportContact = runtime.Middleware{
	Tools: []string{"aftersales_query_ticket"},
	Wrap: func(next runtime.CallFunc) runtime.CallFunc {
		return func(ctx context.Context, call *runtime.Call) (*mcp.CallToolResult, error) {
			res, err := next(ctx, call)
			if err != nil || res.IsError {
				return res, err
			}
			return runtime.WithFields(res, map[string]any{"support_contact": "returns@shop.example"})
		}
	},
}

func mustTool(t *runtime.Tool, err error) *runtime.Tool {
	if err != nil {
		panic(err)
	}
	return t
}
