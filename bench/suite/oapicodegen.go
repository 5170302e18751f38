package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Generation side by side with oapi-codegen, the Go generator users
// compare oa2mcp with: both as whole processes per corpus spec, best of
// oapiRuns each, interleaved; then whether oapi-codegen accepted the spec
// and whether what it wrote compiles (go build in a module of its own,
// not part of its generation time).

// OapiCodegenVersion is the release scripts/bench.sh builds.
const OapiCodegenVersion = "v2.8.2"

// oapiRuns is how many times each generator runs per spec.
const oapiRuns = 3

// oapiGenerate is what oapi-codegen generates: the models and a client
// of the API, which is what a generated oa2mcp server holds besides its
// MCP side; its server targets need a web framework as well.
const oapiGenerate = "types,client"

var oapiBin = flag.String("oapi-codegen", ".cache/oapi-codegen/oapi-codegen", "built oapi-codegen "+OapiCodegenVersion+" (scripts/bench.sh builds it); missing: the table says so")

// oapiResult is one spec's row.
type oapiResult struct {
	Spec             string
	Ours, Theirs     time.Duration // best of the runs
	OursErr, Refused string        // a failure of ours; why oapi-codegen refused the spec
	BuildErr         string        // why its output did not compile; "" when it did
	Build            time.Duration
	TheirBytes       int64
}

// measureOapiCodegen times oa2mcp generate and oapi-codegen per spec,
// interleaved, each into a fresh folder, then builds oapi-codegen's last
// output.
func measureOapiCodegen(ctx context.Context, specs []spec) []oapiResult {
	if _, err := os.Stat(*oapiBin); err != nil {
		fmt.Fprintf(os.Stderr, "  oapi-codegen: %v (scripts/bench.sh builds it into .cache/oapi-codegen)\n", err)
		return nil
	}
	var out []oapiResult
	for _, s := range specs {
		tmp, err := os.MkdirTemp("", "oa2mcp-oapi-")
		check(err)
		r := oapiResult{Spec: s.Display}
		var theirs string
		for n := range oapiRuns {
			dir := filepath.Join(tmp, fmt.Sprint(n))
			o := run(ctx, 5*time.Minute, *rootDir, nil, *oa2mcpBin, "generate", "--spec", s.Path, "--out", filepath.Join(dir, "ours", "x"),
				"--package", "x", "--runtime-dir", filepath.Join(*rootDir, "runtime"))
			if !o.ok() {
				r.OursErr = o.failure()
			}
			r.Ours = bestOf(r.Ours, o.Wall)
			theirs = filepath.Join(dir, "theirs")
			check(os.MkdirAll(filepath.Join(theirs, "x"), 0o755))
			t := run(ctx, 5*time.Minute, theirs, nil, *oapiBin, "-generate", oapiGenerate, "-package", "x", "-o", filepath.Join("x", "x.go"), s.Path)
			if !t.ok() {
				r.Refused = t.failure()
			}
			r.Theirs = bestOf(r.Theirs, t.Wall)
		}
		if r.Refused == "" {
			r.Build, r.BuildErr = buildOapiOutput(ctx, theirs)
			if st, err := os.Stat(filepath.Join(theirs, "x", "x.go")); err == nil {
				r.TheirBytes = st.Size()
			}
		}
		_ = os.RemoveAll(tmp)
		out = append(out, r)
		fmt.Fprintf(os.Stderr, "  %-55s oa2mcp %v | oapi-codegen %v %s %s\n", s.Display, r.Ours.Round(time.Millisecond),
			r.Theirs.Round(time.Millisecond), truncate(r.Refused, 80), truncate(r.BuildErr, 80))
	}
	return out
}

// buildOapiOutput compiles oapi-codegen's output in dir as a module of
// its own: its one dependency comes from the Go module proxy.
func buildOapiOutput(ctx context.Context, dir string) (time.Duration, string) {
	check(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module oapibench\n\ngo 1.22\n"), 0o644))
	env := goEnv()
	if t := run(ctx, 5*time.Minute, dir, env, "go", "mod", "tidy"); !t.ok() {
		return 0, "go mod tidy: " + t.failure()
	}
	b := run(ctx, 10*time.Minute, dir, env, "go", "build", "./...")
	if !b.ok() {
		return b.Wall, firstCompileError(b)
	}
	return b.Wall, ""
}

// firstCompileError is the first file:line:col line go build printed and
// how many there were, else its failure.
func firstCompileError(b procResult) string {
	var errs []string
	for _, l := range strings.Split(b.Stderr, "\n") {
		if strings.HasPrefix(l, "x/") && strings.Contains(l, ".go:") && !strings.HasSuffix(l, "too many errors") {
			errs = append(errs, strings.TrimSpace(l))
		}
	}
	if len(errs) == 0 {
		return b.failure()
	}
	more := ""
	if len(errs) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	return errs[0] + more
}

func printOapiTable(rows []oapiResult) {
	fmt.Printf("## Generation side by side with oapi-codegen %s (best of %d each)\n\n", OapiCodegenVersion, oapiRuns)
	if rows == nil {
		fmt.Printf("oapi-codegen is not built (%s); scripts/bench.sh builds it.\n\n", *oapiBin)
		return
	}
	fmt.Printf("oa2mcp: `oa2mcp generate --spec SPEC --out DIR/x --package x --runtime-dir RUNTIME` into a fresh folder. oapi-codegen: `oapi-codegen -generate %s -package x -o x/x.go SPEC` into a fresh folder. Whole processes, interleaved. Compiles: `go mod tidy && go build ./...` of oapi-codegen's output in a module of its own (its build time is not part of its generation time). Ratio: our time / oapi-codegen's, where oapi-codegen accepts the spec.\n\n", oapiGenerate)
	fmt.Println("| spec | oa2mcp s | oapi-codegen s | oa2mcp / oapi-codegen | oapi-codegen accepts | its output compiles | its output | its build s |")
	fmt.Println("|---|---:|---:|---:|---|---|---:|---:|")
	accepted, compiles := 0, 0
	for _, r := range rows {
		ours := fmt.Sprintf("%.3f", r.Ours.Seconds())
		if r.OursErr != "" {
			ours += " FAILED: " + mdEscape(truncate(r.OursErr, 80))
		}
		if r.Refused != "" {
			fmt.Printf("| `%s` | %s | %.3f | n/a | no: %s | n/a | | |\n", r.Spec, ours, r.Theirs.Seconds(), mdEscape(truncate(oneLine(r.Refused), 110)))
			continue
		}
		accepted++
		builds := "yes"
		if r.BuildErr != "" {
			builds = "**no**: " + mdEscape(truncate(oneLine(r.BuildErr), 110))
		} else {
			compiles++
		}
		fmt.Printf("| `%s` | %s | %.3f | %.2f | yes | %s | %.0f KiB | %.1f |\n", r.Spec, ours, r.Theirs.Seconds(),
			float64(r.Ours)/float64(r.Theirs), builds, float64(r.TheirBytes)/1024, r.Build.Seconds())
	}
	fmt.Printf("\noapi-codegen accepts %d of %d specs; its output compiles for %d; oa2mcp generates all it is given unless marked FAILED.\n\n", accepted, len(rows), compiles)
}

// oneLine is s with its line breaks as spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
