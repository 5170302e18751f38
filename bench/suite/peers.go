package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/bench/internal/proc"
	"github.com/oa2mcp/oa2mcp/generator/write"
)

// The side-by-side per-call table: one petstore operation (getPetById,
// GET /pet/{petId}) called directly and through each MCP server, all
// servers generated or started from the same spec with their defaults,
// over stdio with the same go-sdk client, in rounds; each round measures
// direct HTTP too, so every ratio is against a baseline of its own round.

// peerServer is one MCP server of the table.
type peerServer struct {
	Name    string // row label
	Tool    string // the tool for getPetById
	Missing string // why it is not measured; "" when it is
	// command returns a fresh server process for the backend at base.
	command func(base string) *exec.Cmd
}

// peerRound is one server's figures in one round.
type peerRound struct {
	CPS         float64       // calls per second
	Ratio       float64       // direct calls/s of the round / CPS
	StartToList time.Duration // process start to the last tools/list page
	PeakRSS     int64         // KiB, VmHWM after the calls
	CPU         time.Duration // server CPU per measured call
	Errors      int64
	Err         string // the round failed
}

// peerRow is one row of the table.
type peerRow struct {
	Name    string
	Missing string
	Rounds  []peerRound
}

// peersResult is the whole side-by-side measurement.
type peersResult struct {
	Calls, Warmup, Conc int
	Direct              []float64 // calls/s per round
	Rows                []*peerRow
}

// petstoreSpec is the spec every server of the table serves.
func petstoreSpec() spec {
	return spec{Name: "petstore", Path: filepath.Join(*rootDir, "examples", "petstore", "openapi.yaml"),
		Display: "examples/petstore (default mapping)"}
}

// measurePeers builds or prepares the three servers, starts the backend
// and runs the rounds.
func measurePeers(ctx context.Context) *peersResult {
	res := &peersResult{Calls: *peerCalls, Warmup: *peerWarmup, Conc: *peerConc}
	ours := oursServer(ctx)
	servers := []*peerServer{ours, fastPathOff(ours), jedisct1Server(), npmPeerServer(ctx)}
	backend, base, err := startBackend(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "  backend: %v\n", err)
		for _, s := range servers {
			res.Rows = append(res.Rows, &peerRow{Name: s.Name, Missing: "backend did not start: " + err.Error()})
		}
		return res
	}
	defer stopProcess(backend)
	for _, s := range servers {
		res.Rows = append(res.Rows, &peerRow{Name: s.Name, Missing: s.Missing})
	}
	for r := 0; r < *peerRounds; r++ {
		direct := measureDirect(base + "/pet/1")
		res.Direct = append(res.Direct, direct)
		fmt.Fprintf(os.Stderr, "  round %d: direct HTTP %.0f calls/s\n", r+1, direct)
		// rotate the order so that no server always runs first or last
		for i := range servers {
			k := (i + r) % len(servers)
			s, row := servers[k], res.Rows[k]
			if s.Missing != "" {
				continue
			}
			pr := measureServer(ctx, s, base)
			if pr.CPS > 0 {
				pr.Ratio = direct / pr.CPS
			}
			row.Rounds = append(row.Rounds, pr)
			fmt.Fprintf(os.Stderr, "  round %d: %-45s %.0f calls/s (%.2fx), server CPU %.0f µs/call, start to tools/list %v, peak %s %s\n", r+1, s.Name, pr.CPS, pr.Ratio,
				float64(pr.CPU)/1e3, pr.StartToList.Round(time.Millisecond), kib(pr.PeakRSS), pr.Err)
		}
	}
	return res
}

// oursServer generates the petstore spec with the default mapping into a
// module of its own and builds its command.
func oursServer(ctx context.Context) *peerServer {
	s := &peerServer{Name: "oa2mcp", Tool: "get_pet_by_id"}
	bin, err := buildOurs(ctx, "peers", petstoreSpec())
	if err != nil {
		s.Missing = err.Error()
		return s
	}
	s.command = func(base string) *exec.Cmd { return exec.Command(bin, "--base-url", base) }
	return s
}

