// Command suite measures oa2mcp on the public spec corpus and, in the same
// run, the npm peer openapi-mcp-generator, and prints Markdown tables:
// generation time against a plain kin-openapi load and side by side with
// oapi-codegen, spec to runnable server, generator peak RSS, tools/list
// size and quality, --check time, and behaviour against a faulty
// upstream. scripts/bench.sh builds and
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
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/cli"
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
	steps            = flag.String("steps", "gen,wholegen,oapicodegen,cli,list,s2s,check,faults,peers,coldstart", "steps to run, comma-separated (tables print in this order)")
	backendBin       = flag.String("backend", "", "built examples/petstore/cmd/petstore-backend, for the side-by-side per-call table")
	jedisct1Bin      = flag.String("jedisct1", ".cache/jedisct1/openapi-mcp", "built jedisct1/openapi-mcp (scripts/bench.sh builds it); missing: the table says so")
	kinloadBin       = flag.String("kinload", ".cache/bench-bin/kinload", "built bench/kinload, the whole-process kin-openapi baseline")
	peerCalls        = flag.Int("peer-calls", 2000, "measured calls per server and round in the side-by-side table")
	peerWarmup       = flag.Int("peer-warmup", 300, "warm-up calls per server and round")
	peerConc         = flag.Int("peer-conc", 8, "concurrent callers in the side-by-side table")
	peerRounds       = flag.Int("peer-rounds", 3, "rounds of the side-by-side table")
	profileCLI       = flag.String("cpuprofile-cli", "", "only profile a whole `oa2mcp generate` of this corpus entry, in process (CPU into -cpuprofile, heap into -cpuprofile.heap), then exit")
	coldBins         = flag.String("coldstart-bins", "", "only time start to the last tools/list page of these built servers (comma-separated), then exit")
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
	for _, p := range []*string{workDir, peerDir, oa2mcpBin, jedisct1Bin, kinloadBin, oapiBin} {
		if !filepath.IsAbs(*p) {
			*p = filepath.Join(root, *p)
		}
	}
	if strings.Contains(*nodeBin, "/") && !filepath.IsAbs(*nodeBin) {
		*nodeBin = filepath.Join(root, *nodeBin)
	}
	if *corpusDir == "" {
		*corpusDir = os.Getenv("OA2MCP_CORPUS")
	}
	if *corpusDir == "" {
		*corpusDir = filepath.Join(root, "..", "shared", "corpus")
	}
	if *quick {
		*peerCalls = min(*peerCalls, 1000)
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
	if *profileCLI != "" {
		profileGenerateCLI(*profileCLI)
		return
	}
	if *coldBins != "" {
		timeColdStarts(strings.Split(*coldBins, ","))
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

	want := map[string]bool{}
	for _, st := range strings.Split(*steps, ",") {
		want[strings.TrimSpace(st)] = true
	}
	if want["gen"] {
		step("generation time vs kin-openapi")
		res.Gen = measureGeneration(ctx, specs)
		printGenTable(res.Gen)
	}
	if want["wholegen"] {
		step("generation as a whole process vs kin-openapi alone")
		res.WholeGen = measureWholeGen(ctx, specs)
		printWholeGenTable(res.WholeGen)
	}
	if want["oapicodegen"] {
		step("generation side by side with oapi-codegen " + OapiCodegenVersion)
		res.OapiCodegen = measureOapiCodegen(ctx, specs)
		printOapiTable(res.OapiCodegen)
	}
	if want["cli"] {
		step("oa2mcp and peer CLI generation (time, peak RSS)")
		res.CLI = measureCLI(ctx, specs)
		printCLITable(res.CLI)
	}
	if want["list"] {
		step("tools/list of every generated server (oa2mcp built, peer type-stripped)")
		res.Lists = measureLists(ctx, specs, examples)
		printListTables(res.Lists, specs, examples)
	}
	if want["s2s"] {
		step("spec to runnable server")
		res.Servers = measureSpecToServer(ctx, specs)
		printServerTable(res.Servers)
	}
	if want["check"] {
		step("--check")
		res.Checks = measureCheck(ctx)
		printCheckTable(res.Checks)
	}
	if want["faults"] && want["list"] { // uses the servers the list step built
		step("faulty upstream")
		res.Faults = measureFaults(ctx, specs)
		printFaultTable(res.Faults)
	}
	if want["peers"] {
		step("per call, side by side: oa2mcp, jedisct1/openapi-mcp, openapi-mcp-generator")
		res.Peers = measurePeers(ctx)
		printPeersTable(res.Peers)
	}
	if want["coldstart"] {
		step("cold start: process start to the last tools/list page")
		res.ColdStart = measureColdStart(ctx)
		printColdStartTable(res.ColdStart)
	}

	if want["gen"] && want["list"] && want["s2s"] {
		printGoals(res, specs)
	}
	res.Seconds = time.Since(t0).Seconds()
	fmt.Printf("\nSuite time: %.0f s\n", res.Seconds)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(res, "", "  ")
		check(os.WriteFile(*jsonOut, b, 0o644))
	}
	killAll()
}

type results struct {
	Started  string
	Quick    bool
	Runs     int
	Seconds  float64
	Gen      []genResult
	CLI      map[string]*cliResult
	Lists    map[string]*listPair
	Servers  []serverResult
	Checks   []checkResult
	Faults   []faultResult
	WholeGen []wholeGenResult
	// OapiCodegen is generation side by side with oapi-codegen.
	OapiCodegen []oapiResult
	Peers       *peersResult
	ColdStart   []coldResult
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
			fmt.Printf("%s: load %v mapping %v cases %v emit %v\n", s.Display, gt.Load, gt.Build, gt.Cases, gt.Emit)
		}
		pprof.StopCPUProfile()
		check(f.Close())
		return
	}
	fatalf("no corpus entry %q", name)
}

// profileGenerateCLI profiles one whole `oa2mcp generate` (load, mapping,
// call cases and their proof, emit, lint, write) of a corpus entry into a
// fresh folder outside any module, as the CLI runs it, e.g.
//
//	suite -oa2mcp x -cpuprofile-cli kubernetes -cpuprofile /tmp/gen.pprof
//	go tool pprof -top /tmp/gen.pprof
func profileGenerateCLI(name string) {
	for _, s := range corpusSpecs() {
		if s.Name != name {
			continue
		}
		tmp, err := os.MkdirTemp("", "oa2mcp-prof-")
		check(err)
		defer os.RemoveAll(tmp)
		f, err := os.Create(*cpuProfile)
		check(err)
		check(pprof.StartCPUProfile(f))
		start := time.Now()
		code := cli.Run([]string{"generate", "--spec", s.Path, "--out", filepath.Join(tmp, "x"), "--package", "x", "-v",
			"--runtime-dir", filepath.Join(*rootDir, "runtime")}, nil, io.Discard, os.Stderr)
		pprof.StopCPUProfile()
		check(f.Close())
		h, err := os.Create(*cpuProfile + ".heap")
		check(err)
		check(pprof.Lookup("allocs").WriteTo(h, 0))
		check(h.Close())
		fmt.Printf("%s: exit %d in %v\n", s.Display, code, time.Since(start).Round(time.Millisecond))
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
