package runtime

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// stderrRecorder records what reaches stderr, each write taking a while, and
// the largest batch.
type stderrRecorder struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	delay   time.Duration
	largest int
}

func (w *stderrRecorder) Write(p []byte) (int, error) {
	time.Sleep(w.delay)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.largest = max(w.largest, len(p))
	return w.buf.Write(p)
}

func (w *stderrRecorder) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestLogWriterKeepsEveryRecord: random writers log records at random
// moments, then Close comes at a random moment, some writers still
// logging; every record logged before Close returned is written exactly
// once, whole and in each writer's order, and no write exceeds the
// buffer's bound by more than a record.
func TestLogWriterKeepsEveryRecord(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 3))
	for round := range 30 {
		out := &stderrRecorder{delay: time.Duration(r.IntN(300)) * time.Microsecond}
		lw := newLogWriter(out)
		writers, perWriter := 1+r.IntN(8), 1+r.IntN(200)
		largestRecord := 0
		var wg sync.WaitGroup
		logged := make([]int, writers) // records each writer saw accepted
		for w := range writers {
			wg.Add(1)
			pause := time.Duration(r.IntN(50)) * time.Microsecond
			size := 10 + r.IntN(3000)
			largestRecord = max(largestRecord, size+20)
			go func() {
				defer wg.Done()
				for i := range perWriter {
					rec := fmt.Sprintf("w%d r%d %s\n", w, i, strings.Repeat("x", size))
					if _, err := lw.Write([]byte(rec)); err != nil {
						return
					}
					logged[w] = i + 1
					time.Sleep(pause)
				}
			}()
		}
		time.Sleep(time.Duration(r.IntN(20)) * time.Millisecond)
		wg.Wait()
		if err := lw.Close(); err != nil {
			t.Fatal(err)
		}
		next := make([]int, writers)
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			var w, i int
			if _, err := fmt.Sscanf(line, "w%d r%d", &w, &i); err != nil || w >= writers {
				t.Fatalf("seed %d round %d: a torn or foreign line: %.80q", seed, round, line)
			}
			if i != next[w] {
				t.Fatalf("seed %d round %d: writer %d's record %d came where %d was due", seed, round, w, i, next[w])
			}
			next[w]++
		}
		for w := range writers {
			if next[w] != logged[w] {
				t.Fatalf("seed %d round %d: writer %d logged %d records, %d reached stderr", seed, round, w, logged[w], next[w])
			}
		}
		if bound := logMaxBuffered + writers*largestRecord; out.largest > bound {
			t.Fatalf("seed %d round %d: one write carried %d bytes, over the bound %d (%d and a record per writer)", seed, round, out.largest, bound, logMaxBuffered)
		}
	}
}

// TestLogWriterFlushesInTime: a lone record reaches stderr within
// logFlushDelay (and a generous margin for a loaded machine), without
// Close.
func TestLogWriterFlushesInTime(t *testing.T) {
	out := &stderrRecorder{}
	lw := newLogWriter(out)
	defer lw.Close()
	start := time.Now()
	_, _ = lw.Write([]byte("one record\n"))
	for out.String() == "" {
		if time.Since(start) > logFlushDelay+2*time.Second {
			t.Fatalf("a record waited over %v", time.Since(start))
		}
		time.Sleep(time.Millisecond)
	}
}

// A generated server as a real process: the test binary runs Main when
// OA2MCP_LOG_HELPER names the upstream.
func TestMain(m *testing.M) {
	if base := os.Getenv("OA2MCP_LOG_HELPER"); base != "" {
		os.Setenv("PETSTORE_BASE_URL", base)
		os.Exit(Main(testSpec(), Options{}, []string{"--log-format", "json"}, os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestNoRecordLostAtExit: a stdio server process gets a call and, right
// after it, the end of its input or SIGTERM; the call is answered, the
// process exits within bounds, and every answered call has its log
// record on stderr. Rounds alternate the two ends and the pause before
// them.
func TestNoRecordLostAtExit(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"9","name":"doggie"}`)
	}))
	defer up.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 4))
	for round := range 8 {
		byStdin := round%2 == 0
		pause := time.Duration(r.IntN(3000)) * time.Microsecond
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "OA2MCP_LOG_HELPER="+up.URL)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		lines.Buffer(nil, 1<<20)
		send := func(s string) { _, _ = io.WriteString(stdin, s+"\n") }
		await := func(id string) bool {
			for lines.Scan() {
				if strings.HasPrefix(lines.Text(), `{"jsonrpc":"2.0","id":`+id+`,`) {
					return true
				}
			}
			return false
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if !await("1") {
			t.Fatalf("round %d: no answer to initialize; stderr: %s", round, stderr.String())
		}
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		call := func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_pet","arguments":{"petId":"9"}}}`, id)
		}
		send(call(2)) // taught to the fast path by the SDK's answer
		if !await("2") {
			t.Fatalf("round %d: no answer to the first call", round)
		}
		send(call(3))
		time.Sleep(pause)
		if byStdin {
			stdin.Close()
		} else {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		answered3 := await("3")
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("seed %d round %d: the server did not exit within 10 s", seed, round)
		}
		if byStdin && !answered3 {
			t.Fatalf("seed %d round %d: the call sent right before the end of input was not answered", seed, round)
		}
		want := 1
		if answered3 {
			want = 2
		}
		if got := strings.Count(stderr.String(), `"msg":"tools/call"`); got != want {
			t.Fatalf("seed %d round %d (stdin closed %v, pause %v): %d calls answered, %d log records:\n%s", seed, round, byStdin, pause, want, got, stderr.String())
		}
	}
}