// fastPathOff is ours with the fast path turned off by its environment
// variable (docs/runtime.md, "The fast path and its gate"): the same
// binary, every call through go-sdk.
func fastPathOff(ours *peerServer) *peerServer {
	s := &peerServer{Name: "oa2mcp, fast path off", Tool: ours.Tool, Missing: ours.Missing}
	if ours.command != nil {
		s.command = func(base string) *exec.Cmd {
			cmd := ours.command(base)
			cmd.Env = append(os.Environ(), "PETSTORE_FAST_PATH=off")
			return cmd
		}
	}
	return s
}

// buildOurs generates specs in process into one fresh module under
// work/NAME and builds their commands with one go build; it returns the
// binary of the first spec (the others are beside it, by spec name).
func buildOurs(ctx context.Context, name string, specs ...spec) (string, error) {
	mod := filepath.Join(*workDir, name)
	newModule(mod, "oa2mcpbench") // generate() imports oa2mcpbench/NAME
	for _, s := range specs {
		res, _, _, err := generate(ctx, s)
		if err != nil {
			return "", fmt.Errorf("generate %s: %v", s.Display, err)
		}
		dir := filepath.Join(mod, s.Name)
		changes, err := write.Plan(dir, res.Files)
		check(err)
		check(write.Apply(dir, changes))
	}
	b := run(ctx, 20*time.Minute, mod, goEnv(), "go", "build", "-o", filepath.Join(mod, "bin")+"/", "./...")
	if !b.ok() {
		return "", fmt.Errorf("go build: %s", b.failure())
	}
	return filepath.Join(mod, "bin", specs[0].Name), nil
}

// jedisct1Server runs jedisct1/openapi-mcp, which reads the spec at
// start, from the binary scripts/bench.sh built (-jedisct1).
func jedisct1Server() *peerServer {
	s := &peerServer{Name: "jedisct1/openapi-mcp (Go, spec read at run time)", Tool: "getPetById"}
	if _, err := os.Stat(*jedisct1Bin); err != nil {
		s.Missing = fmt.Sprintf("missing: no binary at %s (scripts/bench.sh builds it from $OA2MCP_JEDISCT1_SRC, by default the mirror /work/.mirror/jedisct1+openapi-mcp/repo)", *jedisct1Bin)
		return s
	}
	sp := petstoreSpec().Path
	s.command = func(base string) *exec.Cmd { return exec.Command(*jedisct1Bin, "--base-url", base, sp) }
	return s
}

// npmPeerServer generates the petstore server with
// openapi-mcp-generator and compiles it with tsc (its npm run build).
func npmPeerServer(ctx context.Context) *peerServer {
	s := &peerServer{Name: "openapi-mcp-generator 4.0.1 (TypeScript)", Tool: "getPetById"}
	out := filepath.Join(*workDir, "peers", "npm-peer")
	if _, err := os.Stat(peerBin()); err != nil {
		s.Missing = "missing: openapi-mcp-generator is not installed in " + *peerDir
		return s
	}
	if g := runPeerGenerate(ctx, petstoreSpec(), out); !g.ok() {
		s.Missing = "generate failed: " + g.failure()
		return s
	}
	env := []string{"PATH=" + filepath.Dir(npmPath()) + ":" + os.Getenv("PATH")}
	if b := run(ctx, *peerBuildTimeout, out, env, *nodeBin, tscPath()); !b.ok() {
		s.Missing = "tsc failed: " + b.failure()
		return s
	}
	s.command = func(base string) *exec.Cmd {
		cmd := exec.Command(*nodeBin, "build/index.js")
		cmd.Dir = out
		cmd.Env = append(os.Environ(), "API_BASE_URL="+base)
		return cmd
	}
	return s
}

