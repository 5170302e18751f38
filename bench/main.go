// Command bench measures the per-call overhead of a generated oa2mcp
// server (the committed examples/petstore server, tool petstore_count_stock, a one-operation tool)
// against a direct net/http call to the same loopback backend, in one run:
//
//	direct  net/http GET /store/inventory on a shared client
//	inmem   go-sdk client -> in-process server over the SDK's in-memory transports (MCPServer().Connect)
//	inmemio go-sdk client -> in-process server over Server.InMemoryTransport (ServeIO, fast path)
//	stdio   go-sdk client -> server binary over stdio
//	rawstdio minimal pipelining JSON-RPC client -> server binary over stdio
//	http    go-sdk client -> server binary over Streamable HTTP
//
// The backend runs as its own process (cmd/petstore-backend); client,
// server and backend share the machine's cores. Use bench/run.sh, which
// builds the binaries and prints the tables.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/bench/internal/proc"
	"github.com/oa2mcp/oa2mcp/examples/petstore"
)

var (
	serverBin  = flag.String("server", "", "built examples/petstore/cmd/petstore")
	backendBin = flag.String("backend", "", "built examples/petstore/cmd/petstore-backend")
	calls      = flag.Int("n", 2000, "measured calls per mode")
	warm       = flag.Int("warmup", 300, "warm-up calls per mode")
	conc       = flag.Int("c", 8, "concurrent callers")
	modes      = flag.String("modes", "direct,inmem,inmemio,stdio,rawstdio,http", "modes to run, in order")
	cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the in-memory modes (client and server) here")
	toolName   = flag.String("tool", "petstore_count_stock", "tool to call (e.g. get_pet_by_id of a default-mapped petstore)")
	toolArgs   = flag.String("args", "{}", "the tool's arguments, a JSON object")
	directPath = flag.String("direct", "/store/inventory", "the backend path the direct mode GETs (the tool's operation)")
)

type result struct {
	mode, client     string
	n                int
	elapsed          time.Duration
	p50, p99         time.Duration
	errors           int64
	rssIdle, rssPeak int64 // KiB of the server process; 0: n/a
	// CPU time per measured call of the bench process (client, and the
	// in-process server in memory), the server process and the backend.
	clientCPU, serverCPU, backendCPU time.Duration
}

func main() {
	flag.Parse()
	if *serverBin == "" || *backendBin == "" {
		fmt.Fprintln(os.Stderr, "usage: bench -server BIN -backend BIN [-n 2000] [-c 8]")
		os.Exit(2)
	}
	backend, base := startBackend()
	defer backend.Process.Kill()
	var results []result
	for _, m := range strings.Split(*modes, ",") {
		var r result
		switch m {
		case "direct":
			r = runDirect(base)
		case "inmem":
			r = runInMem(base)
		case "inmemio":
			r = runInMemIO(base)
		case "stdio":
			r = runStdio(base)
		case "rawstdio":
			r = runRawStdio(base)
		case "http":
			r = runHTTP(base)
		default:
			fmt.Fprintf(os.Stderr, "unknown mode %q\n", m)
			os.Exit(2)
		}
		results = append(results, r)
	}
	printTable(results)
}

func startBackend() (*exec.Cmd, string) {
	cmd := exec.Command(*backendBin, "--addr", "127.0.0.1:0")
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	must(cmd.Start())
	backendPID = cmd.Process.Pid
	line, _ := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`(http://\S+)`).FindString(line)
	if m == "" {
		panic("backend did not announce its URL: " + line)
	}
	go io.Copy(io.Discard, out)
	return cmd, m
}

// measure runs warm-up then n calls over c workers.
func measure(mode, client string, call func() error) result {
	return measureProc(mode, client, 0, call)
}

