package scaffold

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// bareSegments name no task: a tool named after one of them was named
// from a path segment, not from what its operation does; so is one
// whose last word is a version (get_batch_v1).
var bareSegments = wordSet([]string{"root", "roots", "me", "self"})

// TestCorpusDraftInvariants drafts every corpus document (and the
// music-streaming excerpt in testdata) and checks what must hold for any
// spec: the draft generates and its proof passes (generator.Generate),
// no deprecated operation is served, no tool is named from a bare path
// segment, no read-only tool is named create_, update_, replace_ or
// delete_, paging is drafted only over a list of records the response
// has at the list path, and the server name's words come from the title.
func TestCorpusDraftInvariants(t *testing.T) {
	dir := testenv.CorpusDir(t)
	specs := []string{filepath.Join("testdata", "music.yaml")}
	for _, e := range testenv.Corpus() {
		specs = append(specs, filepath.Join(dir, e.Path))
	}
	for _, spec := range specs {
		t.Run(filepath.Base(spec), func(t *testing.T) {
			start := time.Now()
			doc, problems := load.Load(context.Background(), spec, load.Options{})
			if problems.HasErrors() {
				t.Fatal(problems.Errors())
			}
			res := Build(doc, Options{})
			if res.Server == nil {
				t.Fatalf("the draft does not generate: %v\n%s", res.Problems.Errors(), res.Text)
			}
			ov, p := overrides.Decode("draft.yaml", res.Text)
			if p.HasErrors() {
				t.Fatal(p.Errors())
			}
			if _, more := generator.Generate(doc, generator.Config{Name: "draft", Overrides: ov}); more.HasErrors() {
				t.Fatalf("the draft does not generate and prove:\n%s", more.Errors())
			}
			checkDraft(t, doc, res, ov)
			t.Logf("%d operations, %d tools, %d candidates, %v", res.Operations, res.Tools, res.Candidates, time.Since(start))
		})
	}
}

// checkDraft checks the invariants of one draft.
func checkDraft(t *testing.T, doc *load.Document, res *Result, ov *overrides.File) {
	t.Helper()
	if served := deprecatedServed(doc, res); len(served) > 0 {
		t.Errorf("deprecated operations served: %v", served)
	}
	for _, line := range strings.Split(string(res.Text), "\n") {
		_, name, ok := strings.Cut(line, "- name: ")
		if !ok {
			continue
		}
		words := strings.Split(name, "_")
		for i, w := range words {
			if bareSegments[w] || i == len(words)-1 && mapping.IsVersionWord(w) {
				t.Errorf("tool %s is named from a bare path segment (%q)", name, w)
			}
		}
	}
	prefix := ov.Server.ToolPrefix + "_"
	for _, tool := range res.Server.Tools {
		name := strings.TrimPrefix(tool.Name, prefix)
		for _, w := range []string{"create_", "update_", "replace_", "delete_", "manage_"} {
			if tool.ReadOnly && strings.HasPrefix(name, w) {
				t.Errorf("read-only tool %s is named as a write", tool.Name)
			}
		}
		if tool.ReadOnly && strings.Contains(strings.ToLower(tool.Description), "changes data on the service") {
			t.Errorf("read-only tool %s is described as changing data: %s", tool.Name, tool.Description)
		}
	}
	title := strings.ToLower(doc.Title)
	for _, w := range strings.Split(ov.Server.Name, "-") {
		if w != "api" && !strings.Contains(title, w) {
			t.Errorf("server name %s: %q is not from the title %q", ov.Server.Name, w, doc.Title)
		}
	}
	d := &draft{doc: doc}
	for _, tool := range ov.Tools {
		if tool.Output == nil || tool.Output.List == nil {
			continue
		}
		op := findOperation(doc, tool.Operation)
		if op == nil {
			t.Errorf("paged tool %s calls no operation of its own", tool.Name)
			continue
		}
		if path, ok := d.listPath(op); !ok || path != tool.Output.List.Path {
			t.Errorf("tool %s is paged over %q, but %s %s answers no list of records there", tool.Name, tool.Output.List.Path, op.Method, op.Path)
		}
	}
}

// findOperation resolves a draft's operation reference.
func findOperation(doc *load.Document, ref string) *load.Operation {
	for _, op := range doc.Operations {
		if ref != "" && (op.ID == ref || op.Method+" "+op.Path == ref) {
			return op
		}
	}
	return nil
}

