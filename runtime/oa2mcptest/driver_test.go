package oa2mcptest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// shop is a small definition: a lookup, a paged list and an action tool.
func shop() *runtime.ServerDef {
	return &runtime.ServerDef{Name: "shop", Tools: []*runtime.Tool{
		{Name: "get_pet", ReadOnly: true, Scopes: []string{"pets:read"},
			InputSchema:  `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":false}`,
			OutputSchema: `{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}}}`,
			Op:           &runtime.Operation{Method: "GET", Path: "/pets/{id}", Params: []runtime.Param{{Name: "id", Arg: "id", In: "path", Style: "simple", Required: true}}}},
		{Name: "list_pets", ReadOnly: true,
			InputSchema:  `{"type":"object","properties":{"offset":{"type":"integer","minimum":0}},"additionalProperties":false}`,
			OutputSchema: `{"type":"object","properties":{"items":{"type":"array"},"totalCount":{"type":"integer"},"hasMore":{"type":"boolean"}},"required":["items","totalCount","hasMore"]}`,
			Op:           &runtime.Operation{Method: "GET", Path: "/pets"},
			Output:       &runtime.Output{Limit: 2, PageInput: "offset", Pick: []runtime.Pick{{Name: "id", Path: "id"}}}},
		{Name: "manage_pet", InputSchema: `{"type":"object","properties":{"action":{"enum":["add","remove"]},"name":{"type":"string"},"id":{"type":"integer"}},"required":["action"],"additionalProperties":false}`,
			Actions: []runtime.Action{
				{Name: "add", Inputs: []string{"name"}, Required: []string{"name"}, Steps: []runtime.Step{{ID: "add", Op: runtime.Operation{Method: "POST", Path: "/pets",
					Body: &runtime.Body{MediaType: "application/json", Required: true, Fields: []runtime.BodyField{{Name: "name", Arg: "name", Required: true}}}},
					Args: []runtime.Binding{{Arg: "name", Expr: "${input.name}"}}}}},
				{Name: "remove", Inputs: []string{"id"}, Required: []string{"id"}, Steps: []runtime.Step{{ID: "remove", Op: runtime.Operation{Method: "DELETE", Path: "/pets/{id}",
					Params: []runtime.Param{{Name: "id", Arg: "id", In: "path", Style: "simple", Required: true}}},
					Args: []runtime.Binding{{Arg: "id", Expr: "${input.id}"}}}}},
			}},
	}}
}

func shopSuite(cases ...oa2mcptest.Case) oa2mcptest.Suite {
	return oa2mcptest.Suite{Def: shop(), Cases: cases, Responses: map[string]oa2mcptest.Response{
		"GET /pets/{id}":    {Body: `{"id":3,"name":"Rex","secret":"x"}`},
		"GET /pets":         {Body: `[{"id":1},{"id":2},{"id":3}]`},
		"POST /pets":        {Status: 201, Body: `{"id":4,"name":"Tom"}`},
		"DELETE /pets/{id}": {Status: 204},
	}}
}

