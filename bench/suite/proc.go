package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"
)

// procResult is what one child process did.
type procResult struct {
	Wall    time.Duration
	MaxRSS  int64 // KiB, peak RSS of the command (GNU time %M)
	Exit    int
	Stdout  string
	Stderr  string
	Timeout bool
}

func (p procResult) ok() bool { return p.Exit == 0 && !p.Timeout }

// failure is a one-line reason for a failed run.
func (p procResult) failure() string {
	if p.Timeout {
		return fmt.Sprintf("timed out after %s", p.Wall.Round(time.Second))
	}
	msg := strings.TrimSpace(p.Stderr)
	if msg == "" {
		msg = strings.TrimSpace(p.Stdout)
	}
	lines := strings.Split(msg, "\n")
	// the most telling line is the last one naming an error, else the
	// last non-empty one
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.Contains(strings.ToLower(l), "error") {
			return fmt.Sprintf("exit %d: %s", p.Exit, truncate(l, 160))
		}
	}
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return fmt.Sprintf("exit %d: %s", p.Exit, truncate(l, 160))
		}
	}
	return fmt.Sprintf("exit %d", p.Exit)
}

// run runs name args in dir with extra env, bounded by timeout; the whole
// process group is killed on timeout.
func run(ctx context.Context, timeout time.Duration, dir string, env []string, name string, args ...string) procResult {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Peak RSS comes from /usr/bin/time: the rusage of a direct child is
	// useless here, since Go starts children with vfork and Linux carries
	// the parent's high-water mark across exec into ru_maxrss.
	var rssFile string
	if _, err := os.Stat("/usr/bin/time"); err == nil {
		f, err := os.CreateTemp("", "bench-rss-*")
		if err == nil {
			rssFile = f.Name()
			f.Close()
			defer os.Remove(rssFile)
			args = append([]string{"-f", "%M", "-o", rssFile, name}, args...)
			name = "/usr/bin/time"
		}
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &limited{b: &out}, &limited{b: &errb}
	start := time.Now()
	err := cmd.Run()
	r := procResult{Wall: time.Since(start), Stdout: out.String(), Stderr: errb.String()}
	if cmd.ProcessState != nil {
		r.Exit = cmd.ProcessState.ExitCode()
		if rssFile != "" {
			if b, err := os.ReadFile(rssFile); err == nil {
				fields := strings.Fields(string(b))
				if len(fields) > 0 {
					fmt.Sscan(fields[len(fields)-1], &r.MaxRSS)
				}
			}
		}
	} else if err != nil {
		r.Exit = -1
		r.Stderr = err.Error()
	}
	if ctx.Err() == context.DeadlineExceeded {
		r.Timeout = true
	}
	return r
}

// limited keeps the first 256 KiB and the last bytes of a child's output.
type limited struct{ b *bytes.Buffer }

func (l *limited) Write(p []byte) (int, error) {
	const max = 256 << 10
	if l.b.Len() < max {
		n := len(p)
		if l.b.Len()+n > max {
			n = max - l.b.Len()
		}
		l.b.Write(p[:n])
	}
	return len(p), nil
}

// long-running children (servers) are tracked so that killAll can end
// them whatever happens.
var (
	childMu  sync.Mutex
	children = map[int]*exec.Cmd{}
)

func track(cmd *exec.Cmd) {
	childMu.Lock()
	defer childMu.Unlock()
	if cmd.Process != nil {
		children[cmd.Process.Pid] = cmd
	}
}

func untrack(cmd *exec.Cmd) {
	childMu.Lock()
	defer childMu.Unlock()
	if cmd.Process != nil {
		delete(children, cmd.Process.Pid)
	}
}

func killAll() {
	childMu.Lock()
	defer childMu.Unlock()
	for pid := range children {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	children = map[int]*exec.Cmd{}
}

func goVersion() string { return runtime.Version() }

func machine() string {
	model := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				model = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("%d CPUs (%s), %s/%s", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH)
}

func kib(k int64) string { return fmt.Sprintf("%.0f MiB", float64(k)/1024) }
