package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

type cliRun struct {
	Wall   time.Duration
	MaxRSS int64
	Err    string
	Bytes  int64 // generated source size
}

type cliResult struct {
	Spec       string
	Ours, Peer cliRun
}

func peerBin() string {
	return filepath.Join(*peerDir, "node_modules", "openapi-mcp-generator", "bin", "openapi-mcp-generator.js")
}

// runPeerGenerate runs the peer's CLI on s into out. Every spec gets a
// base URL so that specs without servers are not refused for that alone
// (oa2mcp's servers get one through NAME_BASE_URL too).
func runPeerGenerate(ctx context.Context, s spec, out string) procResult {
	_ = os.RemoveAll(out)
	r := run(ctx, 5*time.Minute, *rootDir, nil, *nodeBin, peerBin(), "-i", s.Path, "-o", out, "-n", s.Name,
		"-b", "http://127.0.0.1:9", "--force")
	if r.ok() {
		// the generated servers share one installed dependency tree
		_ = os.Symlink(filepath.Join(*peerDir, "deps", "node_modules"), filepath.Join(out, "node_modules"))
	}
	return r
}

func runOursGenerate(ctx context.Context, s spec, out string, extra ...string) procResult {
	args := []string{"generate", "--spec", s.Path, "--out", out, "--name", s.Name}
	if s.Overrides != "" {
		args = append(args, "--overrides", s.Overrides)
	}
	args = append(args, extra...)
	return run(ctx, 5*time.Minute, *rootDir, nil, *oa2mcpBin, args...)
}

func dirSize(dir string, exts ...string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if info.IsDir() && info.Name() == "node_modules" {
			return filepath.SkipDir
		}
		if info.Mode().IsRegular() {
			for _, e := range exts {
				if strings.HasSuffix(p, e) {
					n += info.Size()
				}
			}
		}
		return nil
	})
	return n
}

func measureCLI(ctx context.Context, specs []spec) map[string]*cliResult {
	out := map[string]*cliResult{}
	cliMod := filepath.Join(*workDir, "cli")
	newModule(cliMod, "clibench")
	for _, s := range specs {
		r := &cliResult{Spec: s.Display}
		o := runOursGenerate(ctx, s, filepath.Join(cliMod, s.Name))
		r.Ours = cliRun{Wall: o.Wall, MaxRSS: o.MaxRSS, Bytes: dirSize(filepath.Join(cliMod, s.Name), ".go")}
		if !o.ok() {
			r.Ours.Err = o.failure()
		}
		pdir := filepath.Join(*workDir, "peer", s.Name)
		p := runPeerGenerate(ctx, s, pdir)
		r.Peer = cliRun{Wall: p.Wall, MaxRSS: p.MaxRSS, Bytes: dirSize(pdir, ".ts")}
		if !p.ok() {
			r.Peer.Err = p.failure()
		}
		out[s.Name] = r
		fmt.Fprintf(os.Stderr, "  %-55s oa2mcp %v %s | peer %v %s %s\n", s.Display, o.Wall.Round(time.Millisecond), kib(o.MaxRSS),
			p.Wall.Round(time.Millisecond), kib(p.MaxRSS), r.Peer.Err)
	}
	return out
}

func printCLITable(m map[string]*cliResult) {
	fmt.Println("## Generator CLI: wall time and peak RSS (one run per spec, whole process)")
	fmt.Println()
	fmt.Println("oa2mcp: `oa2mcp generate --spec SPEC --out DIR --name NAME` (writes the files; includes process start). Peer: `node openapi-mcp-generator.js -i SPEC -o DIR -n NAME -b http://127.0.0.1:9 --force`. Peak RSS: `/usr/bin/time -f %M` around each command.")
	fmt.Println()
	fmt.Println("| spec | oa2mcp s | oa2mcp peak RSS | oa2mcp output (.go) | peer s | peer peak RSS | peer output (.ts) | peer status |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---|")
	for _, s := range corpusSpecs() {
		r := m[s.Name]
		if r == nil {
			continue
		}
		ours := secs(r.Ours.Wall)
		if r.Ours.Err != "" {
			ours += " FAILED: " + mdEscape(r.Ours.Err)
		}
		status := "ok"
		if r.Peer.Err != "" {
			status = "FAILED: " + mdEscape(r.Peer.Err)
		}
		fmt.Printf("| `%s` | %s | %s | %s | %s | %s | %s | %s |\n", r.Spec, ours, kib(r.Ours.MaxRSS), size(r.Ours.Bytes),
			secs(r.Peer.Wall), kib(r.Peer.MaxRSS), size(r.Peer.Bytes), status)
	}
	fmt.Println()
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MB", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	default:
		return fmt.Sprintf("%d B", n)
	}
}
