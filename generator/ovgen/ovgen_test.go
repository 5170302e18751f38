package ovgen

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

var (
	flagFiles  = flag.Int("ovgen.files", 240, "random override files per run, spread over the specs")
	flagSeed   = flag.Int64("ovgen.seed", 1, "seed of the first file; file i uses seed+i")
	flagNested = flag.Bool("ovgen.nested", true, "also bind object arguments field by field (maps of ${input...} in args:)")
)

// specs are the public specs the files are written for: list responses
// with totals and offset/limit paging (box), page numbers, unions and
// allOf in responses, writes with all-optional bodies.
var specs = []string{
	"swagger-petstore-3.0.yaml",
	"redocly-museum-3.1.yaml",
	"box-3.0.json",
	"discourse-3.1.json",
	"oai-petstore-expanded-3.0.yaml",
}

// failure is one broken invariant.
type failure struct {
	invariant, detail string
}

// TestOverrideFiles generates random valid override files (every tool
// kind: one operation, steps, actions; renames, drops, values, flatten,
// asks, identity bindings, step bindings, optional and conditional
// steps, per-action input: and output:, picks through arrays, unions
// and allOf, every paging mode, hints, id and state handles,
// confirmations, and deliberate path typos) and
// checks, for each, the invariants of checkPlan. A failure prints the
// seed and the minimised file.
func TestOverrideFiles(t *testing.T) {
	start := time.Now()
	cats := loadCatalogs(t)
	var mu sync.Mutex
	tools, checks, files, confirmed := 0, 0, 0, 0
	handled := map[string]int{}
	paged := map[string]int{}
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i := range *flagFiles {
		seed := *flagSeed + int64(i)
		cat := cats[int(uint64(seed)%uint64(len(cats)))]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			g := &gen{cat: cat, rng: rand.New(rand.NewSource(seed))}
			p := g.newPlan()
			st := &stats{paged: map[string]int{}, handled: map[string]int{}}
			fails := checkPlan(p, st)
			mu.Lock()
			tools, checks, files = tools+st.tools, checks+st.checks, files+1
			confirmed += st.confirmed
			for k, v := range st.handled {
				handled[k] += v
			}
			for k, v := range st.paged {
				paged[k] += v
			}
			mu.Unlock()
			if len(fails) > 0 {
				small := minimise(p, fails[0].invariant)
				t.Errorf("seed %d, spec %s: invariant %q broken: %s\nminimised override file (seed %d):\n%s\nall problems of the full file: %v",
					seed, cat.spec, fails[0].invariant, fails[0].detail, seed, small.yaml(), fails)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d files, %d tools, %d invariant checks in %s", files, tools, checks, time.Since(start).Round(time.Millisecond))
	t.Logf("paging chains followed (tool kind / who pages / page kind): %v", paged)
	t.Logf("files whose handles (id and state) passed, by upstream id: %v; files whose confirmation passed: %d", handled, confirmed)
	if *flagFiles >= 200 && (len(handled) == 0 || confirmed == 0) {
		t.Errorf("handles in %v files, confirmations in %d: widen the generator or the specs", handled, confirmed)
	}
	// Every tool kind must have paged by the upstream's own offset and by
	// the server, or the run proved less than it claims.
	for _, k := range []string{"operation/upstream/offset", "operation/server/offset", "operation/server/number", "steps/server/offset", "actions/upstream/offset", "actions/server/offset", "actions/server/number"} {
		if paged[k] == 0 && *flagFiles >= 200 {
			t.Errorf("no file paged %s: widen the generator or the specs", k)
		}
	}
}

func loadCatalogs(t *testing.T) []*catalog {
	var out []*catalog
	corpusDir := testenv.CorpusDir(t)
	for _, s := range specs {
		path := filepath.Join(corpusDir, s)
		doc, probs := load.Load(context.Background(), path, load.Options{})
		if doc == nil {
			t.Fatalf("%s: %v", path, probs)
		}
		srv, probs := mapping.Build(doc, mapping.Config{Name: "default", Bounds: mapping.Unbounded()})
		if srv == nil {
			t.Fatalf("%s: default mapping: %v", path, probs)
		}
		c := newCatalog(path, srv)
		c.doc = doc
		if len(c.ops) == 0 {
			t.Fatalf("%s: no operation with an operationId", path)
		}
		out = append(out, c)
	}
	return out
}

// stats count what one file checked; paged counts the paging chains
// followed by tool kind and paging mode.
type stats struct {
	tools, checks int
	paged         map[string]int
	// handled counts the files whose handle checks ran to the end, by
	// the upstream id's type and format; confirmed those whose
	// confirmation checks did.
	handled   map[string]int
	confirmed int
}

// checkPlan generates one file and checks every invariant.
func checkPlan(p *plan, st *stats) []failure {
	text := p.yaml()
	ov, probs := overrides.Decode("random.yaml", []byte(text))
	if probs.HasErrors() {
		return []failure{{"the file decodes", probs.Error()}}
	}
	cat := p.cat
	srv, probs := generator.Model(cat.doc, generator.Config{Name: "random", Overrides: ov})
	st.checks++
	if typo := p.typo(); typo != "" {
		want := ov.Pos(typo)
		for _, e := range probs.Errors() {
			if e.Pos == want {
				return nil
			}
		}
		return []failure{{"a wrong output path is an error at its position", fmt.Sprintf("no error at %s (%s); got: %v", want, typo, probs.Errors())}}
	}
	if probs.HasErrors() {
		return []failure{{"a valid file generates and every tool is proven callable", probs.Errors().Error()}}
	}
	h, err := newHarness(srv)
	if err != nil {
		return []failure{{"the server starts", err.Error()}}
	}
	defer h.close()
	var out []failure
	for i, tp := range p.tools {
		tool := findTool(srv, tp.name)
		if tool == nil {
			out = append(out, failure{"every tool of the file is served", tp.name})
			continue
		}
		st.tools++
		if p.handles.takes(tp) {
			continue // checkHandles calls it with handles it got
		}
		out = append(out, h.checkTool(p, i, tp, tool, st)...)
		if tp.confirm != "" {
			out = append(out, h.checkConfirm(tp, tool, st)...)
		}
	}
	if p.handles != nil {
		out = append(out, h.checkHandles(p, st)...)
	}
	return out
}

func findTool(srv *ir.Server, name string) *ir.Tool {
	for i := range srv.Tools {
		if srv.Tools[i].Name == name {
			return &srv.Tools[i]
		}
	}
	return nil
}

// harness serves one generated server against the recording upstream.
type harness struct {
	srv  *runtime.Server
	ir   *ir.Server
	wire *wire
	// confirms are the tools that ask the user to confirm: call makes
	// them through session, whose user answers forms with answer.
	confirms    map[string]bool
	session     *mcp.ClientSession
	stopSession func()
	answer      string
	mu          sync.Mutex
}

func newHarness(srv *ir.Server) (*harness, error) {
	def := cases.Definition(srv)
	w := &wire{next: oa2mcptest.NewUpstream(def, srv.UpstreamResponses)}
	for _, t := range def.Tools {
		w.ops = append(w.ops, t.Operations()...)
	}
	creds := cases.Credentials(srv)
	rs, err := runtime.NewServer(def, runtime.Options{BaseURL: "http://upstream.in-process", Upstream: w, Timeout: 5 * time.Second,
		Getenv: func(k string) string { return creds[k] }})
	if err != nil {
		return nil, err
	}
	h := &harness{srv: rs, ir: srv, wire: w, confirms: map[string]bool{}}
	for _, t := range def.Tools {
		h.confirms[t.Name] = t.Confirm != ""
	}
	return h, nil
}

// close ends the client session, if one was opened, and the server.
func (h *harness) close() {
	if h.session != nil {
		h.session.Close()
		h.stopSession()
	}
	h.srv.Close()
}

// callerContext is a context carrying the caller sub.
func callerContext(sub string) context.Context {
	return runtime.ContextWithCaller(context.Background(), map[string]string{"sub": sub})
}

// call makes one tool call as the default test caller, with the given
// lists and fault programmed into the upstream; a tool that asks for
// confirmation is called through the session, and the user accepts.
func (h *harness) call(tool string, args map[string]any, lists map[string]*pagedList, fault int) (*mcp.CallToolResult, []request, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.confirms[tool] {
		return h.sessionCall(tool, args, lists, fault, "accept")
	}
	return h.callAs("oa2mcp-test-a", tool, args, lists, fault)
}

// callAs is call as the caller sub, with h.mu held, without a session.
func (h *harness) callAs(sub, tool string, args map[string]any, lists map[string]*pagedList, fault int) (*mcp.CallToolResult, []request, error) {
	h.wire.reset(lists, fault)
	res, err := h.srv.CallTool(callerContext(sub), tool, args)
	return res, h.wire.requests(), err
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " ")
}

func structured(res *mcp.CallToolResult) map[string]any {
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil
	}
	v, _ := oa2mcpimpl.DecodeJSON(string(b))
	m, _ := v.(map[string]any)
	return m
}
