//go:build linux && e2e

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// inspectorExitToolError is the Inspector CLI's exit code for a tools/call
// whose result has isError: true (or whose tool was not found).
const inspectorExitToolError = 5

// TestInspector drives the generated petstore server with the MCP Inspector
// CLI: tools/list, a successful tools/call and one that returns isError
// (upstream 404), over stdio and Streamable HTTP, in the older protocol era
// (the Inspector's default: initialize, 2025-11-25) and in the 2026-07-28
// era (a --config file with "protocolEra": "modern"). What the Inspector
// sends is recorded (a tee in front of the stdio server, a proxy in front
// of the HTTP one) to prove which era was spoken.
func TestInspector(t *testing.T) {
	x := requireExternalTools(t)
	bins := buildPetstore(t, x.root)
	backendURL := startBackend(t, bins)
	mcpURL := startMCPServer(t, bins, backendURL)

	type target struct {
		transport, era string
		args           []string // how the Inspector reaches the server
		wire           func() []wireRequest
	}
	var targets []target
	for _, era := range []string{"legacy", "modern"} {
		dir := t.TempDir()
		// stdio: the server runs behind a shell that copies its stdin to a
		// file. The Inspector passes a stdio server only HOME, PATH, SHELL,
		// TERM, USER, LOGNAME and -e/env, so the base URL goes there.
		wireLog := filepath.Join(dir, "stdin.jsonl")
		wrapper := filepath.Join(dir, "petstore-tee")
		must(t, os.WriteFile(wrapper, []byte("#!/bin/sh\ntee -a '"+wireLog+"' | exec '"+bins.server+"' \"$@\"\n"), 0o755))
		stdioWire := func() []wireRequest { return readWireLog(t, wireLog) }
		proxyURL, httpWire := startRecordingProxy(t, mcpURL)
		if era == "legacy" {
			targets = append(targets,
				target{"stdio", era, []string{wrapper, "-e", "PETSTORE_BASE_URL=" + backendURL}, stdioWire},
				target{"http", era, []string{proxyURL, "--transport", "http"}, httpWire})
			continue
		}
		config := map[string]any{"mcpServers": map[string]any{
			"petstore-stdio": map[string]any{"type": "stdio", "command": wrapper, "args": []string{},
				"env": map[string]string{"PETSTORE_BASE_URL": backendURL}, "protocolEra": "modern"},
			"petstore-http": map[string]any{"type": "streamable-http", "url": proxyURL, "protocolEra": "modern"},
		}}
		data, err := json.MarshalIndent(config, "", "  ")
		must(t, err)
		configFile := filepath.Join(dir, "mcp.json")
		must(t, os.WriteFile(configFile, data, 0o644))
		targets = append(targets,
			target{"stdio", era, []string{"--config", configFile, "--server", "petstore-stdio"}, stdioWire},
			target{"http", era, []string{"--config", configFile, "--server", "petstore-http"}, httpWire})
	}

	for _, tg := range targets {
		t.Run(tg.transport+"/"+tg.era, func(t *testing.T) {
			inspect := func(args ...string) runResult {
				all := append([]string{"--cli"}, tg.args...)
				all = append(all, args...)
				all = append(all, "--format", "json")
				res := x.runNode(t, time.Minute, x.inspector, all...)
				t.Logf("mcp-inspector %s: exit %d in %s", strings.Join(args, " "), res.code, res.elapsed.Round(time.Millisecond))
				return res
			}

			res := inspect("--method", "tools/list")
			var list struct {
				Result struct {
					Tools []struct {
						Name        string          `json:"name"`
						InputSchema json.RawMessage `json:"inputSchema"`
					} `json:"tools"`
				} `json:"result"`
			}
			decodeInspector(t, res, 0, &list)
			names := map[string]bool{}
			for _, tool := range list.Result.Tools {
				names[tool.Name] = true
				if tool.Name == "petstore_get_pet" && !strings.Contains(string(tool.InputSchema), `"pet_id"`) {
					t.Errorf("petstore_get_pet inputSchema lacks pet_id: %s", tool.InputSchema)
				}
			}
			if len(list.Result.Tools) != 7 || !names["petstore_get_pet"] {
				t.Errorf("tools/list: %d tools (petstore_get_pet present: %v), want the 7 petstore task tools", len(list.Result.Tools), names["petstore_get_pet"])
			}

			var ok toolResult
			decodeInspector(t, inspect("--method", "tools/call", "--tool-name", "petstore_get_pet", "--tool-arg", "pet_id=1"), 0, &ok)
			if ok.Result.IsError || !strings.Contains(ok.text(), `"id":1`) {
				t.Errorf("petstore_get_pet pet_id=1: isError=%v, text %q", ok.Result.IsError, truncate(ok.text(), 500))
			}
			var pet struct {
				Pet struct {
					ID int `json:"id"`
				} `json:"pet"`
			}
			if err := json.Unmarshal(ok.Result.StructuredContent, &pet); err != nil || pet.Pet.ID != 1 {
				t.Errorf("petstore_get_pet pet_id=1: structuredContent %s (%v), want the pet with id 1", ok.Result.StructuredContent, err)
			}

			var missing toolResult
			res = inspect("--method", "tools/call", "--tool-name", "petstore_get_pet", "--tool-arg", "pet_id=999999")
			decodeInspector(t, res, inspectorExitToolError, &missing)
			if !missing.Result.IsError || !strings.Contains(missing.text(), "404") {
				t.Errorf("petstore_get_pet pet_id=999999: isError=%v, text %q; want isError naming the upstream 404",
					missing.Result.IsError, truncate(missing.text(), 500))
			}
			if !strings.Contains(res.stderr, "tool_is_error") {
				t.Errorf("exit %d without the Inspector's tool_is_error report on stderr:\n%s", res.code, truncate(res.stderr, 2000))
			}

			checkEra(t, tg.era, tg.wire())
		})
	}
}

