//go:build linux && e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// compatIdentities are the clientInfo names the client paths list tools
// under (clientcompat/check.mjs, check.py): an application-named client
// (the JS SDKs take one the application builds), the LangChain adapter's
// own, and the Python MCP SDK's default, which both Python agent SDKs send.
var compatIdentities = []string{"app", "@langchain/mcp-adapters", "mcp"}

// compatProtocol is the newest protocol the client libraries under test
// speak (@modelcontextprotocol/sdk's latest): listed at 2026-07-28, tools
// keep x-mcp-header for the Mcp-Param headers only such clients send.
const compatProtocol = "2025-11-25"

// compatServer is one server's tools/list under one identity.
type compatServer struct {
	Server   string            `json:"server"`
	Identity string            `json:"identity"`
	Tools    []json.RawMessage `json:"tools"`
	bytes    int
}

// compatRow is one client path's verdict on one tool.
type compatRow struct {
	Server   string   `json:"server"`
	Path     string   `json:"path"`
	Tool     string   `json:"tool"`
	Problems []string `json:"problems"`
}

// TestClientCompat runs the client libraries' own schema conversion code
// (clientcompat/) over every tool of both examples and of the default
// mapping of every corpus spec, as each server lists them to each client
// identity, and fails on every tool a path refuses or changes. It prints
// accepted/total per path and server (and writes the table to
// $OA2MCP_CLIENTCOMPAT_TABLE when set).
func TestClientCompat(t *testing.T) {
	x := requireExternalTools(t)
	requireClientPackages(t, x.root)
	var servers []*compatServer
	servers = append(servers, listExamples(t, x.root)...)
	servers = append(servers, listCorpus(t)...)

	// $OA2MCP_CLIENTCOMPAT_DIR keeps the lists and verdicts for a look.
	dir := os.Getenv("OA2MCP_CLIENTCOMPAT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	toolsFile := filepath.Join(dir, "tools.json")
	data, err := json.Marshal(map[string]any{"servers": servers})
	must(t, err)
	must(t, os.WriteFile(toolsFile, data, 0o644))

	clients := testenv.PythonClientsDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	py := exec.CommandContext(ctx, "python3", filepath.Join(x.root, "clientcompat", "check.py"), clients, toolsFile)
	var pyErr bytes.Buffer
	py.Stderr = &pyErr
	pyOut, err := py.Output()
	if err != nil {
		t.Fatalf("clientcompat/check.py: %v\n%s", err, truncate(pyErr.String(), 4000))
	}
	pyFile := filepath.Join(dir, "python.jsonl")
	must(t, os.WriteFile(pyFile, pyOut, 0o644))
	res := x.runNode(t, 10*time.Minute, filepath.Join(x.root, "clientcompat", "check.mjs"),
		filepath.Join(x.root, ".cache", "node", "node_modules"), toolsFile, pyFile)
	if res.code != 0 {
		t.Fatalf("clientcompat/check.mjs exited %d\n%s", res.code, truncate(res.stderr, 4000))
	}
	must(t, os.WriteFile(filepath.Join(dir, "verdicts.jsonl"), []byte(res.stdout), 0o644))
	rows := parseCompatRows(t, res.stdout)
	table := compatTable(servers, rows)
	t.Logf("client compatibility (accepted/total):\n%s", table)
	if path := os.Getenv("OA2MCP_CLIENTCOMPAT_TABLE"); path != "" {
		must(t, os.WriteFile(path, []byte(table), 0o644))
	}
	failed := 0
	for _, r := range rows {
		if len(r.Problems) == 0 {
			continue
		}
		if failed++; failed <= 40 {
			t.Errorf("%s %s %s: %s", r.Path, r.Server, r.Tool, strings.Join(r.Problems, "; "))
		}
	}
	if failed > 40 {
		t.Errorf("... and %d more refused or changed tools", failed-40)
	}
}

// requireClientPackages checks that the client libraries are installed at
// the versions scripts/lib-node.sh pins (OA2MCP_CLIENT_PACKAGES).
func requireClientPackages(t *testing.T, root string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "scripts", "lib-node.sh"))
	must(t, err)
	block := regexp.MustCompile(`(?s)OA2MCP_CLIENT_PACKAGES=\((.*?)\)`).FindSubmatch(data)
	if block == nil {
		t.Fatal("scripts/lib-node.sh: no OA2MCP_CLIENT_PACKAGES=( ... ) list")
	}
	for _, spec := range strings.Fields(string(block[1])) {
		at := strings.LastIndex(spec, "@")
		pkg, want := spec[:at], spec[at+1:]
		got := packageVersion(filepath.Join(root, ".cache", "node", "node_modules", pkg, "package.json"))
		if got != want {
			t.Fatalf("%s is %q in .cache/node, want %s; %s", pkg, got, want, installHint)
		}
	}
}

