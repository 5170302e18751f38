package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// Whole-process generation: `oa2mcp generate` (load, mapping, call cases
// and their proof, emit, lint, write) as a process against a process that
// only loads the same spec with kin-openapi (bench/kinload), best of
// wholeGenRuns each, with each command's peak RSS.

// wholeGenRuns is how many times each command runs per spec.
const wholeGenRuns = 3

// wholeGenResult is one spec's row.
type wholeGenResult struct {
	Spec             string
	Ours, Kin        time.Duration // best of the runs
	OursRSS, KinRSS  int64         // KiB, the smallest peak of the runs
	OursErr, KinErr  string
	Swagger, Largest bool
}

// measureWholeGen times both commands per spec, interleaved. The output
// folder is outside the repository, as a user's would be, and fresh for
// every run, so every file is written.
func measureWholeGen(ctx context.Context, specs []spec) []wholeGenResult {
	var out []wholeGenResult
	var largest int64
	li := -1
	for i, s := range specs {
		r := wholeGenResult{Spec: s.Display, Swagger: isSwagger(ctx, s.Path)}
		if st, err := os.Stat(s.Path); err == nil && st.Size() > largest {
			largest, li = st.Size(), i
		}
		tmp, err := os.MkdirTemp("", "oa2mcp-wholegen-")
		check(err)
		for n := 0; n < wholeGenRuns; n++ {
			dir := filepath.Join(tmp, fmt.Sprint(n), "x")
			o := run(ctx, 5*time.Minute, *rootDir, nil, *oa2mcpBin, "generate", "--spec", s.Path, "--out", dir, "--package", "x",
				"--runtime-dir", filepath.Join(*rootDir, "runtime"))
			if !o.ok() {
				r.OursErr = o.failure()
			}
			r.Ours, r.OursRSS = bestOf(r.Ours, o.Wall), smallest(r.OursRSS, o.MaxRSS)
			args := []string{s.Path}
			if r.Swagger {
				args = []string{"-swagger", s.Path}
			}
			k := run(ctx, 5*time.Minute, *rootDir, nil, *kinloadBin, args...)
			if !k.ok() {
				r.KinErr = k.failure()
			}
			r.Kin, r.KinRSS = bestOf(r.Kin, k.Wall), smallest(r.KinRSS, k.MaxRSS)
		}
		_ = os.RemoveAll(tmp)
		out = append(out, r)
		fmt.Fprintf(os.Stderr, "  %-55s oa2mcp %v %s | kin %v %s %s\n", s.Display, r.Ours.Round(time.Millisecond), kib(r.OursRSS),
			r.Kin.Round(time.Millisecond), kib(r.KinRSS), r.KinErr)
	}
	if li >= 0 {
		out[li].Largest = true
	}
	return out
}

// isSwagger reports whether the document at path is Swagger 2.0, which
// kin's baseline converts (its "swagger" key may come last, as in
// Kubernetes', so the document is loaded).
func isSwagger(ctx context.Context, path string) bool {
	doc, _ := load.Load(ctx, path, load.Options{})
	return doc != nil && strings.HasPrefix(doc.Version, "2")
}

func bestOf(a, b time.Duration) time.Duration {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

func smallest(a, b int64) int64 {
	if a == 0 || (b > 0 && b < a) {
		return b
	}
	return a
}

func printWholeGenTable(rows []wholeGenResult) {
	fmt.Printf("## Generation as a whole process against kin-openapi alone (best of %d each)\n\n", wholeGenRuns)
	fmt.Println("oa2mcp: `oa2mcp generate --spec SPEC --out DIR/x --package x --runtime-dir RUNTIME` into a fresh folder outside any module (load, mapping, call cases and their proof, emit, lint, write). kin: `bench/kinload [-swagger] SPEC` (kin-openapi's loader with external refs, Swagger 2.0 converted with the same loader; process start to exit). Peak RSS: `/usr/bin/time -f %M`, the smallest of the runs. Goals: oa2mcp ≤ 1.5x kin's time; peak RSS ≤ kin's for the largest spec.")
	fmt.Println()
	fmt.Println("| spec | oa2mcp s | kin s | oa2mcp / kin | goal ≤1.5x | oa2mcp peak RSS | kin peak RSS | RSS oa2mcp / kin |")
	fmt.Println("|---|---:|---:|---:|---|---:|---:|---:|")
	for _, r := range rows {
		ours := fmt.Sprintf("%.3f", r.Ours.Seconds())
		if r.OursErr != "" {
			ours += " FAILED: " + mdEscape(truncate(r.OursErr, 100))
		}
		if r.KinErr != "" {
			fmt.Printf("| `%s` | %s | kin fails: %s | n/a | n/a (no baseline) | %s | | |\n", r.Spec, ours, mdEscape(truncate(r.KinErr, 90)), kib(r.OursRSS))
			continue
		}
		ratio := float64(r.Ours) / float64(r.Kin)
		rss := fmt.Sprintf("%.2f", float64(r.OursRSS)/float64(r.KinRSS))
		if r.Largest {
			rss += " (largest spec: goal ≤1, " + yesNo(r.OursRSS <= r.KinRSS) + ")"
		}
		fmt.Printf("| `%s` | %s | %.3f | %.2f | %s | %s | %s | %s |\n", r.Spec, ours, r.Kin.Seconds(), ratio, yesNo(ratio <= 1.5),
			kib(r.OursRSS), kib(r.KinRSS), rss)
	}
	fmt.Println()
}
