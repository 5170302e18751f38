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

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, "127.0.0.1:0", pw, log.New(io.Discard, "", 0))
		pw.Close()
	}()

	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading banner: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	base, ok := strings.CutPrefix(strings.TrimSpace(line), "petstore backend listening on ")
	if !ok || !strings.HasSuffix(base, "/api/v3") || strings.HasSuffix(base, ":0/api/v3") {
		t.Fatalf("banner = %q", line)
	}

	resp, err := http.Get(base + "/pet/1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET pet/1 status = %d", resp.StatusCode)
	}

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

func TestRunReportsListenError(t *testing.T) {
	err := run(context.Background(), "256.0.0.1:bad", io.Discard, log.New(io.Discard, "", 0))
	if err == nil {
		t.Fatal("expected a listen error")
	}
}
