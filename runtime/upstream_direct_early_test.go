package runtime

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// earlyServer answers every request on 127.0.0.1 as soon as it has read
// the header block, without reading the body: with answer, a 413 and
// Connection: close; then it closes the connection at once (the unread
// body makes the close a reset) or, with linger, half-closes and drains
// first, as net/http's server does. It counts the connections it took.
func earlyServer(t *testing.T, answer, linger bool) (string, *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					if l, err := br.ReadString('\n'); err != nil || l == "\r\n" {
						break
					}
				}
				if answer {
					_, _ = c.Write([]byte("HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntoo large"))
				}
				if linger {
					_ = c.(*net.TCPConn).CloseWrite()
					_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
					_, _ = io.Copy(io.Discard, c)
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String(), &conns
}

// TestDirectTransportEarlyAnswer: an API that refuses a body and answers
// before reading it gets its answer to the caller, whether it then
// closes at once (the write fails: net/http's Transport, which reads
// while it writes, returns the answer only when its reader wins that
// race) or drains the body first; the connection is not reused. An API
// that closes without answering gives an error, not a hang. Bodies of
// seeded random sizes, all larger than the sockets' buffers.
func TestDirectTransportEarlyAnswer(t *testing.T) {
	r := rand.New(rand.NewPCG(testseed.Seed(t), 1))
	for _, tc := range []struct {
		name           string
		answer, linger bool
	}{{"answer and reset", true, false}, {"answer and drain", true, true}, {"reset without answer", false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			base, conns := earlyServer(t, tc.answer, tc.linger)
			_, direct := newTestTransports()
			for i := range 3 {
				body := bytes.Repeat([]byte("x"), 2<<20+r.IntN(14<<20))
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/upload", bytes.NewReader(body))
				start := time.Now()
				resp, err := direct.RoundTrip(req)
				if !tc.answer {
					cancel()
					if err == nil {
						resp.Body.Close()
						t.Fatalf("call %d: an API that closed without answering gave %d", i, resp.StatusCode)
					}
					if d := time.Since(start); d > 5*time.Second {
						t.Fatalf("call %d: the error took %v", i, d)
					}
					continue
				}
				if err != nil {
					cancel()
					t.Fatalf("call %d (%d bytes): %v; the API's 413 was lost", i, len(body), err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				cancel()
				if resp.StatusCode != http.StatusRequestEntityTooLarge || string(got) != "too large" {
					t.Fatalf("call %d: %d %q, want the API's 413 \"too large\"", i, resp.StatusCode, got)
				}
			}
			if n := conns.Load(); n != 3 {
				t.Fatalf("%d connections for 3 calls: a connection that failed a write was reused", n)
			}
		})
	}
}