// measureProc is measure, also taking the CPU time of the server process
// serverPID (0: none) and of the backend over the measured calls.
func measureProc(mode, client string, serverPID int, call func() error) result {
	run := func(n int) ([]time.Duration, time.Duration, int64) {
		lat := make([]time.Duration, n)
		var next, errs atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := 0; w < *conc; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := next.Add(1) - 1
					if i >= int64(n) {
						return
					}
					t0 := time.Now()
					if err := call(); err != nil {
						if errs.Add(1) == 1 {
							fmt.Fprintf(os.Stderr, "%s: %v\n", mode, err)
						}
					}
					lat[i] = time.Since(t0)
				}
			}()
		}
		wg.Wait()
		return lat, time.Since(start), errs.Load()
	}
	run(*warm)
	c0, s0, b0 := selfCPU(), proc.CPU(serverPID), proc.CPU(backendPID)
	lat, elapsed, errs := run(*calls)
	c1, s1, b1 := selfCPU(), proc.CPU(serverPID), proc.CPU(backendPID)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	per := func(d time.Duration) time.Duration { return d / time.Duration(*calls) }
	r := result{mode: mode, client: client, n: *calls, elapsed: elapsed, p50: lat[len(lat)/2], p99: lat[len(lat)*99/100], errors: errs,
		clientCPU: per(c1 - c0), backendCPU: per(b1 - b0)}
	if serverPID != 0 {
		r.serverCPU = per(s1 - s0)
	}
	return r
}

// backendPID is the backend process, for its CPU time.
var backendPID int

// selfCPU is the user+system CPU time of this process so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runDirect(base string) result {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	return measure("direct HTTP", "net/http", func() error {
		resp, err := hc.Get(base + *directPath)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		return err
	})
}

func sdkCall(cs *mcp.ClientSession) func() error {
	var args map[string]any
	must(json.Unmarshal([]byte(*toolArgs), &args))
	callParams := &mcp.CallToolParams{Name: *toolName, Arguments: args}
	return func() error {
		res, err := cs.CallTool(context.Background(), callParams)
		if err == nil && res.IsError {
			var text string
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					text += t.Text
				}
			}
			err = fmt.Errorf("isError: %s", text)
		}
		return err
	}
}

func runInMem(base string) result {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // what the generated main does
		defer debug.SetGCPercent(100)
	}
	srv, err := petstore.New(petstore.Options{BaseURL: base})
	must(err)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(context.Background(), st, nil)
	must(err)
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	must(err)
	defer cs.Close()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		must(err)
		must(pprof.StartCPUProfile(f))
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	return measure("in memory", "go-sdk, SDK transports (same process)", sdkCall(cs))
}

// runInMemIO is runInMem with the server behind
// Server.InMemoryTransport (ServeIO over in-process pipes): the same
// newline-delimited JSON as the SDK's in-memory transports, with the
// runtime's fast path.
func runInMemIO(base string) result {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400) // what the generated main does
		defer debug.SetGCPercent(100)
	}
	srv, err := petstore.New(petstore.Options{BaseURL: base})
	must(err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, srv.InMemoryTransport(ctx), nil)
	must(err)
	defer cs.Close()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile + ".io")
		must(err)
		must(pprof.StartCPUProfile(f))
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	return measure("in memory", "go-sdk, Server.InMemoryTransport (same process)", sdkCall(cs))
}

