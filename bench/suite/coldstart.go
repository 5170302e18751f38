package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/oa2mcp/oa2mcp/bench/internal/proc"
)

// Cold start: a generated server's process start to the last tools/list
// page with a real client (go-sdk, stdio), for the petstore spec and the
// largest corpus spec, Kubernetes (1,123 tools), both with the default
// mapping; and the server's RSS once it has listed.

// coldResult is one server's cold starts.
type coldResult struct {
	Spec   string
	Tools  int
	Starts []time.Duration
	RSS    []int64 // KiB, VmRSS after the last page
	Err    string
	Goal   time.Duration
}

// coldStartRuns is how many times each server is started.
const coldStartRuns = 7

// measureColdStart builds both servers in one module and starts each
// coldStartRuns times.
func measureColdStart(ctx context.Context) []coldResult {
	k8s := spec{Name: "kubernetes", Path: filepath.Join(*corpusDir, "kubernetes-2.0.json"), Display: "kubernetes-2.0.json (default mapping)"}
	pet := petstoreSpec()
	bin, err := buildOurs(ctx, "coldstart", pet, k8s)
	rows := []coldResult{{Spec: pet.Display, Goal: 50 * time.Millisecond}, {Spec: k8s.Display, Goal: 500 * time.Millisecond}}
	if err != nil {
		for i := range rows {
			rows[i].Err = err.Error()
		}
		return rows
	}
	bins := []string{bin, filepath.Join(filepath.Dir(bin), k8s.Name)}
	for i := range rows {
		for n := 0; n < coldStartRuns; n++ {
			d, rss, tools, err := coldStart(ctx, bins[i])
			if err != nil {
				rows[i].Err = err.Error()
				break
			}
			rows[i].Starts, rows[i].RSS, rows[i].Tools = append(rows[i].Starts, d), append(rows[i].RSS, rss), tools
		}
		fmt.Fprintf(os.Stderr, "  %-45s start to tools/list median %v (%d tools) %s\n", rows[i].Spec, median(rows[i].Starts).Round(time.Millisecond), rows[i].Tools, rows[i].Err)
	}
	return rows
}

// coldStart starts bin once and lists its tools; it returns the time to
// the last page, VmRSS then, and the number of tools.
func coldStart(ctx context.Context, bin string) (time.Duration, int64, int, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "--base-url", "http://127.0.0.1:9")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cs, d, err := connectAndList(ctx, cmd, "")
	if cmd.Process != nil {
		track(cmd)
		defer func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			untrack(cmd)
		}()
	}
	if err != nil {
		return 0, 0, 0, err
	}
	defer cs.Close()
	rss := proc.Status(cmd.Process.Pid, "VmRSS")
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return 0, 0, 0, err
		}
		n++
	}
	return d, rss, n, nil
}

func printColdStartTable(rows []coldResult) {
	fmt.Printf("## Cold start: process start to the last tools/list page (%d starts each)\n\n", coldStartRuns)
	fmt.Println("Generated with the default mapping, built, started over stdio by a go-sdk v1.8.0 client (`CommandTransport`: process start, connect, every tools/list page). RSS: the server's VmRSS after the last page. Goals: petstore ≤ 50 ms and ≤ 20 MiB, Kubernetes ≤ 0.5 s.")
	fmt.Println()
	fmt.Println("| server | tools | best | median | RSS after start (median) | goal | met |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Printf("| %s | FAILED: %s | | | | | |\n", r.Spec, mdEscape(truncate(r.Err, 200)))
			continue
		}
		best := r.Starts[0]
		for _, d := range r.Starts {
			best = min(best, d)
		}
		rss := make([]time.Duration, len(r.RSS))
		for i, k := range r.RSS {
			rss[i] = time.Duration(k)
		}
		m := median(r.Starts)
		fmt.Printf("| %s | %d | %d ms | %d ms | %.1f MiB | %d ms | %s |\n", r.Spec, r.Tools, best.Milliseconds(), m.Milliseconds(),
			float64(median(rss))/1024, r.Goal.Milliseconds(), yesNo(m <= r.Goal))
	}
	fmt.Println()
}

// timeColdStarts prints the cold starts of built servers, e.g. to compare
// builds:
//
//	suite -oa2mcp x -coldstart-bins /tmp/k8s-before,/tmp/k8s-after
func timeColdStarts(bins []string) {
	for _, bin := range bins {
		var starts []time.Duration
		var rss []time.Duration
		for n := 0; n < coldStartRuns; n++ {
			d, r, tools, err := coldStart(context.Background(), bin)
			if err != nil {
				fatalf("%s: %v", bin, err)
			}
			starts, rss = append(starts, d), append(rss, time.Duration(r))
			if n == 0 {
				fmt.Printf("%s: %d tools\n", bin, tools)
			}
		}
		best := starts[0]
		for _, d := range starts {
			best = min(best, d)
		}
		fmt.Printf("%s: start to tools/list best %v median %v, RSS after start %.1f MiB\n", bin, best.Round(time.Millisecond),
			median(starts).Round(time.Millisecond), float64(median(rss))/1024)
	}
}
