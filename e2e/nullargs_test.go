//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestNullOptionalArguments: strict clients send null for every optional
// input a model leaves out (the Python Agents SDK makes every property
// required). For the default tools of corpus specs, with arguments the
// generator's call cases chose and a seeded random set of optional
// properties, a call that gives null for them must reach the upstream
// exactly as the call that leaves them out. The upstream is a real HTTP
// server on 127.0.0.1 that records each request. $OA2MCP_SEED replays.
func TestNullOptionalArguments(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	rng := rand.New(rand.NewPCG(seed, 0))
	rec := &recordingUpstream{}
	up := httptest.NewServer(rec)
	defer up.Close()
	corpus := testenv.CorpusDir(t)
	calls := 0
	for _, name := range []string{"stripe", "box", "openai", "swaggerpetstore31"} {
		e := corpusEntry(t, name)
		doc, problems := load.Load(context.Background(), filepath.Join(corpus, e.Path), load.Options{})
		if problems.HasErrors() {
			t.Fatal(problems.Errors().Error())
		}
		model, more := mapping.Build(doc, mapping.Config{Name: e.Name, ImportPath: "corpus/" + e.Name, Source: e.Path, Bounds: mapping.Unbounded()})
		more = append(more, cases.Build(model)...)
		if more.HasErrors() {
			t.Fatal(more.Errors().Error())
		}
		srv, err := runtime.NewServer(cases.Definition(model), runtime.Options{
			BaseURL: up.URL, Getenv: func(string) string { return "" }})
		must(t, err)
		cs := connectInMemory(t, srv)
		for _, tool := range model.Tools {
			args, optional := nullCandidates(t, tool, model.CallCases)
			if args == nil || len(optional) == 0 {
				continue
			}
			// Up to 3 random subsets of the optional properties per tool.
			for range 3 {
				picked := pick(rng, optional)
				base, withNull := variant(args, picked)
				a := rec.call(t, cs, tool.Name, base)
				b := rec.call(t, cs, tool.Name, withNull)
				calls++
				if a != b {
					t.Errorf("seed %d: %s %s: null for %v changed the call:\n  without: %s\n  with null: %s\n  arguments: %s",
						seed, name, tool.Name, minimalNulls(t, rec, cs, tool.Name, args, picked), a, b, mustJSON(withNull))
				}
			}
		}
	}
	if calls < 100 {
		t.Fatalf("only %d argument sets checked; the corpus tools should give hundreds", calls)
	}
	t.Logf("%d argument sets with null optional inputs reached the upstream as without them", calls)
}

func corpusEntry(t *testing.T, name string) testenv.CorpusEntry {
	for _, e := range testenv.Corpus() {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no corpus entry %s", name)
	return testenv.CorpusEntry{}
}

func connectInMemory(t *testing.T, srv *runtime.Server) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(context.Background(), st, nil)
	must(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcp", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	must(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// nullCandidates returns a success case's arguments and the tool's
// optional top-level properties that refuse null in its full schema.
func nullCandidates(t *testing.T, tool ir.Tool, all []oa2mcptest.Case) (map[string]any, []string) {
	var args map[string]any
	for _, c := range all {
		if c.Tool == tool.Name && !c.WantError && c.Fault == "" && c.Caller == "" && c.Answers == "" && c.Responses == nil {
			must(t, json.Unmarshal([]byte(c.Args), &args))
			break
		}
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	must(t, json.Unmarshal([]byte(tool.InputSchema), &schema))
	var optional []string
	for name, p := range schema.Properties {
		if contains(schema.Required, name) || strings.Contains(string(p), `"null"`) {
			continue
		}
		optional = append(optional, name)
	}
	sort.Strings(optional)
	return args, optional
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func pick(rng *rand.Rand, names []string) []string {
	var out []string
	for _, n := range names {
		if rng.IntN(2) == 0 {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []string{names[rng.IntN(len(names))]}
	}
	return out
}

// variant returns args without the picked properties, and with each of
// them null.
func variant(args map[string]any, picked []string) (base, withNull map[string]any) {
	base, withNull = map[string]any{}, map[string]any{}
	for k, v := range args {
		base[k], withNull[k] = v, v
	}
	for _, k := range picked {
		delete(base, k)
		withNull[k] = nil
	}
	return base, withNull
}

// minimalNulls finds the one picked property whose null alone changes
// the call, else returns them all.
func minimalNulls(t *testing.T, rec *recordingUpstream, cs *mcp.ClientSession, tool string, args map[string]any, picked []string) []string {
	for _, k := range picked {
		base, withNull := variant(args, []string{k})
		if rec.call(t, cs, tool, base) != rec.call(t, cs, tool, withNull) {
			return []string{k}
		}
	}
	return picked
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// recordingUpstream answers every request 200 {} and records it.
type recordingUpstream struct {
	mu   sync.Mutex
	seen []string
}

func (r *recordingUpstream) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	// A multipart boundary is random per request.
	if _, params, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err == nil && params["boundary"] != "" {
		body = []byte(strings.ReplaceAll(string(body), params["boundary"], "BOUNDARY"))
	}
	r.mu.Lock()
	r.seen = append(r.seen, fmt.Sprintf("%s %s %s", req.Method, req.URL.RequestURI(), body))
	r.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{}`))
}

// call makes one tools/call and returns what reached the upstream and
// whether the result was an error.
func (r *recordingUpstream) call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	r.mu.Lock()
	r.seen = nil
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	must(t, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprintf("isError=%v upstream=%q", res.IsError, r.seen)
}
