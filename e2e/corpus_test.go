//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/generator/write"
	"github.com/oa2mcp/oa2mcp/internal/quality"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// corpusResult is one row of the corpus table.
type corpusResult struct {
	entry     testenv.CorpusEntry
	ops       int
	tools     int
	warnings  int
	listBytes int
	issues    []string
	genTime   time.Duration
	stderr    strings.Builder
}

// TestCorpus generates a server for every corpus spec into one temporary
// module, builds them all with one go build, starts each binary over
// stdio and checks its tools/list with the quality rules.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus build takes minutes; run without -short")
	}
	corpus := testenv.CorpusDir(t)
	mod := testenv.TempModule(t, "corpus")
	results := map[string]*corpusResult{}
	for _, e := range testenv.Corpus() {
		results[e.Name] = generateEntry(t, corpus, mod, e)
	}
	buildAll(t, mod)
	t.Run("call cases", func(t *testing.T) { runCallCases(t, mod, results[callCasesEntry]) })
	for _, e := range testenv.Corpus() {
		r := results[e.Name]
		if r == nil {
			continue
		}
		t.Run(e.Name, func(t *testing.T) { listAndCheck(t, mod, r) })
	}
	if path := os.Getenv("OA2MCP_CORPUS_TABLE"); path != "" {
		writeTable(t, path, results)
	}
}

func generateEntry(t *testing.T, corpus, mod string, e testenv.CorpusEntry) *corpusResult {
	start := time.Now()
	doc, problems := load.Load(context.Background(), filepath.Join(corpus, e.Path), load.Options{})
	if problems.HasErrors() {
		t.Errorf("%s: load failed:\n%s", e.Path, problems.Errors().Error())
		return nil
	}
	res, more := generator.Generate(doc, generator.Config{Name: e.Name, ImportPath: "corpus/" + e.Name, Source: e.Path, Bounds: mapping.Unbounded()})
	if more.HasErrors() {
		t.Errorf("%s: generate failed:\n%s", e.Path, more.Errors().Error())
		return nil
	}
	r := &corpusResult{entry: e, ops: len(doc.Operations), tools: len(res.Server.Tools),
		warnings: len(problems.Warnings()) + len(more.Warnings()), genTime: time.Since(start)}
	dir := filepath.Join(mod, e.Name)
	changes, err := write.Plan(dir, res.Files)
	must(t, err)
	must(t, write.Apply(dir, changes))
	return r
}

// callCasesEntry is the corpus entry whose generated call tests are run:
// a real API with more tools than one tools file holds (197), and quick
// enough to run in every suite (about 10 s).
const callCasesEntry = "twilio"

// runCallCases runs the generated oa2mcp_calls_test.go of one entry,
// which reads its cases from testdata/oa2mcp_calls.json.
func runCallCases(t *testing.T, mod string, r *corpusResult) {
	if r == nil {
		t.Fatalf("%s was not generated", callCasesEntry)
	}
	if _, err := os.Stat(filepath.Join(mod, r.entry.Name, "testdata", "oa2mcp_calls.json")); err != nil {
		t.Errorf("%d tools, but no case file: %v", r.tools, err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "TestOA2MCPCallCases", "./"+r.entry.Name+"/")
	cmd.Dir = mod
	cmd.Env = testenv.GoEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the generated call cases of %s failed: %v\n%s", r.entry.Name, err, truncate(string(out), 8000))
	}
}

func buildAll(t *testing.T, mod string) {
	cmd := exec.Command("go", "build", "-o", filepath.Join(mod, "bin")+string(filepath.Separator), "./...")
	cmd.Dir = mod
	cmd.Env = testenv.GoEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build of the generated corpus servers failed: %v\n%s", err, truncate(string(out), 8000))
	}
}

func listAndCheck(t *testing.T, mod string, r *corpusResult) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command(filepath.Join(mod, "bin", r.entry.Name))
	// Specs without an absolute server URL need one to start; no call
	// is made, so it points at a closed port.
	// The quality rules judge the schemas the server enforces (the
	// complete profile); the client-safe forms other clients are shown
	// are TestClientCompat's to judge.
	cmd.Env = append(os.Environ(), "GOGC=off", strings.ToUpper(r.entry.Name)+"_BASE_URL=http://127.0.0.1:9/",
		strings.ToUpper(r.entry.Name)+"_SCHEMA_PROFILE=complete")
	cmd.Stderr = &r.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "corpus-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting %s: %v\n%s", r.entry.Name, err, r.stderr.String())
	}
	defer cs.Close()
	var tools []quality.Tool
	var cursor string
	for {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		raw, _ := json.Marshal(res.Tools)
		r.listBytes += len(raw)
		var page []quality.Tool
		must(t, json.Unmarshal(raw, &page))
		tools = append(tools, page...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	if len(tools) != r.tools {
		t.Errorf("tools/list returned %d tools, generated %d", len(tools), r.tools)
	}
	r.issues = quality.Check(tools)
	for i, issue := range r.issues {
		if i == 20 {
			t.Errorf("... and %d more quality issues", len(r.issues)-20)
			break
		}
		t.Errorf("quality: %s", issue)
	}
}

func writeTable(t *testing.T, path string, results map[string]*corpusResult) {
	var b strings.Builder
	b.WriteString("| spec | operations | tools | tools/list bytes | ≈ tokens | warnings | generate ms | quality issues |\n|---|---|---|---|---|---|---|---|\n")
	for _, e := range testenv.Corpus() {
		r := results[e.Name]
		if r == nil {
			fmt.Fprintf(&b, "| `%s` | failed | | | | | | |\n", e.Path)
			continue
		}
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d | %d | %d | %d |\n", e.Path, r.ops, r.tools, r.listBytes,
			r.listBytes/4, r.warnings, r.genTime.Milliseconds(), len(r.issues))
	}
	must(t, os.WriteFile(path, []byte(b.String()), 0o644))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n..."
}