// startBackend starts the petstore backend on a free loopback port and
// returns its base URL.
func startBackend(ctx context.Context) (*exec.Cmd, string, error) {
	if *backendBin == "" {
		return nil, "", fmt.Errorf("no -backend binary")
	}
	cmd := exec.CommandContext(ctx, *backendBin, "--addr", "127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	cmd.Stderr = nil // its request log: not read
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	track(cmd)
	line, _ := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`http://\S+`).FindString(line)
	if m == "" {
		stopProcess(cmd)
		return nil, "", fmt.Errorf("backend did not announce its URL: %q", line)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	return cmd, m, nil
}

// stopProcess kills a started child's process group and reaps it.
func stopProcess(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	untrack(cmd)
}

// measureDirect is the baseline: the same GET with a shared net/http
// client, calls/s.
func measureDirect(url string) float64 {
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Second}
	defer hc.CloseIdleConnections()
	call := func() error {
		resp, err := hc.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		return err
	}
	loadLoop(*peerWarmup, *peerConc, call)
	elapsed, _, _ := loadLoop(*peerCalls, *peerConc, call)
	return float64(*peerCalls) / elapsed.Seconds()
}

// loadLoop makes n calls over conc workers and returns the elapsed time,
// the number of failed calls and the first error.
func loadLoop(n, conc int, call func() error) (time.Duration, int64, error) {
	var next, errs atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := call(); err != nil {
					if errs.Add(1) == 1 {
						first.Store(err)
					}
				}
			}
		}()
	}
	wg.Wait()
	err, _ := first.Load().(error)
	return time.Since(start), errs.Load(), err
}

// measureServer starts s over stdio with a go-sdk client, times process
// start to the last tools/list page, then calls its tool.
func measureServer(ctx context.Context, s *peerServer, base string) peerRound {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := s.command(base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cs, startToList, err := connectAndList(ctx, cmd, s.Tool)
	if cmd.Process != nil {
		track(cmd)
		defer func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			untrack(cmd)
		}()
	}
	if err != nil {
		return peerRound{Err: err.Error()}
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: s.Tool, Arguments: map[string]any{"petId": 1}}
	call := func() error {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		res, err := cs.CallTool(cctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("isError: %s", truncate(contentText(res), 200))
		}
		return err
	}
	if err := call(); err != nil {
		return peerRound{StartToList: startToList, Err: "first call: " + err.Error()}
	}
	loadLoop(*peerWarmup, *peerConc, call)
	pid := cmd.Process.Pid
	c0 := proc.CPU(pid)
	elapsed, errs, first := loadLoop(*peerCalls, *peerConc, call)
	pr := peerRound{CPS: float64(*peerCalls) / elapsed.Seconds(), StartToList: startToList, Errors: errs,
		CPU: (proc.CPU(pid) - c0) / time.Duration(*peerCalls), PeakRSS: proc.Status(pid, "VmHWM")}
	if first != nil {
		pr.Err = fmt.Sprintf("%d errors, first: %v", errs, first)
	}
	return pr
}

// connectAndList starts cmd as a stdio server with a go-sdk client and
// reads every tools/list page; it returns the session and the time from
// process start to the last page, and checks that tool is listed.
func connectAndList(ctx context.Context, cmd *exec.Cmd, tool string) (*mcp.ClientSession, time.Duration, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "oa2mcp-bench", Version: "1"}, nil)
	start := time.Now()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("connect: %v", err)
	}
	found := tool == ""
	var cursor string
	for page := 0; page < 10000; page++ {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			cs.Close()
			return nil, 0, fmt.Errorf("tools/list: %v", err)
		}
		for _, t := range res.Tools {
			found = found || t.Name == tool
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	d := time.Since(start)
	if !found {
		cs.Close()
		return nil, d, fmt.Errorf("tool %s not listed", tool)
	}
	return cs, d, nil
}

