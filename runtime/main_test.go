package runtime

import (
	"bufio"
	"context"
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

func TestRunMainHTTP(t *testing.T) {
	up := testUpstream(t)
	logR, logW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- Main(testSpec(), Options{}, []string{"--transport", "http", "--addr", "127.0.0.1:0", "--base-url", up.URL}, strings.NewReader(""), io.Discard, logW)
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
