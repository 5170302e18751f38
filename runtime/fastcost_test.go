package runtime

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	goruntime "runtime"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/fastpath"
)

// Bounds of one fast stdio call (BenchmarkStdioServer's server, access
// log on), allocations and bytes of the whole process: server, the
// in-process upstream and the test's client. A call costs 146
// allocations and 10.4 KiB (2026-12-01; 177 and 14 KiB before plain JSON
// was decoded and encoded without reflection and the upstream called on
// the calling goroutine, 213 and 16 KiB before the result encoder, the
// owner digest and the sensitive-name decisions were made once), through
// go-sdk about 300 and 320 KiB. Counts barely vary from run to run
// (146 or 147): the allocation bound fails when one of those savings is
// lost (arguments and upstream body through encoding/json make 152, the
// result through it 153, net/http's Transport 165), the byte bound when
// calls go to the SDK.
const (
	maxFastCallAllocs = 150
	maxFastCallBytes  = 16 << 10
)

// TestStdioFastCallCost makes fast stdio calls with the access log on
// and bounds their allocations and bytes per call.
func TestStdioFastCallCost(t *testing.T) {
	srv := benchServerLogging(t, slog.New(slog.NewTextHandler(io.Discard, nil)))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go srv.RunStdio(context.Background(), inR, outW)
	t.Cleanup(func() { inW.Close() })
	out := bufio.NewReader(outR)
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := out.ReadSlice('\n'); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{` + modernMeta + `}}`)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + modernMeta + `,"name":"get_pet","arguments":{"petId":1}}}`
	for range 50 { // warm: the probe, pools, the connection
		send(call)
	}
	before := srv.fastCalls.Load()
	const calls = 500
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	for range calls {
		send(call)
	}
	goruntime.ReadMemStats(&m1)
	served := srv.fastCalls.Load() - before
	allocs := (m1.Mallocs - m0.Mallocs) / calls
	bytes := (m1.TotalAlloc - m0.TotalAlloc) / calls
	t.Logf("per call: %d allocations, %d bytes; the fast path served %d of %d", allocs, bytes, served, calls)
	if !fastpath.Compiled {
		if served != 0 {
			t.Errorf("compiled out, the fast path served %d calls", served)
		}
		return // every call went through go-sdk: the bounds are the fast path's
	}
	if served != calls {
		t.Fatalf("the fast path served %d of %d calls", served, calls)
	}
	maxAllocs := uint64(maxFastCallAllocs)
	if raceDetector {
		maxAllocs += 24 // pools drop buffers at random (193 on 2026-12-01)
	}
	if allocs > maxAllocs || bytes > maxFastCallBytes {
		t.Errorf("a fast call costs %d allocations and %d bytes, above the bounds %d and %d", allocs, bytes, maxAllocs, maxFastCallBytes)
	}
}
