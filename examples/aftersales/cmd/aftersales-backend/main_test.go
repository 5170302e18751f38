package main

import (
	"bufio"
	"context"
	"io"
	"log"
	"net/http"
	"strings"
	"testing"
	"time"
)

// start runs the server on a free port and returns its base URL and a
// function that stops it and checks the shutdown.
func start(t *testing.T, apiKey string) (string, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "127.0.0.1:0", apiKey, pw, log.New(io.Discard, "", 0))
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("reading banner: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "aftersales backend listening on http://")
	if !ok || !strings.HasSuffix(base, "/api") || strings.HasSuffix(base, ":0/api") {
		cancel()
		t.Fatalf("banner = %q", line)
	}
	return "http://" + base, func() {
		t.Helper()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("run returned %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("run did not shut down")
		}
	}
}

func get(t *testing.T, url, key string) int {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestRunServesAndShutsDown(t *testing.T) {
	base, stop := start(t, "")
	if got := get(t, base+"/tickets/T-2026-1001", ""); got != http.StatusOK {
		t.Fatalf("GET ticket status = %d", got)
	}
	stop()
}

func TestRunRequiresAPIKey(t *testing.T) {
	base, stop := start(t, "k1")
	if got := get(t, base+"/tickets/T-2026-1001", ""); got != http.StatusUnauthorized {
		t.Fatalf("without key: status = %d", got)
	}
	if got := get(t, base+"/tickets/T-2026-1001", "k1"); got != http.StatusOK {
		t.Fatalf("with key: status = %d", got)
	}
	stop()
}

func TestRunReportsListenError(t *testing.T) {
	err := run(context.Background(), "256.0.0.1:bad", "", io.Discard, log.New(io.Discard, "", 0))
	if err == nil {
		t.Fatal("expected a listen error")
	}
}
