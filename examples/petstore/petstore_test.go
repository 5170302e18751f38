package petstore_test

import (
	"bufio"
	"context"
	"encoding/json"
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

// exercise runs the same scenario over any session.
func exercise(t *testing.T, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 19 {
		t.Errorf("tools/list: %d tools, want 19", len(list.Tools))
	}
	ok := call(t, cs, "get_pet_by_id", map[string]any{"petId": 1}, false)
	if !strings.Contains(ok, `"id":1`) {
		t.Errorf("get_pet_by_id 1: %s", ok)
	}
	added := call(t, cs, "add_pet", map[string]any{"name": "Rex", "photoUrls": []string{"https://example.com/rex.png"}, "status": "pending"}, false)
	if !strings.Contains(added, `"name":"Rex"`) {
		t.Errorf("add_pet: %s", added)
	}
	found := call(t, cs, "find_pets_by_tags", map[string]any{"tags": []string{"tag1", "tag3"}}, false)
	if !strings.Contains(found, `"result"`) && !strings.Contains(found, `"name"`) {
		t.Errorf("find_pets_by_tags: %s", found)
	}
	missing := call(t, cs, "get_pet_by_id", map[string]any{"petId": 999999}, true)
	if !strings.Contains(missing, "404") {
		t.Errorf("unknown pet should name 404: %s", missing)
	}
	invalid := call(t, cs, "find_pets_by_status", map[string]any{"status": "lost"}, true)
	if !strings.Contains(invalid, "status") {
		t.Errorf("invalid enum should name the field: %s", invalid)
	}
	// The server keeps serving after errors.
	call(t, cs, "get_inventory", map[string]any{}, false)
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
