package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator/write"
	"github.com/oa2mcp/oa2mcp/internal/quality"
)

// listResult is one server's tools/list, measured and checked.
type listResult struct {
	Err        string
	Ops        int // operations in the spec (oa2mcp's loader)
	Tools      int
	Bytes      int // JSON of all tools, as e2e/corpus_test.go counts it
	MaxTool    int
	MaxName    string
	Props      int // top-level input properties over all tools
	Issues     int
	ByCategory map[string]int // tools affected per quality category
	Examples   []string       // a few issue messages
	Parts      map[string]int // bytes per part, see breakdown
}

type listPair struct {
	Spec       string
	Ours, Peer *listResult
}

// quality categories, in table order
var categories = []struct{ key, title, match string }{
	{"name", "bad name", "name does not match"},
	{"dup", "duplicate", "duplicate name"},
	{"title", "no title", ": no title"},
	{"desc", "no description", ": no description"},
	{"root", "root not object / no additionalProperties:false", "input schema root is not type object|lacks additionalProperties|at the root"},
	{"propdesc", "undescribed property", "has no description"},
	{"portable", "type array / array without items", "type array at|array without items"},
	{"compile", "does not compile (2020-12)", "does not compile|not a JSON object"},
}

func categorize(issues []string) map[string]int {
	tools := map[string]map[string]bool{}
	for _, is := range issues {
		name, msg, _ := strings.Cut(is, ": ")
		msg = ": " + msg
		for _, c := range categories {
			hit := false
			for _, m := range strings.Split(c.match, "|") {
				if strings.Contains(msg, m) {
					hit = true
				}
			}
			if c.key == "desc" && strings.Contains(msg, "has no description") {
				hit = false
			}
			if hit {
				if tools[c.key] == nil {
					tools[c.key] = map[string]bool{}
				}
				tools[c.key][name] = true
				break
			}
		}
	}
	out := map[string]int{}
	for k, v := range tools {
		out[k] = len(v)
	}
	return out
}

// listTools starts cmd as an MCP server over stdio and reads every page
// of tools/list with a minimal newline-delimited JSON-RPC client (the SDK
// client refuses frames as large as some peer servers send). Each page is
// decoded into the SDK's ListToolsResult and its tools marshalled again,
// which is what e2e/corpus_test.go counts through the SDK client.
func listTools(ctx context.Context, cmd *exec.Cmd, ops int) *listResult {
	ctx, cancel := context.WithTimeout(ctx, 4*time.Minute)
	defer cancel()
	var stderr strings.Builder
	cmd.Stderr = &limitedString{b: &stderr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	check(err)
	stdout, err := cmd.StdoutPipe()
	check(err)
	if err := cmd.Start(); err != nil {
		return &listResult{Err: "start: " + err.Error()}
	}
	track(cmd)
	done := make(chan struct{})
	defer func() {
		close(done)
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		untrack(cmd)
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	rd := bufio.NewReaderSize(stdout, 1<<20)
	id := 0
	call := func(method string, params any) (json.RawMessage, error) {
		id++
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := stdin.Write(append(msg, '\n')); err != nil {
			return nil, err
		}
		for n := 0; n < 100000; n++ {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("reading: %v (stderr: %s)", err, truncate(lastLine(stderr.String()), 160))
			}
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &resp) != nil || resp.ID == nil || *resp.ID != id {
				continue // notifications, server requests, log lines
			}
			if resp.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, truncate(string(resp.Error), 200))
			}
			return resp.Result, nil
		}
		return nil, fmt.Errorf("%s: no answer", method)
	}
	if _, err := call("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "oa2mcp-bench", "version": "1"}}); err != nil {
		return &listResult{Err: "initialize: " + firstLine(err.Error())}
	}
	note, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	_, _ = stdin.Write(append(note, '\n'))
	r := &listResult{Ops: ops, Parts: map[string]int{}}
	var tools []quality.Tool
	var cursor string
	for page := 0; page < 10000; page++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := call("tools/list", params)
		if err != nil {
			r.Err = "tools/list: " + firstLine(err.Error())
			return r
		}
		var res mcp.ListToolsResult
		if err := json.Unmarshal(raw, &res); err != nil {
			r.Err = "tools/list result: " + firstLine(err.Error())
			return r
		}
		all, _ := json.Marshal(res.Tools)
		r.Bytes += len(all)
		for _, t := range res.Tools {
			one, _ := json.Marshal(t)
			if len(one) > r.MaxTool {
				r.MaxTool, r.MaxName = len(one), t.Name
			}
			breakdown(one, r.Parts)
		}
		var pageTools []quality.Tool
		check(json.Unmarshal(all, &pageTools))
		tools = append(tools, pageTools...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	r.Tools = len(tools)
	for _, t := range tools {
		var s struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		r.Props += len(s.Properties)
	}
	issues := quality.Check(tools)
	r.Issues = len(issues)
	r.ByCategory = categorize(issues)
	for i, is := range issues {
		if i == 3 {
			break
		}
		r.Examples = append(r.Examples, truncate(is, 200))
	}
	return r
}

