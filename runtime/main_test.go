package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestRunMainUsage(t *testing.T) {
	for _, args := range [][]string{{"--transport", "carrier-pigeon"}, {"--bogus"}, {"extra"}, {"--log-level", "loud"}, {"--timeout", "-1s"}} {
		var stderr strings.Builder
		if code := Main(testSpec(), Options{}, args, strings.NewReader(""), io.Discard, &stderr); code != 2 {
			t.Errorf("runMain(%q) = %d, want 2; stderr %s", args, code, stderr.String())
		}
	}
	var stderr strings.Builder
	if code := Main(testSpec(), Options{}, []string{"-h"}, strings.NewReader(""), io.Discard, &stderr); code != 0 || !strings.Contains(stderr.String(), "-base-url") {
		t.Errorf("-h = %d: %s", code, stderr.String())
	}
	// No base URL anywhere is a runtime failure, not a usage error.
	t.Setenv("PETSTORE_BASE_URL", "")
	if code := Main(testSpec(), Options{}, nil, strings.NewReader(""), io.Discard, io.Discard); code != 1 {
		t.Errorf("no base URL = %d, want 1", code)
	}
}

func TestRunMainStdio(t *testing.T) {
	up := testUpstream(t)
	t.Setenv("PETSTORE_BASE_URL", up.URL)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(testSpec(), Options{}, []string{"--log-format", "json"}, inR, outW, &stderr)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_pet", Arguments: map[string]any{"petId": "9"}})
	if err != nil || res.IsError {
		t.Fatalf("stdio call: %v %+v", err, res)
	}
	cs.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("runMain did not return after stdin closed")
	}
	if !strings.Contains(stderr.String(), `"msg":"tools/call","tool":"get_pet","outcome":"ok"`) {
		t.Errorf("stderr lacks the call record: %s", stderr.String())
	}
}

// startMainHTTP runs Main over HTTP on a free port with args added, and
// returns its /mcp endpoint and a stop that signals it and checks a
// clean exit.
func startMainHTTP(t *testing.T, args ...string) (string, func()) {
	t.Helper()
	logR, logW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(testSpec(), Options{}, append([]string{"--transport", "http", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), io.Discard, logW)
		logW.Close()
	}()
	lines := bufio.NewScanner(logR)
	re := regexp.MustCompile(`listening on (http://[^ "]+/mcp)`)
	var endpoint string
	for endpoint == "" && lines.Scan() {
		if m := re.FindStringSubmatch(lines.Text()); m != nil {
			endpoint = m[1]
		}
	}
	go io.Copy(io.Discard, logR)
	if endpoint == "" {
		t.Fatal("no listening line")
	}
	return endpoint, func() {
		t.Helper()
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		select {
		case code := <-done:
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no graceful shutdown")
		}
	}
}

func TestRunMainHTTP(t *testing.T) {
	up := testUpstream(t)
	endpoint, stop := startMainHTTP(t, "--base-url", up.URL)
	resp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("healthz: %v %v", err, resp)
	}
	resp.Body.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_pet", Arguments: map[string]any{"petId": "3"}}); err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	cs.Close()
	stop()
}

// TestRunMainAuthResource: --auth-jwks, --auth-issuer and --auth-resource
// reach the server Main starts, which serves the protected-resource
// metadata beside /mcp.
func TestRunMainAuthResource(t *testing.T) {
	endpoint, stop := startMainHTTP(t, "--base-url", "http://127.0.0.1:9", "--auth-jwks", ecJWKS(t),
		"--auth-issuer", "https://id.example.com", "--auth-audience", "https://mcp.example.com/mcp", "--auth-resource", "https://mcp.example.com/mcp")
	defer stop()
	resp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc.Resource != "https://mcp.example.com/mcp" ||
		len(doc.AuthorizationServers) != 1 || doc.AuthorizationServers[0] != "https://id.example.com" {
		t.Errorf("metadata %+v, %v", doc, err)
	}
}

// listOverStdio runs Main on stdio with args and returns each tool's
// advertised input schema, as a client named client lists them.
func listOverStdio(t *testing.T, client string, args ...string) map[string]string {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(testSpec(), Options{}, args, inR, outW, &stderr)
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("%q: %v; stderr %s", args, err, stderr.String())
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		out[tool.Name] = string(b)
	}
	cs.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Main did not return after stdin closed")
	}
	return out
}

// canonical is a JSON text with its keys sorted.
func canonical(t *testing.T, text string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("%v: %s", err, text)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestRunMainSchemaProfile: --schema-profile (and $PREFIX_SCHEMA_PROFILE)
// forces its profile on a client whose name would choose another
// (claude-*: complete), for every tool; an unknown name is a usage error.
func TestRunMainSchemaProfile(t *testing.T) {
	t.Setenv("PETSTORE_BASE_URL", testUpstream(t).URL)
	t.Setenv("PETSTORE_SCHEMA_PROFILE", "")
	const client = "claude-code"
	want := func(p SchemaProfile) map[string]string {
		m := map[string]string{}
		for _, ts := range testSpec().Tools {
			b, _ := json.Marshal(mcpTool(ts, schemaForm{profile: p}).InputSchema)
			m[ts.Name] = canonical(t, string(b))
		}
		return m
	}
	complete := want(ProfileComplete)
	check := func(what string, p SchemaProfile, got map[string]string) {
		t.Helper()
		exp := want(p)
		differs := p == ProfileComplete
		for name, schema := range exp {
			if g := canonical(t, got[name]); g != schema {
				t.Errorf("%s: %s lists\n%s\nwant the %s form\n%s", what, name, g, p, schema)
			}
			differs = differs || schema != complete[name]
		}
		if !differs {
			t.Errorf("%s: the %s form equals the complete one on every tool: the check proves nothing", what, p)
		}
	}
	check("no flag", ProfileComplete, listOverStdio(t, client))
	for _, p := range schemaProfiles {
		check("--schema-profile "+string(p), p, listOverStdio(t, client, "--schema-profile", string(p)))
	}
	t.Setenv("PETSTORE_SCHEMA_PROFILE", "nullable")
	check("$PETSTORE_SCHEMA_PROFILE=nullable", ProfileNullable, listOverStdio(t, client))
	check("the flag over the environment", ProfilePortable, listOverStdio(t, client, "--schema-profile", "portable"))

	var stderr strings.Builder
	if code := Main(testSpec(), Options{}, []string{"--schema-profile", "fancy"}, strings.NewReader(""), io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "complete, portable, nullable, flat") {
		t.Errorf("--schema-profile fancy = %d, want 2 naming the profiles: %s", code, stderr.String())
	}
}
