// Command suite measures oa2mcp on the public spec corpus and, in the same
// run, the npm peer openapi-mcp-generator, and prints Markdown tables:
// generation time against a plain kin-openapi load, spec to runnable
// server, generator peak RSS, tools/list size and quality, --check time,
// and behaviour against a faulty upstream. scripts/bench.sh builds and
// runs it (after installing the peer) and adds the fuzzing table; see
// docs/benchmarks.md.
//
// Every server it starts listens on 127.0.0.1 or speaks stdio; every
// child process runs under a timeout and is killed at the end.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

var (
	rootDir          = flag.String("root", ".", "repository root")
	corpusDir        = flag.String("corpus", "", "spec corpus folder (default $OA2MCP_CORPUS or ROOT/../shared/corpus)")
	workDir          = flag.String("work", ".cache/bench", "scratch folder (wiped first)")
	oa2mcpBin        = flag.String("oa2mcp", "", "built oa2mcp binary (required)")
	peerDir          = flag.String("peer", ".cache/peer", "folder with openapi-mcp-generator@4.0.1 in node_modules and the generated servers' dependencies in deps/node_modules")
	nodeBin          = flag.String("node", "node", "Node.js 22 binary (type stripping is used to list tools of unbuilt peer servers)")
	runs             = flag.Int("runs", 5, "runs per spec for the in-process generation medians")
	quick            = flag.Bool("quick", false, "fewer runs, spec to server on petstore and stripe only, no cold-cache build, no peer build of kubernetes")
	buildSpecs       = flag.String("build-specs", "swaggerpetstore30,stripe,kubernetes", "corpus entries for spec to runnable server")
	onlySpecs        = flag.String("only", "", "comma-separated corpus entry names to restrict to (default all)")
	jsonOut          = flag.String("json", "", "also write all results as JSON here")
	profileSpec      = flag.String("cpuprofile-spec", "", "only profile in-process generation of this corpus entry (3 runs) into -cpuprofile, then exit")
	cpuProfile       = flag.String("cpuprofile", "generate.pprof", "CPU profile file for -cpuprofile-spec")
	peerBuildTimeout = flag.Duration("peer-build-timeout", 6*time.Minute, "bound on one peer npm run build")
)

// spec is one measured input: a corpus entry or an example with its
// override file.
type spec struct {
	Name      string // folder, binary and package name
	Path      string // absolute spec path
	Display   string // as shown in tables
	Overrides string // absolute override file, examples only
	Corpus    bool
}

func main() {
	flag.Parse()
	if *oa2mcpBin == "" {
		fatalf("-oa2mcp is required")
	}
	root, err := filepath.Abs(*rootDir)
	check(err)
	*rootDir = root
	for _, p := range []*string{workDir, peerDir, oa2mcpBin} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(root, *p)
		}
	}
	if *corpusDir == "" {
		*corpusDir = os.Getenv("OA2MCP_CORPUS")
	}
	if *corpusDir == "" {
		*corpusDir = filepath.Join(root, "..", "shared", "corpus")
	}
	if *quick {
		if *runs > 3 {
			*runs = 3
		}
		if *buildSpecs == "swaggerpetstore30,stripe,kubernetes" {
			*buildSpecs = "swaggerpetstore30,stripe"
		}
	}
	if *profileSpec != "" {
		profileGeneration(*profileSpec)
		return
	}
	check(os.RemoveAll(*workDir))
	check(os.MkdirAll(*workDir, 0o755))

	specs := corpusSpecs()
	examples := exampleSpecs()
	res := &results{Started: time.Now().UTC().Format(time.RFC3339), Quick: *quick, Runs: *runs}
	t0 := time.Now()
	ctx := context.Background()

	fmt.Printf("# oa2mcp benchmark suite\n\n%s, %s, runs=%d, quick=%v, %s\n\n", res.Started, goVersion(), *runs, *quick, machine())

	step("generation time vs kin-openapi")
	res.Gen = measureGeneration(ctx, specs)
	printGenTable(res.Gen)

	step("oa2mcp and peer CLI generation (time, peak RSS)")
	res.CLI = measureCLI(ctx, specs)
	printCLITable(res.CLI)

	step("tools/list of every generated server (oa2mcp built, peer type-stripped)")
	res.Lists = measureLists(ctx, specs, examples)
	printListTables(res.Lists, specs, examples)

	step("spec to runnable server")
	res.Servers = measureSpecToServer(ctx, specs)
	printServerTable(res.Servers)

	step("--check")
	res.Checks = measureCheck(ctx)
	printCheckTable(res.Checks)

	step("faulty upstream")
	res.Faults = measureFaults(ctx, specs)
	printFaultTable(res.Faults)

	printGoals(res, specs)
	res.Seconds = time.Since(t0).Seconds()
	fmt.Printf("\nSuite time: %.0f s\n", res.Seconds)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		check(os.WriteFile(*jsonOut, b, 0o644))
	}
	killAll()
}

