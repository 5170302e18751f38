package main

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/bench/internal/kinbase"
	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/emit"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// genResult is one row of the generation table.
type genResult struct {
	Spec       string
	Ops, Tools int
	Swagger    bool
	Kin        time.Duration // plain kin-openapi load (median)
	KinOrigin  time.Duration // the same with IncludeOrigin (median)
	KinErr     string
	Load       time.Duration // oa2mcp load alone (median)
	Build      time.Duration // build alone (median)
	Cases      time.Duration // call cases and their proof (median)
	Emit       time.Duration // emit alone (median)
	Gen        time.Duration // oa2mcp load+build+emit (median)
	Err        string
}

// kinLoad is the baseline (kinbase.Load).
var kinLoad = kinbase.Load

// genTimes splits one in-process generation.
type genTimes struct{ Load, Build, Cases, Emit time.Duration }

// generate runs load, mapping, the call cases and their proof, and emit in
// process, as oa2mcp generate does before writing (generator.Generate;
// its steps are called here one by one to time them).
func generate(ctx context.Context, s spec) (*generator.Result, *load.Document, genTimes, error) {
	var gt genTimes
	start := time.Now()
	doc, problems := load.Load(ctx, s.Path, load.Options{})
	gt.Load = time.Since(start)
	if problems.HasErrors() {
		return nil, nil, gt, fmt.Errorf("load: %s", firstLine(problems.Errors().Error()))
	}
	cfg := generator.Config{Name: s.Name, ImportPath: "oa2mcpbench/" + s.Name, Source: s.Display}
	if s.Overrides != "" {
		ov, more := overrides.ReadFile(s.Overrides)
		if more.HasErrors() {
			return nil, nil, gt, fmt.Errorf("overrides: %s", firstLine(more.Errors().Error()))
		}
		cfg.Overrides = ov
	}
	start = time.Now()
	srv, more := mapping.Build(doc, cfg)
	gt.Build = time.Since(start)
	if more.HasErrors() {
		return nil, nil, gt, fmt.Errorf("build: %s", firstLine(more.Errors().Error()))
	}
	start = time.Now()
	more = cases.Build(srv)
	if !more.HasErrors() {
		more = append(more, cases.Prove(ctx, srv)...)
	}
	gt.Cases = time.Since(start)
	if more.HasErrors() {
		return nil, nil, gt, fmt.Errorf("cases: %s", firstLine(more.Errors().Error()))
	}
	start = time.Now()
	files, err := emit.Emit(srv)
	gt.Emit = time.Since(start)
	if err != nil {
		return nil, nil, gt, fmt.Errorf("emit: %v", err)
	}
	return &generator.Result{Files: files, Server: srv}, doc, gt, nil
}

func measureGeneration(ctx context.Context, specs []spec) []genResult {
	var out []genResult
	for _, s := range specs {
		r := genResult{Spec: s.Display}
		var kin, kinO, ld, bd, cs, em, gen []time.Duration
		n := *runs
		for i := 0; i < n; i++ {
			runtime.GC()
			start := time.Now()
			res, doc, gt, err := generate(ctx, s)
			g := time.Since(start)
			if err != nil {
				r.Err = err.Error()
				break
			}
			ld, bd, cs, em, gen = append(ld, gt.Load), append(bd, gt.Build), append(cs, gt.Cases), append(em, gt.Emit), append(gen, g)
			if i == 0 {
				r.Ops, r.Tools, r.Swagger = len(doc.Operations), len(res.Server.Tools), strings.HasPrefix(doc.Version, "2")
			}
			if r.KinErr == "" {
				runtime.GC()
				start = time.Now()
				if err := kinLoad(s.Path, r.Swagger, false); err != nil {
					r.KinErr = firstLine(err.Error())
				} else {
					kin = append(kin, time.Since(start))
					runtime.GC()
					start = time.Now()
					if err := kinLoad(s.Path, r.Swagger, true); err == nil {
						kinO = append(kinO, time.Since(start))
					}
				}
			}
		}
		r.Kin, r.KinOrigin, r.Load, r.Build, r.Cases, r.Emit, r.Gen = median(kin), median(kinO), median(ld), median(bd), median(cs), median(em), median(gen)
		out = append(out, r)
		fmt.Fprintf(os.Stderr, "  %-55s gen %v kin %v %s\n", s.Display, r.Gen.Round(time.Millisecond), r.Kin.Round(time.Millisecond), r.KinErr)
	}
	return out
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func printGenTable(rows []genResult) {
	fmt.Printf("## Generation time against kin-openapi (in process, median of %d runs)\n\n", *runs)
	fmt.Println("kin = `openapi3.NewLoader` (IsExternalRefsAllowed) + `LoadFromFile`, or for Swagger 2.0 `openapi2.UnmarshalFromData` + `openapi2conv.ToV3WithLoader`; kin+origins = the same with `IncludeOrigin` (what oa2mcp needs for positions). oa2mcp generate = load + mapping + call cases and their proof + emit (each timed), no lint, no writing (the whole-process table has those). Goal: generate at most 1.5x kin.")
	fmt.Println()
	fmt.Println("| spec | ops | tools | kin ms | kin+origins ms | oa2mcp load ms | mapping ms | cases ms | emit ms | oa2mcp generate ms | load / kin | generate / kin | generate / kin+origins | goal ≤1.5x |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Printf("| `%s` | | | | | | | | | FAILED: %s | | | | no |\n", r.Spec, mdEscape(r.Err))
			continue
		}
		if r.KinErr != "" {
			fmt.Printf("| `%s` | %d | %d | kin fails: %s | | %s | %s | %s | %s | %s | n/a | n/a | n/a | n/a (no baseline) |\n", r.Spec, r.Ops, r.Tools,
				mdEscape(truncate(r.KinErr, 90)), ms(r.Load), ms(r.Build), ms(r.Cases), ms(r.Emit), ms(r.Gen))
			continue
		}
		ratio := float64(r.Gen) / float64(r.Kin)
		fmt.Printf("| `%s` | %d | %d | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f | %s |\n", r.Spec, r.Ops, r.Tools, ms(r.Kin), ms(r.KinOrigin),
			ms(r.Load), ms(r.Build), ms(r.Cases), ms(r.Emit), ms(r.Gen), float64(r.Load)/float64(r.Kin), ratio, float64(r.Gen)/float64(r.KinOrigin), yesNo(ratio <= 1.5))
	}
	fmt.Println()
}

func ms(d time.Duration) string {
	f := float64(d) / float64(time.Millisecond)
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f", f)
	case f >= 10:
		return fmt.Sprintf("%.1f", f)
	default:
		return fmt.Sprintf("%.2f", f)
	}
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f", d.Seconds()) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "`", "'").Replace(s)
}
