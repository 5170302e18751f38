package lint

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestParallelCheckIsOneChecker: on 300 seeded random servers (up to 40
// tools, repeated names and texts, good and bad descriptions), Check,
// which checks ranges of tools on every CPU, reports exactly what one
// checker going through the tools in turn reports.
func TestParallelCheckIsOneChecker(t *testing.T) {
	texts := []string{good, "Calls the API endpoint POST /api/v1/pets.", "Remove a pet.", "", "Lists things. Use it when the user asks which things exist.",
		"Returns only the id. Do not use it for search; use shop_find_pets instead.", "Creates an order, e.g. for 3 pets. The order expires after 30 days."}
	params := []string{`"a":{"type":"string"}`, `"b":{"type":"string","description":"The name, e.g. Rex."}`, `"c":{"type":"string","description":"The name."}`,
		`"user_id":{"type":"string","description":"Who asks."}`, `"d":{"type":"integer","enum":[1,2]}`}
	methods := []string{"GET", "POST", "PUT", "DELETE", "PATCH"}
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0x11a7))
		srv := &ir.Server{ServerDef: runtime.ServerDef{Name: "shop"}}
		for i := range r.IntN(41) {
			var props []string
			for _, p := range params {
				if r.IntN(3) == 0 {
					props = append(props, p)
				}
			}
			name := fmt.Sprintf("shop_%s_thing%d", []string{"get", "list", "make", "Delete", "x y"}[r.IntN(5)], r.IntN(8))
			srv.Tools = append(srv.Tools, tool(name, methods[r.IntN(len(methods))], fmt.Sprintf("/things/%d/{id}", i%5),
				texts[r.IntN(len(texts))], `{"type":"object","properties":{`+strings.Join(props, ",")+`}}`))
		}
		got := Check(srv, Config{}).Findings
		one := &checker{srv: srv, cfg: Config{}.withDefaults(), tokens: ListTokens(srv)}
		one.server()
		ctx := newServerContext(srv)
		for i := range srv.Tools {
			one.tool(&srv.Tools[i], ctx)
		}
		sortFindings(one.out)
		want := one.out
		if want == nil {
			want = []Finding{}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d (%d tools): parallel findings differ from one checker's:\n got %v\nwant %v", seed, len(srv.Tools), got, want)
		}
	}
}