// passing are cases a correct runtime passes.
var passing = []oa2mcptest.Case{
	{Tool: "get_pet", Name: "normal", Args: `{"id":3}`, WantUpstream: true},
	{Tool: "get_pet", Name: "invalid", Args: `{"id":"x"}`, WantError: true, WantKind: "invalid_input", WantText: []string{`"id"`}},
	{Tool: "get_pet", Name: "404", Args: `{"id":3}`, Fault: oa2mcptest.FaultStatus(404), WantError: true, WantKind: "not_found", WantUpstream: true},
	{Tool: "get_pet", Name: "timeout", Args: `{"id":3}`, Fault: oa2mcptest.FaultTimeout, WantError: true, WantKind: "timeout", WantUpstream: true},
	{Tool: "get_pet", Name: "reset", Args: `{"id":3}`, Fault: oa2mcptest.FaultReset, WantError: true, WantKind: "connection_failed", WantUpstream: true},
	{Tool: "get_pet", Name: "malformed", Args: `{"id":3}`, Fault: oa2mcptest.FaultMalformed, WantError: true, WantKind: "bad_response", WantUpstream: true},
	{Tool: "get_pet", Name: "oversized", Args: `{"id":3}`, Fault: oa2mcptest.FaultOversized, WantError: true, WantKind: "too_large", WantUpstream: true},
	{Tool: "get_pet", Name: "no scope", Args: `{"id":3}`, Caller: oa2mcptest.CallerNoScope, WantError: true, WantKind: "forbidden"},
	{Tool: "list_pets", Name: "page 2", Args: `{"offset":1}`, WantUpstream: true, WantPage: &oa2mcptest.Page{Items: 2, Total: 3, Next: -1, PageInput: "offset"}},
	{Tool: "list_pets", Name: "page 1", Args: `{}`, WantUpstream: true, WantPage: &oa2mcptest.Page{Items: 2, Total: 3, HasMore: true, Next: 2, PageInput: "offset"}},
	{Tool: "manage_pet", Name: "action add", Args: `{"action":"add","name":"Tom"}`, WantUpstream: true},
	{Tool: "manage_pet", Name: "action remove", Args: `{"action":"remove","id":4}`, WantUpstream: true},
	{Tool: "manage_pet", Name: "unused input", Args: `{"action":"remove","id":4,"name":"Tom"}`, WantError: true, WantKind: "invalid_input", WantText: []string{`"name" is for action add`}},
}

func TestCheckPasses(t *testing.T) {
	for _, tr := range []oa2mcptest.Transport{oa2mcptest.Loopback, oa2mcptest.InProcess, oa2mcptest.Direct} {
		for _, f := range oa2mcptest.Check(context.Background(), shopSuite(passing...), oa2mcptest.Options{Transport: tr, Timeout: 500e6}) {
			t.Errorf("transport %d: %s", tr, f)
		}
	}
}

// TestCheckBites: each wrong expectation must be reported, so a runtime
// that behaves like it would fail the generated tests.
func TestCheckBites(t *testing.T) {
	wrong := []oa2mcptest.Case{
		{Tool: "get_pet", Name: "500 as success", Args: `{"id":3}`, Fault: oa2mcptest.FaultStatus(500), WantUpstream: true},
		{Tool: "get_pet", Name: "invalid reaches upstream", Args: `{"id":"x"}`, WantError: true, WantKind: "invalid_input", WantUpstream: true},
		{Tool: "get_pet", Name: "wrong kind", Args: `{"id":3}`, Fault: oa2mcptest.FaultStatus(404), WantError: true, WantKind: "timeout", WantUpstream: true},
		{Tool: "list_pets", Name: "wrong page", Args: `{"offset":1}`, WantUpstream: true, WantPage: &oa2mcptest.Page{Items: 1, Total: 1, Next: -1, PageInput: "offset"}},
		{Tool: "manage_pet", Name: "unused ignored", Args: `{"action":"remove","id":4,"name":"Tom"}`, WantUpstream: true},
	}
	for _, tr := range []oa2mcptest.Transport{oa2mcptest.InProcess, oa2mcptest.Direct} {
		fails := oa2mcptest.Check(context.Background(), shopSuite(wrong...), oa2mcptest.Options{Transport: tr})
		got := map[string]bool{}
		for _, f := range fails {
			got[f.Case] = true
		}
		for _, c := range wrong {
			if !got[c.Name] {
				t.Errorf("transport %d, case %q: no failure reported", tr, c.Name)
			}
		}
		if t.Failed() {
			t.Log(fmt.Sprint(fails))
		}
	}
}

