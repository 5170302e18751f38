package runtime

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"math"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// badSchema does not compile: an unknown type and a negative minLength.
const badSchema = `{"type":"object","properties":{"a":{"type":"strng","minLength":-1}}}`

// TestBadSchemaReported: a schema the runtime cannot compile never goes
// unnoticed. A hand-written tool's fails NewServer; a generated tool's
// (compiled on first use, the generator having compiled it already)
// fails each call of that tool with an internal error naming the schema,
// and logs it, while the other tools work.
func TestBadSchemaReported(t *testing.T) {
	up := testUpstream(t).URL
	written := &Tool{Name: "hand", Description: "Hand-written.", InputSchema: badSchema,
		Handler: func(context.Context, *Call) (any, error) { return map[string]any{}, nil }}
	if _, err := NewServer(testSpec(), Options{Getenv: testEnv(up), Tools: []*Tool{written}}); err == nil ||
		!strings.Contains(err.Error(), `tool "hand": input schema does not compile`) || !strings.Contains(err.Error(), "strng") {
		t.Fatalf("NewServer with a hand-written tool's bad schema: %v", err)
	}

	def := testSpec()
	def.Tools = append(def.Tools, &Tool{Name: "broken", Description: "Broken.", InputSchema: badSchema,
		Op: &Operation{Method: "GET", Path: "/pets"}})
	logs := &syncBuffer{}
	srv, err := NewServer(def, Options{Getenv: testEnv(up), Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	for range 2 { // the error stays: every call reports it
		res, err := srv.CallTool(context.Background(), "broken", map[string]any{"a": "x"})
		if err != nil || !res.IsError {
			t.Fatalf("call of the broken tool: %v %s", err, resultText(res))
		}
	}
	res, _ := srv.CallTool(context.Background(), "broken", map[string]any{})
	if got := resultText(res); !strings.Contains(got, "broken cannot check its arguments: its input schema does not compile") ||
		!strings.Contains(got, "strng") || !strings.Contains(got, "[error kind: internal") {
		t.Errorf("result: %s", got)
	}
	if !strings.Contains(logs.String(), "tool input schema does not compile") {
		t.Errorf("no error logged:\n%s", logs.String())
	}
	if res, _ := srv.CallTool(context.Background(), "get_pet", map[string]any{"petId": "1"}); res.IsError {
		t.Errorf("another tool fails: %s", resultText(res))
	}
}

// TestSchemasCompiledOnFirstCall: NewServer leaves a generated tool's
// input schema to its first call (cold start of large tool tables), and
// compiles a hand-written tool's at once.
func TestSchemasCompiledOnFirstCall(t *testing.T) {
	written := &Tool{Name: "hand", Description: "Hand-written.", InputSchema: `{"type":"object"}`,
		Handler: func(context.Context, *Call) (any, error) { return map[string]any{}, nil }}
	srv, err := NewServer(testSpec(), Options{Getenv: testEnv(testUpstream(t).URL), Tools: []*Tool{written}})
	if err != nil {
		t.Fatal(err)
	}
	if srv.tools["get_pet"].schema != nil {
		t.Error("get_pet's input schema compiled by NewServer")
	}
	if srv.tools["hand"].schema == nil {
		t.Error("the hand-written tool's input schema not compiled by NewServer")
	}
	if res, _ := srv.CallTool(context.Background(), "get_pet", map[string]any{"petId": ""}); !res.IsError {
		t.Error("an invalid argument passed")
	}
	if srv.tools["get_pet"].schema == nil {
		t.Error("get_pet's input schema not compiled by its call")
	}
}

// TestSoftMemoryLimit: 13 MiB for a small server, twice the heap for a
// large tool table (a limit below the live heap makes the GC run without
// pause).
func TestSoftMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		inUse uint64
		want  int64
	}{{0, 13 << 20}, {3 << 20, 13 << 20}, {6 << 20, 13 << 20}, {20 << 20, 40 << 20}} {
		if got := softMemoryLimit(tc.inUse); got != tc.want {
			t.Errorf("softMemoryLimit(%d) = %d, want %d", tc.inUse, got, tc.want)
		}
	}
}

// TestMainTunesGC: Main raises the GC target and sets the soft memory
// limit (after NewServer) when the environment sets neither.
func TestMainTunesGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	var stderr bytes.Buffer
	if code := Main(testSpec(), Options{Getenv: testEnv("http://127.0.0.1:9")}, nil, strings.NewReader(""), io.Discard, &stderr); code != 0 {
		t.Fatalf("Main: exit %d: %s", code, stderr.String())
	}
	if limit := debug.SetMemoryLimit(-1); limit != 13<<20 {
		t.Errorf("soft memory limit %d, want %d", limit, 13<<20)
	}
	if pct := debug.SetGCPercent(-1); pct != 400 {
		t.Errorf("GC percent %d, want 400", pct)
	}
}

// TestHeapInUseSeesTheHeap: the heap size the soft limit is computed from
// counts a live 32 MiB block, and drops once it is collected.
func TestHeapInUseSeesTheHeap(t *testing.T) {
	block := make([]byte, 32<<20)
	block[len(block)-1] = 1
	with := heapInUse()
	if with < 32<<20 {
		t.Fatalf("heapInUse() = %d with a live 32 MiB block", with)
	}
	keep(block)
	block = nil
	goruntime.GC()
	if without := heapInUse(); without > with-16<<20 {
		t.Errorf("heapInUse() = %d after the block was collected, %d before", without, with)
	}
}

// keep makes b live up to here.
//
//go:noinline
func keep(b []byte) { _ = b[len(b)-1] }
