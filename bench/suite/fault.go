package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// faultCase is one upstream misbehaviour.
type faultCase struct {
	Name    string
	Status  int
	Headers map[string]string
	Body    string
	Delay   time.Duration
	Refused bool // the base URL points at a closed port
}

type faultOutcome struct {
	IsError  bool
	Protocol string // a JSON-RPC error instead of a result
	Hits     int64  // upstream requests seen
	Elapsed  time.Duration
	Text     string // first text content
	JSON     string // the whole result, truncated
}

type faultResult struct {
	Case       string
	Ours, Peer faultOutcome
}

var faultCases = []faultCase{
	{Name: "500 with a JSON error body", Status: 500, Body: `{"code":500,"message":"internal failure"}`, Headers: map[string]string{"Content-Type": "application/json"}},
	{Name: "404 with a JSON error body", Status: 404, Body: `{"code":404,"message":"no such pet"}`, Headers: map[string]string{"Content-Type": "application/json"}},
	{Name: "429 with Retry-After: 1", Status: 429, Body: `{"message":"slow down"}`, Headers: map[string]string{"Content-Type": "application/json", "Retry-After": "1"}},
	{Name: "503 with Retry-After: 1", Status: 503, Body: "upstream down", Headers: map[string]string{"Content-Type": "text/plain", "Retry-After": "1"}},
	{Name: "200 with a body that is not JSON", Status: 200, Body: "<html>oops</html>", Headers: map[string]string{"Content-Type": "application/json"}},
	{Name: "connection refused (closed port)", Refused: true},
	{Name: "no answer for 15 s (client gives up at 25 s)", Status: 200, Body: `[]`, Delay: 15 * time.Second, Headers: map[string]string{"Content-Type": "application/json"}},
}

// faultServer is the loopback upstream; its behaviour is switched per case.
type faultServer struct {
	mu   sync.Mutex
	c    faultCase
	hits atomic.Int64
	srv  *http.Server
	url  string
}

func startFaultServer() *faultServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	f := &faultServer{url: "http://" + ln.Addr().String()}
	f.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		f.mu.Lock()
		c := f.c
		f.mu.Unlock()
		if c.Delay > 0 {
			select {
			case <-time.After(c.Delay):
			case <-r.Context().Done():
				return
			}
		}
		for k, v := range c.Headers {
			w.Header().Set(k, v)
		}
		w.WriteHeader(c.Status)
		_, _ = w.Write([]byte(c.Body))
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = f.srv.Serve(ln) }()
	return f
}

// mcpSession is a started server with a connected client.
type mcpSession struct {
	cmd  *exec.Cmd
	cs   *mcp.ClientSession
	tool string
}

func startSession(ctx context.Context, cmd *exec.Cmd, want string) (*mcpSession, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = &limitedString{b: &strings.Builder{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "oa2mcp-bench-faults", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		return nil, err
	}
	track(cmd)
	s := &mcpSession{cmd: cmd, cs: cs}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		s.close()
		return nil, err
	}
	for _, t := range res.Tools {
		if strings.ReplaceAll(strings.ToLower(t.Name), "_", "") == want {
			s.tool = t.Name
		}
	}
	if s.tool == "" {
		s.close()
		return nil, fmt.Errorf("no tool %q", want)
	}
	return s, nil
}

func (s *mcpSession) close() {
	_ = s.cs.Close()
	if s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	}
	untrack(s.cmd)
}

func (s *mcpSession) call(ctx context.Context, f *faultServer) faultOutcome {
	ctx, cancel := context.WithTimeout(ctx, 25*time.Second)
	defer cancel()
	before := f.hits.Load()
	start := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: s.tool, Arguments: map[string]any{}})
	o := faultOutcome{Elapsed: time.Since(start), Hits: f.hits.Load() - before}
	if err != nil {
		o.Protocol = truncate(firstLine(err.Error()), 200)
		return o
	}
	o.IsError = res.IsError
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			o.Text = tc.Text
			break
		}
	}
	b, _ := json.Marshal(res)
	o.JSON = truncate(string(b), 700)
	return o
}