// TestUpstreamChecksRequests: a request without a required body is
// reported, so request-building bugs fail the normal cases.
func TestUpstreamChecksRequests(t *testing.T) {
	u := oa2mcptest.NewUpstream(shop(), nil)
	if p := u.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
	def := shop()
	def.Tools[2].Actions[0].Steps[0].Args = nil // the body's only field is never bound
	for _, tr := range []oa2mcptest.Transport{oa2mcptest.InProcess, oa2mcptest.Direct} {
		fails := oa2mcptest.Check(context.Background(), oa2mcptest.Suite{Def: def, Cases: []oa2mcptest.Case{
			{Tool: "manage_pet", Name: "add", Args: `{"action":"add","name":"Tom"}`, WantUpstream: true},
		}}, oa2mcptest.Options{Transport: tr})
		if len(fails) == 0 || !strings.Contains(fmt.Sprint(fails), "body") {
			t.Errorf("transport %d: a request without its required body passed: %v", tr, fails)
		}
	}
}

// TestIdentityClaimsBeyondSub: a binding of ${identity.member_no} gets a
// value from every test caller, over HTTP (static tokens) and in process
// (ContextWithCaller), so the upstream sees its required header.
func TestIdentityClaimsBeyondSub(t *testing.T) {
	def := &runtime.ServerDef{Name: "lib", Tools: []*runtime.Tool{
		{Name: "my_loans", ReadOnly: true, InputSchema: `{"type":"object","additionalProperties":false}`,
			Steps: []runtime.Step{{ID: "loans", Op: runtime.Operation{Method: "GET", Path: "/loans",
				Params: []runtime.Param{{Name: "X-Member", Arg: "X-Member", In: "header", Style: "simple", Required: true}}},
				Args: []runtime.Binding{{Arg: "X-Member", Expr: "${identity.member_no}"}}}}},
	}}
	for _, tr := range []oa2mcptest.Transport{oa2mcptest.Loopback, oa2mcptest.Direct} {
		fails := oa2mcptest.Check(context.Background(), oa2mcptest.Suite{Def: def, Cases: []oa2mcptest.Case{
			{Tool: "my_loans", Name: "normal", Args: `{}`, WantUpstream: true},
			{Tool: "my_loans", Name: "other caller", Args: `{}`, Caller: oa2mcptest.CallerOther, WantUpstream: true},
		}}, oa2mcptest.Options{Transport: tr})
		if len(fails) != 0 {
			t.Errorf("transport %d: %v", tr, fails)
		}
	}
}

// TestUpstreamTwoOperationsOnOnePath: two operations on one method and
// path (Box's GET /web_links/{id} and its #get_shared_link variant, which
// requires ?fields) are both served, each request checked against the one
// whose required parameters it carries.
func TestUpstreamTwoOperationsOnOnePath(t *testing.T) {
	op := func(id string, required bool) *runtime.Operation {
		o := &runtime.Operation{OperationID: id, Method: "GET", Path: "/links/{id}", Params: []runtime.Param{
			{Name: "id", Arg: "id", In: runtime.InPath, Style: "simple", Required: true}}}
		if required {
			o.Params = append(o.Params, runtime.Param{Name: "fields", Arg: "fields", In: runtime.InQuery, Style: "form", Explode: true, Required: true})
		}
		return o
	}
	def := &runtime.ServerDef{Name: "links", Tools: []*runtime.Tool{
		{Name: "get_shared_link", InputSchema: `{"type":"object","properties":{"id":{"type":"string"},"fields":{"type":"string"}},"required":["id","fields"]}`, Op: op("get_link#shared", true)},
		{Name: "get_link", InputSchema: `{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`, Op: op("get_link", false)},
	}}
	for _, tr := range []oa2mcptest.Transport{oa2mcptest.InProcess, oa2mcptest.Direct} {
		fails := oa2mcptest.Check(context.Background(), oa2mcptest.Suite{Def: def, Cases: []oa2mcptest.Case{
			{Tool: "get_link", Name: "plain", Args: `{"id":"L1"}`, WantUpstream: true},
			{Tool: "get_shared_link", Name: "shared", Args: `{"id":"L1","fields":"shared_link"}`, WantUpstream: true},
		}}, oa2mcptest.Options{Transport: tr})
		if len(fails) != 0 {
			t.Errorf("transport %d: %v", tr, fails)
		}
	}
}
