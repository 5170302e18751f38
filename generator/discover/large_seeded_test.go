package discover_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// randomOp is one operation of a random spec.
type randomOp struct {
	id, method, path, tag, summary string
}

// randomSpec writes an OpenAPI document of n operations on random
// resources, some tagged, some not, with random summaries (their length
// moves the tools/list size), and returns its operations.
func randomSpec(t *testing.T, r *rand.Rand, n int) (string, []randomOp) {
	nouns := []string{"widget", "order", "invoice", "ticket", "user", "team", "report", "device", "file", "alert", "queue", "zone"}
	paths := map[string]map[string]any{}
	var ops []randomOp
	for i := range n {
		noun := nouns[r.IntN(len(nouns))]
		op := randomOp{id: fmt.Sprintf("op%d%s", i, strings.ToUpper(noun[:1])+noun[1:]), method: "get", path: fmt.Sprintf("/v1/%ss/%d", noun, i)}
		if r.IntN(3) == 0 {
			op.method, op.path = "post", fmt.Sprintf("/%ss/{id}/act%d", noun, i)
		}
		if r.IntN(2) == 0 {
			op.tag = strings.ToUpper(noun[:1]) + noun[1:] + "s"
		}
		op.summary = fmt.Sprintf("Do step %d with a %s%s.", i, noun, strings.Repeat(" and more words about it", r.IntN(12)))
		entry := map[string]any{"operationId": op.id, "summary": op.summary,
			"responses": map[string]any{"200": map[string]any{"description": "ok", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}}}}
		if op.tag != "" {
			entry["tags"] = []string{op.tag}
		}
		if strings.Contains(op.path, "{id}") {
			entry["parameters"] = []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}}
		}
		paths[op.path] = map[string]any{op.method: entry}
		ops = append(ops, op)
	}
	doc := map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Random", "version": "1"},
		"servers": []any{map[string]any{"url": "http://127.0.0.1:9"}}, "paths": paths,
		"tags": []any{map[string]any{"name": "Widgets", "description": "Things that do stuff."}}}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file, ops
}

// TestLargeDefaultMappingSeeded maps random specs of random sizes around
// random bounds, without an override file. For any input: tools/list
// stays within the bounds, and every operation is reachable: a tool of
// its own, or found by browsing its area with the search tool and
// called through call_operation against a real loopback upstream. A
// failure names the seed and the smallest operation count that fails.
func TestLargeDefaultMappingSeeded(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 0x1a26e))
	kinds := map[bool]int{}
	for round := range 8 {
		maxTools := 3 + r.IntN(40)
		bounds := mapping.Bounds{Tools: maxTools, ListTokens: 1500 + r.IntN(8000)}
		n := max(1, maxTools-10+r.IntN(20))
		msg, discovered := checkLargeMapping(t, r, n, bounds)
		kinds[discovered]++
		if msg != "" {
			small := n
			for small > 1 {
				// Minimise: the smallest count (same bounds, fresh
				// random spec of that size) that still fails.
				if m, _ := checkLargeMapping(t, rand.New(rand.NewPCG(seed, uint64(small))), small-1, bounds); m == "" {
					break
				}
				small--
			}
			t.Fatalf("seed %d round %d: %d operations, bounds %+v: %s (smallest failing count about %d)", seed, round, n, bounds, msg, small)
		}
	}
	t.Logf("rounds listed as tools: %d, served through discovery: %d", kinds[false], kinds[true])
	if kinds[false] == 0 || kinds[true] == 0 {
		t.Errorf("seed %d: the rounds did not cover both sides of the bounds (%v): widen the sizes", seed, kinds)
	}
}