// breakdown adds the bytes of one tool's parts: the top-level fields, and
// inside the input and output schemas the $defs, every description, enum
// lists and examples/defaults.
func breakdown(tool []byte, parts map[string]int) {
	var top map[string]json.RawMessage
	if json.Unmarshal(tool, &top) != nil {
		return
	}
	for k, v := range top {
		parts["field:"+k] += len(v) + len(k) + 4
	}
	for _, k := range []string{"inputSchema", "outputSchema"} {
		raw, ok := top[k]
		if !ok {
			continue
		}
		var m map[string]any
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if d, ok := m["$defs"]; ok {
			b, _ := json.Marshal(d)
			parts[k+":$defs"] += len(b)
		}
		walkSchema(m, k, parts)
	}
}

func walkSchema(v any, where string, parts map[string]int) {
	switch n := v.(type) {
	case map[string]any:
		for k, x := range n {
			switch k {
			case "description":
				if s, ok := x.(string); ok {
					b, _ := json.Marshal(s)
					parts[where+":descriptions"] += len(b) + 14
					continue
				}
			case "enum", "examples", "example", "default":
				b, _ := json.Marshal(x)
				parts[where+":enum/examples/default"] += len(b) + len(k) + 3
				continue
			case "properties":
				// property names are structure; descend
			}
			walkSchema(x, where, parts)
		}
	case []any:
		for _, x := range n {
			walkSchema(x, where, parts)
		}
	}
}

type limitedString struct{ b *strings.Builder }