// TestMusicStreamingDraft: the draft for an excerpt of a music-streaming
// API (OpenAPI 3.0, /me, playback, saved items paged by limit/offset/
// total, a cursor-paged list, a check answering booleans, deprecated
// operations) names and pages its tools by what they do.
func TestMusicStreamingDraft(t *testing.T) {
	doc, problems := load.Load(context.Background(), filepath.Join("testdata", "music.yaml"), load.Options{})
	if problems.HasErrors() {
		t.Fatal(problems.Errors())
	}
	res := Build(doc, Options{})
	text := string(res.Text)
	for _, want := range []string{
		"  name: music-streaming\n",
		"  - name: get_current_user\n",
		"  - name: start_playback\n",
		"      pause:\n",
		"  - name: check_saved_tracks\n",
		`list: {path: "items", limit: 20, page_input: "offset", page_kind: offset, total: "total"}`,
		"# Paged by the upstream's cursor: the result's next, passed back as cursor",
		"2 deprecated operation(s) left out of the server",
		`    - operation: "get-recommendations"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %q:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "list: {path"); n != 2 {
		t.Errorf("%d tools paged, want the saved tracks and the saved albums only:\n%s", n, text)
	}
	if block := toolBlock(t, text, "check_saved_tracks"); strings.Contains(block, "list:") {
		t.Errorf("a list of booleans, one per id asked, is paged:\n%s", block)
	}
	if block := toolBlock(t, text, "start_playback"); strings.Contains(block, "Overwrites the stored resource") {
		t.Errorf("starting playback is described as overwriting a resource:\n%s", block)
	}
	for _, bad := range []string{"get_root", "replace_play", "create_next", "spotify-with", "music-streaming-with"} {
		if strings.Contains(text, bad) {
			t.Errorf("the draft has %s:\n%s", bad, text)
		}
	}
}

// TestQueryPostsAreReads: POST operations that search or list (a
// payments search, "Get a list of available payment methods") are
// drafted as reads, annotated read-only and not named create_*.
func TestQueryPostsAreReads(t *testing.T) {
	doc := loadSpec(t, `openapi: 3.1.0
info: {title: Acme Checkout API, version: "71"}
paths:
  /payments:
    post:
      operationId: createPayment
      summary: Start a transaction
      requestBody: {required: true, content: {application/json: {schema: {type: object, required: [amount], properties: {amount: {type: integer, description: "Minor units, e.g. 1000."}}}}}}
      responses: {"200": {description: ok}}
  /payments/search:
    post:
      operationId: searchPayments
      summary: Search payments
      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {status: {type: string, description: "e.g. settled"}}}}}}
      responses: {"200": {description: ok}}
  /paymentMethods:
    post:
      operationId: paymentMethods
      summary: Get a list of available payment methods
      requestBody: {content: {application/json: {schema: {type: object, properties: {countryCode: {type: string, description: "e.g. NL"}}}}}}
      responses: {"200": {description: ok}}
`)
	res := Build(doc, Options{})
	if res.Server == nil {
		t.Fatalf("does not generate: %v", res.Problems.Errors())
	}
	readOnly := map[string]bool{}
	for _, tool := range res.Server.Tools {
		readOnly[strings.TrimPrefix(tool.Name, "acme_checkout_")] = tool.ReadOnly
	}
	want := map[string]bool{"find_payments": true, "find_payment_methods": true, "create_payment": false}
	for name, ro := range want {
		if got, ok := readOnly[name]; !ok || got != ro {
			t.Errorf("tool %s: present %v, read-only %v, want read-only %v; tools %v", name, ok, got, ro, readOnly)
		}
	}
}

// TestBudgetKeepsRankOrder: under any tools/list budget, no enabled tool
// ranks below a tool left commented out that would fit a draft (within
// the per-tool share): a less central tool never takes a more central
// one's place.
func TestBudgetKeepsRankOrder(t *testing.T) {
	docs := []*load.Document{loadSpec(t, shopSpec)}
	if doc, p := load.Load(context.Background(), filepath.Join("testdata", "music.yaml"), load.Options{}); !p.HasErrors() {
		docs = append(docs, doc)
	}
	for _, doc := range docs {
		for budget := 200; budget <= 3000; budget += 100 {
			d := newDraft(doc, Options{MaxListTokens: budget}.withDefaults())
			d.buildCandidates()
			d.choose(0)
			skipped := ""
			for _, c := range d.ranked() {
				switch {
				case c.tool == nil || c.bytes > budget*4/maxShare:
				case !c.active && skipped == "":
					skipped = c.name
				case c.active && skipped != "":
					t.Errorf("%s, budget %d: %s is enabled although the more central %s is commented out", doc.Title, budget, c.name, skipped)
				}
			}
		}
	}
}
