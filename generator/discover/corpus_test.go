package discover_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/emit"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
)

const (
	// maxListBytes bounds tools/list of any API in discovery mode.
	maxListBytes = 10 * 1024
	// maxIndexShare bounds the index against the rest of the code.
	maxIndexShare = 0.30
)

func loadCorpus(t *testing.T, e testenv.CorpusEntry) *load.Document {
	t.Helper()
	doc, problems := load.Load(context.Background(), filepath.Join(testenv.CorpusDir(t), e.Path), load.Options{})
	if problems.HasErrors() {
		t.Fatalf("%s: %v", e.Path, problems.Errors())
	}
	return doc
}

func build(t *testing.T, doc *load.Document, cfg mapping.Config) *ir.Server {
	t.Helper()
	srv, problems := mapping.Build(doc, cfg)
	if problems.HasErrors() {
		t.Fatalf("%s: %v", doc.File, problems.Errors())
	}
	return srv
}

// TestToolsListSmall serves every corpus spec in discovery mode and
// measures tools/list: at most 10 KB however large the API.
func TestToolsListSmall(t *testing.T) {
	for _, e := range testenv.Corpus() {
		doc := loadCorpus(t, e)
		srv := build(t, doc, mapping.Config{Name: e.Name, Discover: true})
		if len(doc.Operations) == 0 {
			// Only webhooks: nothing to discover, so no discovery tools.
			if srv.Discovery != nil {
				t.Errorf("%s: discovery without operations", e.Name)
			}
			continue
		}
		if srv.Discovery == nil || len(srv.Tools) != 0 {
			t.Fatalf("%s: discovery %v, %d tools: want discovery and no tools", e.Name, srv.Discovery != nil, len(srv.Tools))
		}
		def := srv.ServerDef
		start := time.Now()
		s, err := runtime.NewServer(&def, runtime.Options{BaseURL: "http://127.0.0.1:9"})
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		took := time.Since(start)
		n := listBytes(t, s)
		t.Logf("%-20s %5d operations, tools/list %5d bytes, NewServer %s", e.Name, len(def.Discovery.Operations), n, took)
		if n > maxListBytes {
			t.Errorf("%s: tools/list is %d bytes; want at most %d", e.Name, n, maxListBytes)
		}
		s.Close()
	}
}

// listBytes is the size of the server's tools as tools/list sends them.
func listBytes(t *testing.T, s *runtime.Server) int {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCPServer().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "size", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Tools)
	return len(b)
}

// TestSameAsDefaultMapping: each discoverable operation is the tool the
// default mapping makes of it (the same name, schema, call and hints),
// what it returns aside.
func TestSameAsDefaultMapping(t *testing.T) {
	for _, name := range []string{"stripe", "slack"} {
		e := corpusEntry(t, name)
		doc := loadCorpus(t, e)
		plain := build(t, doc, mapping.Config{Name: e.Name, Bounds: unbounded})
		disc := build(t, doc, mapping.Config{Name: e.Name, Discover: true})
		if len(plain.Tools) != len(disc.Discovery.Operations) {
			t.Fatalf("%s: %d tools, %d discoverable operations", name, len(plain.Tools), len(disc.Discovery.Operations))
		}
		byName := map[string]*runtime.Tool{}
		for _, op := range disc.Discovery.Operations {
			byName[op.Tool.Name] = op.Tool
		}
		for _, want := range plain.Tools {
			got := byName[want.Name]
			if got == nil {
				t.Errorf("%s: no discoverable operation named %s", name, want.Name)
				continue
			}
			wantOp, _ := json.Marshal(want.Op)
			gotOp, _ := json.Marshal(got.Op)
			if got.InputSchema != want.InputSchema || !bytes.Equal(gotOp, wantOp) ||
				got.ReadOnly != want.ReadOnly || got.Destructive != want.Destructive || got.Idempotent != want.Idempotent {
				t.Errorf("%s: %s differs from its default tool", name, want.Name)
			}
		}
	}
}

func corpusEntry(t *testing.T, name string) testenv.CorpusEntry {
	t.Helper()
	for _, e := range testenv.Corpus() {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("no corpus entry %s", name)
	return testenv.CorpusEntry{}
}

// TestGeneratedCode generates Kubernetes in discovery mode twice at once
// (same bytes) and checks what the index adds to the code.
func TestGeneratedCode(t *testing.T) {
	e := corpusEntry(t, "kubernetes")
	doc := loadCorpus(t, e)
	var wg sync.WaitGroup
	files := make([]map[string][]byte, 2)
	for i := range files {
		wg.Go(func() {
			res, problems := generator.Generate(doc, generator.Config{Name: e.Name, ImportPath: "example.com/k8s", Discover: true, NoCallTests: true})
			if problems.HasErrors() {
				t.Error(problems.Errors())
				return
			}
			files[i] = res.Files
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	var names []string
	index, code := 0, 0
	for n, b := range files[0] {
		names = append(names, n)
		if !bytes.Equal(b, files[1][n]) {
			t.Errorf("%s differs between two runs", n)
		}
		switch {
		case n == emit.IndexFile:
			index += len(b)
		case strings.HasSuffix(n, ".go"):
			code += len(b)
		}
	}
	sort.Strings(names)
	share := float64(index) / float64(code)
	t.Logf("kubernetes: %d files, index %d bytes, other Go code %d bytes: the index adds %.1f%%", len(names), index, code, 100*share)
	if index == 0 || share > maxIndexShare {
		t.Errorf("the index is %d bytes against %d of other code; want at most %.0f%%", index, code, 100*maxIndexShare)
	}
}