// checkLargeMapping builds one random spec of n operations and returns
// what breaks the invariants, "" when none, and whether the server
// serves it through discovery.
func checkLargeMapping(t *testing.T, r *rand.Rand, n int, bounds mapping.Bounds) (string, bool) {
	file, ops := randomSpec(t, r, n)
	doc, problems := load.Load(context.Background(), file, load.Options{})
	if problems.HasErrors() {
		return fmt.Sprint(problems.Errors()), false
	}
	srv, problems := mapping.Build(doc, mapping.Config{Name: "random", Bounds: bounds})
	if problems.HasErrors() {
		return fmt.Sprint(problems.Errors()), false
	}
	listed := len(srv.Tools) + len(oa2mcpimpl.DiscoveryTools(&srv.ServerDef))
	bytes := lint.ListBytes(srv)
	if listed > bounds.Tools || ir.EstimateTokens(bytes) > bounds.ListTokens {
		return fmt.Sprintf("tools/list has %d tools, ≈ %d tokens", listed, ir.EstimateTokens(bytes)), srv.Discovery != nil
	}
	if srv.Discovery == nil {
		if len(srv.Tools) != len(ops) {
			return fmt.Sprintf("%d tools for %d operations", len(srv.Tools), len(ops)), false
		}
		return "", false
	}
	if srv.Large == nil || !strings.Contains(srv.Instructions, "search_operations") {
		return "discovery without the large-API note in the instructions", true
	}
	res, problems := generator.Render(doc, srv, nil)
	if problems.HasErrors() {
		return fmt.Sprint(problems.Errors()), true
	}
	readme := string(res.Files["README.md"])
	for _, want := range []string{"oa2mcp init", fmt.Sprintf("would list %d tools", srv.Large.Tools), "--max-tools -1"} {
		if !strings.Contains(readme, want) {
			return fmt.Sprintf("the README lacks %q", want), true
		}
	}
	return reachThroughDiscovery(t, srv, ops), true
}

// reachThroughDiscovery browses every area of srv over MCP and calls
// every operation it finds; every operation of ops must be found once
// and its call must reach the upstream as METHOD path.
func reachThroughDiscovery(t *testing.T, srv *ir.Server, ops []randomOp) string {
	var mu sync.Mutex
	seen := map[string]bool{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		seen[req.Method+" "+req.URL.Path] = true
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	defer up.Close()
	def := srv.ServerDef
	s, err := runtime.NewServer(&def, runtime.Options{BaseURL: up.URL})
	if err != nil {
		return err.Error()
	}
	defer s.Close()
	cs := connect(t, s)
	call := func(name string, args map[string]any) (map[string]any, string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			return nil, err.Error()
		}
		if res.IsError {
			return nil, fmt.Sprint(res.Content[0].(*mcp.TextContent).Text)
		}
		m, _ := res.StructuredContent.(map[string]any)
		return m, ""
	}
	top, msg := call("search_operations", map[string]any{})
	if msg != "" {
		return "listing areas: " + msg
	}
	found := map[string]int{}
	for _, a := range top["areas"].([]any) {
		name := a.(map[string]any)["name"].(string)
		for offset, pages := 0, 0; pages < len(ops)+1; pages++ {
			page, msg := call("search_operations", map[string]any{"area": name, "offset": offset, "limit": 50})
			if msg != "" {
				return "browsing " + name + ": " + msg
			}
			for _, h := range page["operations"].([]any) {
				found[h.(map[string]any)["operationId"].(string)]++
			}
			next, _ := page["next"].(float64)
			if next == 0 {
				break
			}
			offset = int(next)
		}
	}
	for _, op := range ops {
		if found[op.id] != 1 {
			return fmt.Sprintf("operation %s found %d times by browsing", op.id, found[op.id])
		}
		name := ""
		for _, d := range srv.Discovery.Operations {
			if d.Tool.Op.OperationID == op.id {
				name = d.Tool.Name
			}
		}
		args := map[string]any{}
		if strings.Contains(op.path, "{id}") {
			args["id"] = "x1"
		}
		if _, msg := call("call_operation", map[string]any{"name": name, "arguments": args}); msg != "" {
			return "calling " + name + ": " + msg
		}
		want := strings.ToUpper(op.method) + " " + strings.ReplaceAll(op.path, "{id}", "x1")
		mu.Lock()
		ok := seen[want]
		mu.Unlock()
		if !ok {
			return fmt.Sprintf("calling %s did not reach the upstream as %s", name, want)
		}
	}
	return ""
}

// connect is a go-sdk client of s over in-memory transports.
func connect(t *testing.T, s *runtime.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "large", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