// contentText is the text of a result's first text content.
func contentText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

func medianFloat(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printPeersTable(p *peersResult) {
	fmt.Printf("## Per call, side by side (petstore getPetById, %d rounds)\n\n", len(p.Direct))
	fmt.Printf("Every server from `examples/petstore/openapi.yaml` with its defaults (oa2mcp: default mapping, generated and built; jedisct1/openapi-mcp: the spec read at start; openapi-mcp-generator: generated, compiled with tsc, run with Node 22); backend `petstore-backend` on 127.0.0.1; stdio, go-sdk v1.8.0 client in the suite process, concurrency %d, %d calls after %d warm-up per server and round; direct HTTP (net/http, same GET) measured in every round; ratio = direct calls/s of the round / the server's. Start to tools/list: process start to the last page with the go-sdk client (connect included). Peak RSS: the server's VmHWM after its calls (largest of the rounds). Server CPU: its user+system time per measured call.\n\n",
		p.Conc, p.Calls, p.Warmup)
	fmt.Println("| server | calls/s (median) | ratio best / median | start to tools/list (median) | peak RSS | server CPU µs/call (median) | errors |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	fmt.Printf("| direct HTTP | %.0f | 1 / 1 | | | | |\n", medianFloat(p.Direct))
	for _, row := range p.Rows {
		if row.Missing != "" {
			fmt.Printf("| %s | not measured: %s | | | | | |\n", row.Name, mdEscape(truncate(row.Missing, 200)))
			continue
		}
		var cps, ratio, cpu []float64
		var starts []time.Duration
		var peak, errs int64
		var failed []string
		for _, r := range row.Rounds {
			if r.Err != "" && r.CPS == 0 {
				failed = append(failed, r.Err)
				continue
			}
			cps, ratio, cpu = append(cps, r.CPS), append(ratio, r.Ratio), append(cpu, float64(r.CPU)/1e3)
			starts = append(starts, r.StartToList)
			peak, errs = max(peak, r.PeakRSS), errs+r.Errors
		}
		if len(cps) == 0 {
			fmt.Printf("| %s | FAILED: %s | | | | | |\n", row.Name, mdEscape(truncate(strings.Join(failed, "; "), 200)))
			continue
		}
		best := ratio[0]
		for _, x := range ratio {
			best = min(best, x)
		}
		fmt.Printf("| %s | %.0f | %.2f / %.2f | %d ms | %.1f MiB | %.0f | %d |\n", row.Name, medianFloat(cps), best, medianFloat(ratio),
			median(starts).Milliseconds(), float64(peak)/1024, medianFloat(cpu), errs)
	}
	fmt.Println()
	printPeerCPURounds(p)
}

// printPeerCPURounds lists each server's CPU per call round by round,
// and each one's ratio to jedisct1/openapi-mcp's in the same round: the
// machine is shared, so only same-round ratios compare.
func printPeerCPURounds(p *peersResult) {
	var base *peerRow
	for _, row := range p.Rows {
		if strings.HasPrefix(row.Name, "jedisct1/") && row.Missing == "" {
			base = row
		}
	}
	fmt.Println("| server | server CPU µs/call, round by round | / jedisct1/openapi-mcp's, same round |")
	fmt.Println("|---|---|---|")
	for _, row := range p.Rows {
		if row.Missing != "" {
			continue
		}
		var cpus, ratios []string
		for i, r := range row.Rounds {
			cpus = append(cpus, fmt.Sprintf("%.0f", float64(r.CPU)/1e3))
			if base != nil && i < len(base.Rounds) && base.Rounds[i].CPU > 0 {
				ratios = append(ratios, fmt.Sprintf("%.2f", float64(r.CPU)/float64(base.Rounds[i].CPU)))
			}
		}
		fmt.Printf("| %s | %s | %s |\n", row.Name, strings.Join(cpus, ", "), strings.Join(ratios, ", "))
	}
	fmt.Println()
}