// measureFaults calls the list-pets tool of both generators' servers for
// oai-petstore-3.0.yaml against a loopback upstream that misbehaves.
func measureFaults(ctx context.Context, specs []spec) []faultResult {
	const name = "oaipetstore3"
	ours := filepath.Join(*workDir, "list", "bin", name)
	peer := filepath.Join(*workDir, "peer", name)
	f := startFaultServer()
	defer f.srv.Close()
	start := func(base string) (o, p *mcpSession, err error) {
		oc := exec.Command(ours)
		oc.Env = append(os.Environ(), strings.ToUpper(name)+"_BASE_URL="+base)
		if o, err = startSession(ctx, oc, "listpets"); err != nil {
			return nil, nil, fmt.Errorf("oa2mcp server: %v", err)
		}
		pc := peerCommand(peer)
		pc.Env = append(pc.Env, "API_BASE_URL="+base)
		if p, err = startSession(ctx, pc, "listpets"); err != nil {
			o.close()
			return nil, nil, fmt.Errorf("peer server: %v", err)
		}
		return o, p, nil
	}
	o, p, err := start(f.url)
	if err != nil {
		fmt.Fprintf(os.Stderr, "  faults skipped: %v\n", err)
		return []faultResult{{Case: "could not start: " + err.Error()}}
	}
	var out []faultResult
	for _, c := range faultCases {
		if *quick && c.Delay > 0 {
			continue
		}
		f.mu.Lock()
		f.c = c
		f.mu.Unlock()
		r := faultResult{Case: c.Name}
		if c.Refused {
			ro, rp, err := start("http://127.0.0.1:9")
			if err != nil {
				r.Ours.Protocol = err.Error()
			} else {
				r.Ours, r.Peer = ro.call(ctx, f), rp.call(ctx, f)
				ro.close()
				rp.close()
			}
		} else {
			r.Ours, r.Peer = o.call(ctx, f), p.call(ctx, f)
		}
		fmt.Fprintf(os.Stderr, "  %-45s oa2mcp isError=%v %v | peer isError=%v %v\n", c.Name, r.Ours.IsError, r.Ours.Elapsed.Round(time.Millisecond),
			r.Peer.IsError, r.Peer.Elapsed.Round(time.Millisecond))
		out = append(out, r)
	}
	o.close()
	p.close()
	return out
}

func printFaultTable(rows []faultResult) {
	fmt.Println("## Faulty upstream: the list-pets tool of `oai-petstore-3.0.yaml`, both generators")
	fmt.Println()
	fmt.Println("Both servers over stdio (go-sdk client), upstream a loopback server on 127.0.0.1 answering every request as the case says; `{}` as arguments. \"hits\" = requests the upstream saw for the one call.")
	fmt.Println()
	fmt.Println("| upstream | oa2mcp isError | hits | s | oa2mcp text | peer isError | hits | s | peer text |")
	fmt.Println("|---|---|---:|---:|---|---|---:|---:|---|")
	cell := func(o faultOutcome) string {
		if o.Protocol != "" {
			return fmt.Sprintf("JSON-RPC error | %d | %s | %s", o.Hits, secs(o.Elapsed), mdEscape(truncate(o.Protocol, 160)))
		}
		return fmt.Sprintf("%v | %d | %s | %s", o.IsError, o.Hits, secs(o.Elapsed), mdEscape(truncate(o.Text, 160)))
	}
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s |\n", r.Case, cell(r.Ours), cell(r.Peer))
	}
	fmt.Println()
	fmt.Println("<details><summary>Results as returned (JSON, truncated)</summary>")
	fmt.Println()
	for _, r := range rows {
		fmt.Printf("- %s\n  - oa2mcp: `%s`\n  - peer: `%s`\n", r.Case, strings.ReplaceAll(r.Ours.JSON, "`", "'"), strings.ReplaceAll(r.Peer.JSON, "`", "'"))
	}
	fmt.Println()
	fmt.Println("</details>")
	fmt.Println()
}
