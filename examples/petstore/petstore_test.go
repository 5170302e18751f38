package petstore_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/examples/petstore"
	"github.com/oa2mcp/oa2mcp/examples/petstore/backend"
)

// The two protocol eras every transport must serve.
var eras = []string{"2026-07-28", "2025-11-25"}

func startBackend(t *testing.T) string {
	hs := httptest.NewServer(backend.NewHandler())
	t.Cleanup(hs.Close)
	return hs.URL + backend.BasePath
}

// connectInMemory serves the generated package in process.
func connectInMemory(t *testing.T, baseURL, era string) *mcp.ClientSession {
	srv, err := petstore.New(petstore.Options{BaseURL: baseURL})
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return connectClient(t, ct, era)
}

func connectClient(t *testing.T, transport mcp.Transport, era string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "petstore-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		t.Fatalf("connect (%s): %v", era, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Errorf("negotiated %s, want %s", got, era)
	}
	return cs
}

// exercise runs the same scenario over any session: the curated task
// tools of examples/petstore/overrides.yaml against the bundled backend.
func exercise(t *testing.T, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 7 {
		t.Errorf("tools/list: %d tools, want 7", len(list.Tools))
	}
	// An aggregated tool: two steps run concurrently and merge.
	pet := call(t, cs, "petstore_get_pet", map[string]any{"pet_id": 1}, false)
	for _, want := range []string{`"pet":{`, `"id":1`, `"stock_by_status":{`, `"shop":"1 at Swagger Petstore"`} {
		if !strings.Contains(pet, want) {
			t.Errorf("petstore_get_pet lacks %s: %s", want, pet)
		}
	}
	// An action tool with list truncation and picked fields.
	found := call(t, cs, "petstore_find_pets", map[string]any{"action": "by_status", "status": "available"}, false)
	for _, want := range []string{`"items":[`, `"totalCount":`, `"hasMore":false`, `"name":`} {
		if !strings.Contains(found, want) {
			t.Errorf("petstore_find_pets lacks %s: %s", want, found)
		}
	}
	if strings.Contains(found, "photoUrls") {
		t.Errorf("petstore_find_pets should pick fields only: %s", found)
	}
	added := call(t, cs, "petstore_manage_pet", map[string]any{"action": "add", "name": "Rex", "photoUrls": []string{"https://example.com/rex.png"}, "status": "pending"}, false)
	if !strings.Contains(added, `"name":"Rex"`) {
		t.Errorf("petstore_manage_pet add: %s", added)
	}
	byTags := call(t, cs, "petstore_find_pets", map[string]any{"action": "by_tags", "tags": []string{"tag1", "tag3"}}, false)
	if !strings.Contains(byTags, `"items":[`) {
		t.Errorf("by_tags: %s", byTags)
	}
	needs := call(t, cs, "petstore_manage_pet", map[string]any{"action": "delete"}, true)
	if !strings.Contains(needs, "petId") {
		t.Errorf("a missing action input should be named: %s", needs)
	}
	missing := call(t, cs, "petstore_get_pet", map[string]any{"pet_id": 999999}, true)
	// The message speaks the tool's language: its input name, a sibling
	// tool that finds pets; never a step id or an upstream path.
	if !strings.Contains(missing, "404") || !strings.Contains(missing, `"pet_id" = 999999`) || !strings.Contains(missing, "petstore_find_pets") {
		t.Errorf("unknown pet should name the input pet_id, a lookup tool and 404: %s", missing)
	}
	for _, never := range []string{"step", "petId", "/pet/"} {
		if strings.Contains(missing, never) {
			t.Errorf("error text contains %q, which the model never saw: %s", never, missing)
		}
	}
	invalid := call(t, cs, "petstore_find_pets", map[string]any{"action": "by_status", "status": "lost"}, true)
	if !strings.Contains(invalid, "status") {
		t.Errorf("invalid enum should name the field: %s", invalid)
	}
	// The server keeps serving after errors.
	call(t, cs, "petstore_count_stock", map[string]any{}, false)
}

// call invokes a tool and checks isError; it returns the text content.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, wantError bool) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError != wantError {
		t.Errorf("%s(%v): isError=%v, want %v: %s", name, args, res.IsError, wantError, text.String())
	}
	if !wantError && res.StructuredContent != nil {
		if _, err := json.Marshal(res.StructuredContent); err != nil {
			t.Errorf("%s: structuredContent: %v", name, err)
		}
	}
	return text.String()
}

func TestInMemory(t *testing.T) {
	base := startBackend(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) { exercise(t, connectInMemory(t, base, era)) })
	}
}

// TestOptionalStepFails breaks the stock endpoint: the aggregated tool
// still answers with the pet and says what is missing.
func TestOptionalStepFails(t *testing.T) {
	api := backend.NewHandler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/store/inventory") {
			http.Error(w, `{"code":500,"message":"inventory database offline"}`, http.StatusInternalServerError)
			return
		}
		api.ServeHTTP(w, r)
	}))
	defer hs.Close()
	cs := connectInMemory(t, hs.URL+backend.BasePath, eras[0])
	got := call(t, cs, "petstore_get_pet", map[string]any{"pet_id": 2}, false)
	for _, want := range []string{`"id":2`, `"warnings":[`, "optional lookup failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("partial result lacks %s: %s", want, got)
		}
	}
	if strings.Contains(got, "stock_by_status") {
		t.Errorf("failed step should not appear as data: %s", got)
	}
}

// buildServer builds cmd/petstore once per test binary run.
func buildServer(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "petstore")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/petstore").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestStdio(t *testing.T) {
	base := startBackend(t)
	bin := buildServer(t)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append(os.Environ(), "PETSTORE_BASE_URL="+base)
			exercise(t, connectClient(t, &mcp.CommandTransport{Command: cmd}, era))
		})
	}
}

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

func TestStreamableHTTP(t *testing.T) {
	base := startBackend(t)
	bin := buildServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", base)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cancel()
		cmd.Wait()
	}()
	endpoint := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				endpoint <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-endpoint:
	case <-time.After(20 * time.Second):
		t.Fatal("server did not report its address")
	}
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			exercise(t, connectClient(t, &mcp.StreamableClientTransport{Endpoint: url}, era))
		})
	}
}