// toolResult is the Inspector's JSON output of a tools/call.
type toolResult struct {
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	} `json:"result"`
}

func (r toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Result.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// decodeInspector checks the Inspector's exit code and decodes the one
// JSON object it printed on stdout.
func decodeInspector(t *testing.T, res runResult, wantCode int, v any) {
	t.Helper()
	if res.code != wantCode {
		t.Fatalf("mcp-inspector exited %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, wantCode,
			truncate(res.stdout, 4000), truncate(res.stderr, 4000))
	}
	if err := json.Unmarshal([]byte(res.stdout), v); err != nil {
		t.Fatalf("mcp-inspector output is not one JSON object: %v\nstdout:\n%s\nstderr:\n%s", err,
			truncate(res.stdout, 4000), truncate(res.stderr, 4000))
	}
}

// wireRequest is one JSON-RPC message a client sent, as far as the era
// check needs it.
type wireRequest struct {
	Method string `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"` // initialize
		Meta            struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
	} `json:"params"`
}

// checkEra asserts what the Inspector sent: legacy opens with initialize
// for 2025-11-25; modern never initializes and tags every request with
// protocol version 2026-07-28 in params._meta.
func checkEra(t *testing.T, era string, wire []wireRequest) {
	t.Helper()
	var methods []string
	initialized := false
	for _, w := range wire {
		methods = append(methods, w.Method)
		if w.Method == "initialize" {
			initialized = true
			if era == "legacy" && w.Params.ProtocolVersion != "2025-11-25" {
				t.Errorf("initialize asked for %q, want 2025-11-25", w.Params.ProtocolVersion)
			}
		}
		if era == "modern" && w.Method != "" && !strings.HasPrefix(w.Method, "notifications/") &&
			w.Params.Meta.ProtocolVersion != "2026-07-28" {
			t.Errorf("%s carried _meta protocolVersion %q, want 2026-07-28", w.Method, w.Params.Meta.ProtocolVersion)
		}
	}
	if len(wire) == 0 {
		t.Fatal("no request was recorded")
	}
	t.Logf("%s era on the wire: %s", era, strings.Join(methods, ", "))
	switch {
	case era == "legacy" && !initialized:
		t.Errorf("older era without initialize; sent %v", methods)
	case era == "modern" && initialized:
		t.Errorf("2026-07-28 era sent initialize; sent %v", methods)
	}
}

// readWireLog parses the JSON-RPC messages (one a line) copied from a stdio
// server's stdin.
func readWireLog(t *testing.T, path string) []wireRequest {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("stdio wire log: %v", err)
	}
	var out []wireRequest
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, decodeWire(t, line)...)
		}
	}
	return out
}

func decodeWire(t *testing.T, msg []byte) []wireRequest {
	t.Helper()
	msg = bytes.TrimSpace(msg)
	if len(msg) > 0 && msg[0] == '[' {
		var batch []wireRequest
		if err := json.Unmarshal(msg, &batch); err != nil {
			t.Errorf("undecodable JSON-RPC batch %q: %v", truncate(string(msg), 300), err)
		}
		return batch
	}
	var one wireRequest
	if err := json.Unmarshal(msg, &one); err != nil {
		t.Errorf("undecodable JSON-RPC message %q: %v", truncate(string(msg), 300), err)
		return nil
	}
	return []wireRequest{one}
}

// startRecordingProxy serves a reverse proxy to the MCP endpoint on a free
// loopback port and records the JSON-RPC bodies of the POSTs through it.
func startRecordingProxy(t *testing.T, endpoint string) (string, func() []wireRequest) {
	t.Helper()
	target, err := url.Parse(endpoint)
	must(t, err)
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = target.Scheme, target.Host
			r.Out.Host = target.Host
		},
		FlushInterval: -1,
	}
	var mu sync.Mutex
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			mu.Lock()
			bodies = append(bodies, body)
			mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + target.Path, func() []wireRequest {
		mu.Lock()
		defer mu.Unlock()
		var out []wireRequest
		for _, b := range bodies {
			out = append(out, decodeWire(t, b)...)
		}
		return out
	}
}