func (l *limitedString) Write(p []byte) (int, error) {
	if l.b.Len() < 64<<10 {
		l.b.Write(p)
	}
	return len(p), nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// measureLists generates every spec into one module, builds all servers
// with one go build, and lists each; the peer's servers are listed from
// their TypeScript through Node's type stripping (or from build/ when
// built), which serves the same tool definitions as the compiled server.
func measureLists(ctx context.Context, specs, examples []spec) map[string]*listPair {
	out := map[string]*listPair{}
	mod := filepath.Join(*workDir, "list")
	newModule(mod, "oa2mcpbench")
	all := append(append([]spec(nil), specs...), examples...)
	ops := map[string]int{}
	built := map[string]bool{}
	for _, s := range all {
		p := &listPair{Spec: s.Display}
		out[s.Name] = p
		res, doc, _, err := generate(ctx, s)
		if err != nil {
			p.Ours = &listResult{Err: err.Error()}
			continue
		}
		ops[s.Name] = len(doc.Operations)
		dir := filepath.Join(mod, s.Name)
		changes, err := write.Plan(dir, res.Files)
		check(err)
		check(write.Apply(dir, changes))
		if !s.Corpus {
			copyHandWritten(filepath.Dir(s.Path), dir, s.Name)
		}
		built[s.Name] = true
	}
	start := time.Now()
	b := run(ctx, 20*time.Minute, mod, goEnv(), "go", "build", "-o", filepath.Join(mod, "bin")+"/", "./...")
	fmt.Fprintf(os.Stderr, "  go build of %d servers: %v\n", len(built), time.Since(start).Round(time.Second))
	if !b.ok() {
		fmt.Fprintf(os.Stderr, "go build failed:\n%s\n", truncate(b.Stderr, 4000))
	}
	for _, s := range all {
		p := out[s.Name]
		if p.Ours == nil {
			bin := filepath.Join(mod, "bin", s.Name)
			if _, err := os.Stat(bin); err != nil {
				p.Ours = &listResult{Err: "not built: " + b.failure()}
			} else {
				cmd := exec.Command(bin)
				cmd.Env = append(os.Environ(), "GOGC=off", strings.ToUpper(s.Name)+"_BASE_URL=http://127.0.0.1:9/")
				p.Ours = listTools(ctx, cmd, ops[s.Name])
			}
		}
		pdir := filepath.Join(*workDir, "peer", s.Name)
		if _, err := os.Stat(filepath.Join(pdir, "src", "index.ts")); err != nil {
			// examples are not in the CLI table: generate them here
			if r := runPeerGenerate(ctx, s, pdir); !r.ok() {
				p.Peer = &listResult{Err: "generate: " + r.failure()}
			}
		}
		if p.Peer == nil {
			p.Peer = listTools(ctx, peerCommand(pdir), ops[s.Name])
		}
		fmt.Fprintf(os.Stderr, "  %-55s oa2mcp %d tools %d B %s | peer %d tools %d B %s\n", s.Display, p.Ours.Tools, p.Ours.Bytes, p.Ours.Err,
			p.Peer.Tools, p.Peer.Bytes, p.Peer.Err)
	}
	return out
}

// copyHandWritten copies an example's hand-written Go files (such as
// aftersales' extend.go, which its override file names) beside its
// generated code, renamed into package pkg: without them the example does
// not build.
func copyHandWritten(from, to, pkg string) {
	names, err := filepath.Glob(filepath.Join(from, "*.go"))
	check(err)
	for _, n := range names {
		b, err := os.ReadFile(n)
		check(err)
		src := string(b)
		if strings.HasSuffix(n, "_test.go") || strings.Contains(src, "Code generated") || !strings.Contains(src, "\nfunc ") {
			continue
		}
		src = regexp.MustCompile(`(?m)^package \w+`).ReplaceAllString(src, "package "+pkg)
		check(os.WriteFile(filepath.Join(to, filepath.Base(n)), []byte(src), 0o644))
	}
}

// peerCommand starts a generated peer server over stdio: the compiled
// build/index.js when present, else src/index.ts with type stripping.
func peerCommand(dir string) *exec.Cmd {
	var cmd *exec.Cmd
	if _, err := os.Stat(filepath.Join(dir, "build", "index.js")); err == nil {
		cmd = exec.Command(*nodeBin, "build/index.js")
	} else {
		cmd = exec.Command(*nodeBin, "--experimental-strip-types", "--no-warnings", "src/index.ts")
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "API_BASE_URL=http://127.0.0.1:9")
	return cmd
}

func printListTables(m map[string]*listPair, specs, examples []spec) {
	fmt.Println("## tools/list size and tool quality, oa2mcp against the peer")
	fmt.Println()
	fmt.Println("Default mapping (no override file) for the corpus; the examples with their override files, and petstore once more without. Bytes are the JSON of all tools as an MCP client receives them (go-sdk client, `json.Marshal(result.Tools)` per page); tokens ≈ bytes/4. Quality: `internal/quality.Check` (names `^[A-Za-z0-9_-]{1,64}$` and unique, title, description, object root with `additionalProperties: false`, described properties, portable profile, compiles as JSON Schema 2020-12). Goal: oa2mcp at most half the peer's bytes with 0 issues.")
	fmt.Println()
	fmt.Println("| spec | ops | oa2mcp tools | oa2mcp bytes | ≈ tokens | largest tool | issues | peer tools | peer bytes | ≈ tokens | largest tool | oa2mcp / peer | goal ≤0.5 and 0 issues |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, s := range append(append([]spec(nil), specs...), examples...) {
		p := m[s.Name]
		if p == nil {
			continue
		}
		o, q := p.Ours, p.Peer
		row := fmt.Sprintf("| `%s` | %d | ", p.Spec, o.Ops)
		if o.Err != "" {
			row += fmt.Sprintf("FAILED: %s | | | | | ", mdEscape(truncate(o.Err, 120)))
		} else {
			row += fmt.Sprintf("%d | %d | %d | %s | %d | ", o.Tools, o.Bytes, o.Bytes/4, size(int64(o.MaxTool)), o.Issues)
		}
		if q.Err != "" {
			row += fmt.Sprintf("FAILED: %s | | | | ", mdEscape(truncate(q.Err, 120)))
		} else {
			row += fmt.Sprintf("%d | %d | %d | %s | ", q.Tools, q.Bytes, q.Bytes/4, size(int64(q.MaxTool)))
		}
		goal := "n/a"
		if o.Err == "" && q.Err == "" && o.Tools == 0 && q.Tools == 0 {
			row += "n/a | "
			goal = "n/a (no operations)"
		} else if o.Err == "" && q.Err == "" && q.Bytes > 0 {
			ratio := float64(o.Bytes) / float64(q.Bytes)
			row += fmt.Sprintf("%.2f | ", ratio)
			if s.Corpus {
				goal = yesNo(ratio <= 0.5 && o.Issues == 0)
			} else {
				goal = "(example)"
			}
		} else {
			row += "n/a | "
			if s.Corpus && o.Err == "" && q.Err != "" && o.Issues == 0 {
				goal = "yes (peer failed)"
			}
		}
		fmt.Println(row + goal + " |")
	}
	fmt.Println()

	fmt.Println("### Quality issues per category (tools affected; ops − tools = operations without a tool)")
	fmt.Println()
	head := "| spec | generator | ops − tools | input properties |"
	sep := "|---|---|---:|---:|"
	for _, c := range categories {
		head += " " + c.title + " |"
		sep += "---:|"
	}
	fmt.Println(head + " example issue |")
	fmt.Println(sep + "---|")
	for _, s := range append(append([]spec(nil), specs...), examples...) {
		p := m[s.Name]
		if p == nil {
			continue
		}
		for _, side := range []struct {
			who string
			r   *listResult
		}{{"oa2mcp", p.Ours}, {"peer", p.Peer}} {
			r := side.r
			if r.Err != "" {
				fmt.Printf("| `%s` | %s | failed | | %s |\n", p.Spec, side.who, strings.Repeat(" |", len(categories)))
				continue
			}
			row := fmt.Sprintf("| `%s` | %s | %d | %d |", p.Spec, side.who, r.Ops-r.Tools, r.Props)
			for _, c := range categories {
				row += fmt.Sprintf(" %d |", r.ByCategory[c.key])
			}
			ex := ""
			if len(r.Examples) > 0 {
				ex = mdEscape(truncate(r.Examples[0], 140))
			}
			fmt.Println(row + " " + ex + " |")
		}
	}
	fmt.Println()

	fmt.Println("### Where the tools/list bytes go (share of each generator's total)")
	fmt.Println()
	fmt.Println("Top-level fields of each tool; inside the schemas: `$defs`, all `description` strings, and enum/examples/default values (nested parts overlap: descriptions inside `$defs` count in both).")
	fmt.Println()
	partKeys := []string{"field:name", "field:title", "field:description", "field:inputSchema", "field:outputSchema", "field:annotations",
		"inputSchema:$defs", "inputSchema:descriptions", "inputSchema:enum/examples/default", "outputSchema:$defs", "outputSchema:descriptions"}
	head = "| spec | generator | total |"
	sep = "|---|---|---:|"
	for _, k := range partKeys {
		head += " " + strings.ReplaceAll(strings.TrimPrefix(k, "field:"), ":", " ") + " |"
		sep += "---:|"
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, s := range specs {
		p := m[s.Name]
		if p == nil || p.Ours.Err != "" || p.Ours.Bytes < 20000 {
			continue
		}
		for _, side := range []struct {
			who string
			r   *listResult
		}{{"oa2mcp", p.Ours}, {"peer", p.Peer}} {
			r := side.r
			if r.Err != "" || r.Bytes == 0 {
				continue
			}
			row := fmt.Sprintf("| `%s` | %s | %s |", p.Spec, side.who, size(int64(r.Bytes)))
			for _, k := range partKeys {
				if v := r.Parts[k]; v > 0 {
					row += fmt.Sprintf(" %.0f%% |", 100*float64(v)/float64(r.Bytes))
				} else {
					row += " – |"
				}
			}
			fmt.Println(row)
		}
	}
	fmt.Println()
}