func startServer(args ...string) (*exec.Cmd, io.WriteCloser, io.ReadCloser, *bufio.Reader) {
	cmd := exec.Command(*serverBin, args...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	must(cmd.Start())
	return cmd, stdin, stdout, bufio.NewReader(stderr)
}

func runStdio(base string) result {
	cmd := exec.Command(*serverBin, "--base-url", base)
	cmd.Stderr = io.Discard
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	must(err)
	defer cs.Close()
	must(sdkCall(cs)())
	idle := proc.Status(cmd.Process.Pid, "VmRSS")
	r := measureProc("stdio", "go-sdk", cmd.Process.Pid, sdkCall(cs))
	r.rssIdle, r.rssPeak = idle, proc.Status(cmd.Process.Pid, "VmHWM")
	return r
}

// runRawStdio drives the server with a minimal pipelining JSON-RPC client
// (2025-11-25 handshake, then tools/call), which costs far less CPU per
// call than a go-sdk client and so shows the server's own overhead.
func runRawStdio(base string) result {
	cmd, stdin, stdout, stderr := startServer("--base-url", base)
	go io.Copy(io.Discard, stderr)
	defer func() { stdin.Close(); cmd.Wait() }()
	var mu sync.Mutex
	pending := map[int64]chan json.RawMessage{}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var msg struct {
				ID     *int64          `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
				continue
			}
			mu.Lock()
			ch := pending[*msg.ID]
			delete(pending, *msg.ID)
			mu.Unlock()
			if ch != nil {
				if msg.Error != nil {
					ch <- nil
				} else {
					ch <- msg.Result
				}
			}
		}
	}()
	var wmu sync.Mutex
	var ids atomic.Int64
	send := func(method, params string, wait bool) (json.RawMessage, error) {
		id := ids.Add(1)
		ch := make(chan json.RawMessage, 1)
		line := `{"jsonrpc":"2.0","method":"` + method + `","params":` + params
		if wait {
			mu.Lock()
			pending[id] = ch
			mu.Unlock()
			line += `,"id":` + strconv.FormatInt(id, 10)
		}
		line += "}\n"
		wmu.Lock()
		_, err := io.WriteString(stdin, line)
		wmu.Unlock()
		if err != nil || !wait {
			return nil, err
		}
		select {
		case res := <-ch:
			if res == nil {
				return nil, fmt.Errorf("JSON-RPC error")
			}
			return res, nil
		case <-time.After(10 * time.Second):
			return nil, fmt.Errorf("timeout")
		}
	}
	_, err := send("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`, true)
	must(err)
	_, err = send("notifications/initialized", `{}`, false)
	must(err)
	call := func() error {
		res, err := send("tools/call", `{"name":"`+*toolName+`","arguments":`+*toolArgs+`}`, true)
		if err == nil && strings.Contains(string(res), `"isError":true`) {
			err = fmt.Errorf("isError: %s", res)
		}
		return err
	}
	must(call())
	idle := proc.Status(cmd.Process.Pid, "VmRSS")
	r := measureProc("stdio", "raw JSON-RPC (pipelining)", cmd.Process.Pid, call)
	r.rssIdle, r.rssPeak = idle, proc.Status(cmd.Process.Pid, "VmHWM")
	return r
}

func runHTTP(base string) result {
	cmd, stdin, _, stderr := startServer("--transport", "http", "--addr", "127.0.0.1:0", "--base-url", base)
	defer func() { cmd.Process.Signal(os.Interrupt); stdin.Close(); cmd.Wait() }()
	var endpoint string
	re := regexp.MustCompile(`listening on (http://[^ "]+/mcp)`)
	for endpoint == "" {
		line, err := stderr.ReadString('\n')
		must(err)
		if m := re.FindStringSubmatch(line); m != nil {
			endpoint = m[1]
		}
	}
	go io.Copy(io.Discard, stderr)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
	must(err)
	defer cs.Close()
	must(sdkCall(cs)())
	idle := proc.Status(cmd.Process.Pid, "VmRSS")
	r := measureProc("Streamable HTTP", "go-sdk", cmd.Process.Pid, sdkCall(cs))
	r.rssIdle, r.rssPeak = idle, proc.Status(cmd.Process.Pid, "VmHWM")
	return r
}

func printTable(rs []result) {
	var direct float64
	for _, r := range rs {
		if r.mode == "direct HTTP" {
			direct = float64(r.n) / r.elapsed.Seconds()
		}
	}
	fmt.Printf("concurrency %d, %d calls per mode after %d warm-up, GOMAXPROCS=%s\n\n", *conc, *calls, *warm, orStr(os.Getenv("GOMAXPROCS"), "default"))
	fmt.Println("| mode | client | calls/s | x below direct | p50 | p99 | CPU µs/call client | server | backend | server RSS idle | server RSS peak | errors |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		cps := float64(r.n) / r.elapsed.Seconds()
		ratio := "1.0"
		if direct > 0 && r.mode != "direct HTTP" {
			ratio = fmt.Sprintf("%.1f", direct/cps)
		}
		fmt.Printf("| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", r.mode, r.client, cps, ratio,
			r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), us(r.clientCPU), us(r.serverCPU), us(r.backendCPU), mib(r.rssIdle), mib(r.rssPeak), r.errors)
	}
}

// us prints a CPU time per call in µs, "n/a" for none.
func us(d time.Duration) string {
	if d <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f", float64(d)/float64(time.Microsecond))
}

func mib(kib int64) string {
	if kib == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}

func orStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
