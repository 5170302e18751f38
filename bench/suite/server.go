package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

type serverSide struct {
	Gen, Build time.Duration
	Err        string
}

func (s serverSide) total() time.Duration { return s.Gen + s.Build }

type serverResult struct {
	Spec       string
	Cache      string // "warm" or "cold"
	Ours, Peer serverSide
}

func tscPath() string {
	return filepath.Join(*peerDir, "deps", "node_modules", "typescript", "bin", "tsc")
}

func npmPath() string {
	if p, err := exec.LookPath("npm"); err == nil {
		return p
	}
	nb := *nodeBin
	if !filepath.IsAbs(nb) {
		if p, err := exec.LookPath(nb); err == nil {
			nb = p
		}
	}
	return filepath.Join(filepath.Dir(nb), "npm")
}

// oursToServer generates s into a fresh module (a new module path each
// time, so no earlier build of the generated package is reused) and builds
// its cmd. env may point GOCACHE at an empty folder for a cold build.
func oursToServer(ctx context.Context, s spec, tag string, env []string) serverSide {
	mod := filepath.Join(*workDir, "s2s", s.Name+"-"+tag)
	newModule(mod, fmt.Sprintf("s2s%d", time.Now().UnixNano()))
	g := runOursGenerate(ctx, s, filepath.Join(mod, "srv"))
	r := serverSide{Gen: g.Wall}
	if !g.ok() {
		r.Err = "generate: " + g.failure()
		return r
	}
	b := run(ctx, 20*time.Minute, mod, goEnv(env...), "go", "build", "-o", filepath.Join(mod, "bin", s.Name), "./srv/cmd/"+s.Name)
	r.Build = b.Wall
	if !b.ok() {
		r.Err = "go build: " + b.failure()
	}
	return r
}

// peerToServer generates s with the peer and compiles it with tsc (the
// body of its `npm run build`). With install set, dependencies are
// installed into the output from the registry first (cold), else the
// shared installed tree is linked in (warm).
func peerToServer(ctx context.Context, s spec, tag string, install bool) serverSide {
	out := filepath.Join(*workDir, "s2s-peer", s.Name+"-"+tag)
	_ = os.RemoveAll(out)
	g := run(ctx, 5*time.Minute, *rootDir, nil, *nodeBin, peerBin(), "-i", s.Path, "-o", out, "-n", s.Name, "-b", "http://127.0.0.1:9", "--force")
	r := serverSide{Gen: g.Wall}
	if !g.ok() {
		r.Err = "generate: " + g.failure()
		return r
	}
	env := []string{"PATH=" + filepath.Dir(npmPath()) + ":" + os.Getenv("PATH")}
	if install {
		i := run(ctx, 10*time.Minute, out, env, npmPath(), "install", "--no-audit", "--no-fund", "--loglevel=warn",
			"--cache", filepath.Join(*workDir, "npm-cold-cache"))
		r.Build += i.Wall
		if !i.ok() {
			r.Err = "npm install: " + i.failure()
			return r
		}
	} else {
		check(os.Symlink(filepath.Join(*peerDir, "deps", "node_modules"), filepath.Join(out, "node_modules")))
	}
	b := run(ctx, *peerBuildTimeout, out, env, *nodeBin, tscPath())
	r.Build += b.Wall
	if !b.ok() {
		r.Err = "tsc: " + b.failure()
	}
	return r
}

func measureSpecToServer(ctx context.Context, specs []spec) []serverResult {
	byName := map[string]spec{}
	for _, s := range specs {
		byName[s.Name] = s
	}
	var out []serverResult
	for _, n := range strings.Split(*buildSpecs, ",") {
		s, ok := byName[n]
		if !ok {
			continue
		}
		r := serverResult{Spec: s.Display, Cache: "warm"}
		r.Ours = oursToServer(ctx, s, "warm", nil)
		r.Peer = peerToServer(ctx, s, "warm", false)
		fmt.Fprintf(os.Stderr, "  %-40s oa2mcp %v+%v %s | peer %v+%v %s\n", s.Display, r.Ours.Gen.Round(time.Millisecond), r.Ours.Build.Round(time.Millisecond), r.Ours.Err,
			r.Peer.Gen.Round(time.Millisecond), r.Peer.Build.Round(time.Millisecond), r.Peer.Err)
		out = append(out, r)
	}
	if !*quick {
		if s, ok := byName["swaggerpetstore30"]; ok {
			cache := filepath.Join(*workDir, "gocache-cold")
			check(os.MkdirAll(cache, 0o755))
			r := serverResult{Spec: s.Display, Cache: "cold"}
			r.Ours = oursToServer(ctx, s, "cold", []string{"GOCACHE=" + cache})
			r.Peer = peerToServer(ctx, s, "cold", true)
			fmt.Fprintf(os.Stderr, "  %-40s cold: oa2mcp %v+%v %s | peer %v+%v %s\n", s.Display, r.Ours.Gen.Round(time.Millisecond), r.Ours.Build.Round(time.Millisecond), r.Ours.Err,
				r.Peer.Gen.Round(time.Millisecond), r.Peer.Build.Round(time.Millisecond), r.Peer.Err)
			out = append(out, r)
			_ = os.RemoveAll(cache)
		}
	}
	return out
}