type results struct {
	Started string
	Quick   bool
	Runs    int
	Seconds float64
	Gen     []genResult
	CLI     map[string]*cliResult
	Lists   map[string]*listPair
	Servers []serverResult
	Checks  []checkResult
	Faults  []faultResult
}

func corpusSpecs() []spec {
	only := map[string]bool{}
	for _, n := range strings.Split(*onlySpecs, ",") {
		if n != "" {
			only[n] = true
		}
	}
	var out []spec
	for _, e := range testenv.Corpus() {
		if len(only) > 0 && !only[e.Name] {
			continue
		}
		out = append(out, spec{Name: e.Name, Path: filepath.Join(*corpusDir, e.Path), Display: e.Path, Corpus: true})
	}
	return out
}

// exampleSpecs are the committed examples with their override files (and
// petstore once more without, to show what the overrides change).
func exampleSpecs() []spec {
	var out []spec
	for _, ex := range []struct{ name, dir string }{{"expetstore", "petstore"}, {"exaftersales", "aftersales"}} {
		dir := filepath.Join(*rootDir, "examples", ex.dir)
		sp := filepath.Join(dir, "openapi.yaml")
		if _, err := os.Stat(sp); err != nil {
			continue
		}
		ov := filepath.Join(dir, "overrides.yaml")
		if _, err := os.Stat(ov); err != nil {
			ov = ""
		}
		disp := "examples/" + ex.dir
		if ov != "" {
			disp += " + overrides.yaml"
		}
		out = append(out, spec{Name: ex.name, Path: sp, Display: disp, Overrides: ov})
		if ov != "" {
			out = append(out, spec{Name: ex.name + "default", Path: sp, Display: "examples/" + ex.dir + " (default mapping)"})
		}
	}
	return out
}

// profileGeneration writes a CPU profile of three in-process generations
// of one corpus entry, e.g.
//
//	suite -oa2mcp x -cpuprofile-spec kubernetes -cpuprofile /tmp/gen.pprof
//	go tool pprof -top /tmp/gen.pprof
func profileGeneration(name string) {
	for _, s := range corpusSpecs() {
		if s.Name != name {
			continue
		}
		f, err := os.Create(*cpuProfile)
		check(err)
		check(pprof.StartCPUProfile(f))
		for i := 0; i < 3; i++ {
			_, _, gt, err := generate(context.Background(), s)
			check(err)
			fmt.Printf("%s: load %v build %v emit %v\n", s.Display, gt.Load, gt.Build, gt.Emit)
		}
		pprof.StopCPUProfile()
		check(f.Close())
		return
	}
	fatalf("no corpus entry %q", name)
}

func step(s string) { fmt.Fprintf(os.Stderr, "[bench %s] %s\n", time.Now().Format("15:04:05"), s) }

func check(err error) {
	if err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, args ...any) {
	killAll()
	fmt.Fprintf(os.Stderr, "bench suite: "+format+"\n", args...)
	os.Exit(1)
}