// listExamples builds both examples and lists their tools over stdio, as
// a real client would, under every identity.
func listExamples(t *testing.T, root string) []*compatServer {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator),
		"./examples/petstore/cmd/petstore", "./examples/aftersales/cmd/aftersales")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the examples: %v\n%s", err, truncate(string(out), 8000))
	}
	var out []*compatServer
	for _, name := range []string{"petstore", "aftersales"} {
		for _, id := range compatIdentities {
			// No call is made: the base URL points at a closed port.
			bin := exec.Command(filepath.Join(dir, name), "--base-url", "http://127.0.0.1:9/")
			out = append(out, listAs(t, name, id, &mcp.CommandTransport{Command: bin}))
		}
	}
	return out
}

// listCorpus generates the default mapping of every corpus spec and serves
// it in process (the runtime that generated servers run), under every
// identity.
func listCorpus(t *testing.T) []*compatServer {
	t.Helper()
	corpus := testenv.CorpusDir(t)
	var out []*compatServer
	for _, e := range testenv.Corpus() {
		doc, problems := load.Load(context.Background(), filepath.Join(corpus, e.Path), load.Options{})
		if problems.HasErrors() {
			t.Fatalf("%s: %s", e.Path, problems.Errors().Error())
		}
		// The mapping alone: what generate would write, without its proof
		// (TestCorpus runs that) and rendering.
		model, more := mapping.Build(doc, mapping.Config{Name: e.Name, ImportPath: "corpus/" + e.Name, Source: e.Path, Bounds: mapping.Unbounded()})
		if more.HasErrors() {
			t.Fatalf("%s: %s", e.Path, more.Errors().Error())
		}
		srv, err := runtime.NewServer(cases.Definition(model), runtime.Options{
			BaseURL: "http://127.0.0.1:9/", Getenv: func(string) string { return "" }})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		for _, id := range compatIdentities {
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.MCPServer().Connect(context.Background(), st, nil)
			must(t, err)
			out = append(out, listAs(t, e.Name, id, ct))
			ss.Close()
		}
	}
	return out
}

// listAs lists every tool of a server as a client named identity sees them.
func listAs(t *testing.T, server, identity string, transport mcp.Transport) *compatServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: identity, Version: "1"}, nil)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: compatProtocol})
	if err != nil {
		t.Fatalf("%s: connect: %v", server, err)
	}
	defer cs.Close()
	s := &compatServer{Server: server, Identity: identity, Tools: []json.RawMessage{}}
	var cursor string
	for {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			t.Fatalf("%s: tools/list: %v", server, err)
		}
		for _, tool := range res.Tools {
			raw, err := json.Marshal(tool)
			must(t, err)
			s.bytes += len(raw)
			s.Tools = append(s.Tools, raw)
		}
		if cursor = res.NextCursor; cursor == "" {
			return s
		}
	}
}

func parseCompatRows(t *testing.T, out string) []compatRow {
	t.Helper()
	var rows []compatRow
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var r compatRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("check.mjs printed %q: %v", truncate(sc.Text(), 300), err)
		}
		rows = append(rows, r)
	}
	must(t, sc.Err())
	if len(rows) == 0 {
		t.Fatal("check.mjs judged no tool")
	}
	return rows
}

// compatTable renders accepted/total per server (rows) and client path
// (columns), then the tools/list bytes each identity received.
func compatTable(servers []*compatServer, rows []compatRow) string {
	type key struct{ server, path string }
	ok, total := map[key]int{}, map[key]int{}
	pathSet := map[string]bool{}
	for _, r := range rows {
		k := key{r.Server, r.Path}
		pathSet[r.Path] = true
		total[k]++
		if len(r.Problems) == 0 {
			ok[k]++
		}
	}
	var paths []string
	for p := range pathSet {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var names []string
	bytesOf := map[string][]string{}
	for _, s := range servers {
		if len(bytesOf[s.Server]) == 0 {
			names = append(names, s.Server)
		}
		bytesOf[s.Server] = append(bytesOf[s.Server], fmt.Sprintf("%d", s.bytes))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| server | %s | tools/list bytes (%s) |\n|---|%s---|\n", strings.Join(paths, " | "),
		strings.Join(compatIdentities, ", "), strings.Repeat("---|", len(paths)))
	for _, n := range names {
		fmt.Fprintf(&b, "| %s |", n)
		for _, p := range paths {
			fmt.Fprintf(&b, " %d/%d |", ok[key{n, p}], total[key{n, p}])
		}
		fmt.Fprintf(&b, " %s |\n", strings.Join(bytesOf[n], ", "))
	}
	return b.String()
}