func printServerTable(rows []serverResult) {
	fmt.Println("## Spec to runnable server (one run each)")
	fmt.Println()
	fmt.Println("oa2mcp: `oa2mcp generate` into a fresh module (new module path, so the generated package is never in the build cache), then `go build ./srv/cmd/NAME`. Warm = Go module and build caches hold the dependencies (go-sdk, std); cold = empty `GOCACHE` (modules still on disk). Peer: its CLI, then `tsc` (the body of `npm run build`) with an installed dependency tree linked in (warm), or `npm install` from the registry into the output first (cold). Goal: oa2mcp at most a third of the peer's time.")
	fmt.Println()
	fmt.Println("| spec | caches | oa2mcp generate s | go build s | oa2mcp total s | peer generate s | peer build s | peer total s | oa2mcp / peer | goal ≤0.33 |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		ot, pt := secs(r.Ours.total()), secs(r.Peer.total())
		if r.Ours.Err != "" {
			ot += " FAILED: " + mdEscape(truncate(r.Ours.Err, 100))
		}
		if r.Peer.Err != "" {
			pt += " FAILED: " + mdEscape(truncate(r.Peer.Err, 100))
		}
		ratio, goal := "n/a", "n/a"
		if r.Ours.Err == "" && r.Peer.Err == "" {
			x := float64(r.Ours.total()) / float64(r.Peer.total())
			ratio, goal = fmt.Sprintf("%.2f", x), yesNo(x <= 1.0/3)
		} else if r.Ours.Err == "" {
			goal = "yes (peer failed)"
		}
		fmt.Printf("| `%s` | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Spec, r.Cache, secs(r.Ours.Gen), secs(r.Ours.Build), ot,
			secs(r.Peer.Gen), secs(r.Peer.Build), pt, ratio, goal)
	}
	fmt.Println()
}

type checkResult struct {
	What     string
	Command  string
	Median   time.Duration
	Exit     int
	Generate time.Duration // plain generate of the same, for comparison
}

// measureCheck times `oa2mcp generate --check` (median of 3).
func measureCheck(ctx context.Context) []checkResult {
	var out []checkResult
	timeIt := func(what, cmdline string, gen time.Duration, args ...string) {
		var ds []time.Duration
		exit := 0
		for i := 0; i < 3; i++ {
			r := run(ctx, 5*time.Minute, *rootDir, nil, *oa2mcpBin, args...)
			ds = append(ds, r.Wall)
			exit = r.Exit
		}
		out = append(out, checkResult{What: what, Command: cmdline, Median: median(ds), Exit: exit, Generate: gen})
	}
	cfg := filepath.Join(*rootDir, "examples", "petstore", "oa2mcp.yaml")
	if _, err := os.Stat(cfg); err == nil {
		timeIt("examples/petstore (committed, with overrides)", "oa2mcp generate -c examples/petstore/oa2mcp.yaml --check", 0,
			"generate", "-c", cfg, "--check")
	}
	// the largest corpus spec, generated into a fresh folder first
	k := filepath.Join(*corpusDir, "kubernetes-2.0.json")
	out2 := filepath.Join(*workDir, "check", "kubernetes")
	newModule(filepath.Dir(out2), "checkbench")
	g := run(ctx, 5*time.Minute, *rootDir, nil, *oa2mcpBin, "generate", "--spec", k, "--out", out2, "--name", "kubernetes")
	if g.ok() {
		timeIt("kubernetes-2.0.json (4.1 MB, 1123 tools), freshly generated", "oa2mcp generate --spec kubernetes-2.0.json --out DIR --name kubernetes --check", g.Wall,
			"generate", "--spec", k, "--out", out2, "--name", "kubernetes", "--check")
	} else {
		out = append(out, checkResult{What: "kubernetes: generate failed: " + g.failure(), Exit: g.Exit})
	}
	return out
}

func printCheckTable(rows []checkResult) {
	fmt.Println("## `oa2mcp generate --check` (median of 3, whole process)")
	fmt.Println()
	fmt.Println("| target | command | --check s | exit | plain generate s |")
	fmt.Println("|---|---|---:|---:|---:|")
	for _, r := range rows {
		gen := ""
		if r.Generate > 0 {
			gen = secs(r.Generate)
		}
		fmt.Printf("| %s | `%s` | %s | %d | %s |\n", r.What, r.Command, secs(r.Median), r.Exit, gen)
	}
	fmt.Println()
	fmt.Println("Exit 0 = up to date, 1 = drift (the committed example was being edited when this ran, if 1).")
	fmt.Println()
}
