//go:build linux && e2e

package e2e

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// The hostile-upstream suite: the generated petstore server, a real
// process, is driven over stdio by the go-sdk client against the hostile
// upstream of hostile_upstream_test.go. Whatever the upstream does, every
// call must end as an isError in the tool's own terms within a time
// bound, no raw HTML, foreign body or credential in it, the process must
// stay alive and answer afterwards, and its peak RSS must stay bounded.

const (
	hostileAPIKey     = "k3y-7f3a9c-hostile-secret"
	hostileTimeout    = 2 * time.Second
	hostileCallBound  = hostileTimeout + 4*time.Second // the tool timeout plus start-up and scheduling slack
	hostileRSSBoundKB = 64 << 10                       // peak RSS (VmHWM) of the server process
	hostileMaxText    = 8 << 10                        // an error text is a summary, never a page
)

// victimServer is the generated server the hostile upstream attacks, and its client.
type victimServer struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *lockedWriter
}

func startVictimServer(t *testing.T, up *hostileUpstream) *victimServer {
	t.Helper()
	bins := buildPetstore(t, testenv.RepoRoot(t))
	cmd := exec.Command(bins.server, "--timeout", hostileTimeout.String(), "--base-url", up.baseURL())
	cmd.Env = append(os.Environ(), "PETSTORE_API_KEY="+hostileAPIKey, "GOTRACEBACK=all")
	hs := &victimServer{cmd: cmd, stderr: &lockedWriter{}}
	cmd.Stderr = hs.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "hostile-e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting the petstore server: %v\n%s", err, hs.stderr)
	}
	hs.cs = cs
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("server stderr:\n%s", truncate(hs.stderr.String(), 8000))
		}
	})
	return hs
}

// lockedWriter is an io.Writer safe for the process's stderr copier and
// the test reading it.
type lockedWriter struct{ b lockedBuffer }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	return w.b.b.Write(p)
}
func (w *lockedWriter) String() string { return w.b.String() }

// alive reports whether the server process still runs.
func (hs *victimServer) alive() bool {
	return hs.cmd.Process != nil && syscall.Kill(hs.cmd.Process.Pid, 0) == nil && hs.cmd.ProcessState == nil
}

// procStatus reads a kB field (VmHWM, VmRSS) of the server's /proc status.
func (hs *victimServer) procStatus(t *testing.T, field string) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(hs.cmd.Process.Pid) + "/status")
	must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return n
		}
	}
	t.Fatalf("no %s in /proc status", field)
	return 0
}

// openFDs counts the server's open file descriptors.
func (hs *victimServer) openFDs(t *testing.T) int {
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(hs.cmd.Process.Pid), "fd"))
	must(t, err)
	return len(ents)
}

// outcome is one call's answer as the invariants see it.
type outcome struct {
	err     error
	isError bool
	text    string
	elapsed time.Duration
	upCalls int64 // requests the upstream received
}

// call runs one tool call against fault f. The multi-step tool
// (petstore_get_pet, whose steps run concurrently) and the one-operation
// tool (petstore_count_stock) take turns.
func (hs *victimServer) call(up *hostileUpstream, f fault, steps bool) outcome {
	up.set(f)
	name, args := "petstore_count_stock", map[string]any{}
	if steps {
		name, args = "petstore_get_pet", map[string]any{"pet_id": 7}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*hostileCallBound)
	defer cancel()
	start := time.Now()
	res, err := hs.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	o := outcome{err: err, elapsed: time.Since(start), upCalls: up.requests.Load()}
	if res != nil {
		o.isError = res.IsError
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				o.text += tc.Text
			}
		}
	}
	return o
}

// upstreamOps is how many upstream operations one call of the tool makes
// (petstore_get_pet has two concurrent steps).
func upstreamOps(steps bool) int {
	if steps {
		return 2
	}
	return 1
}

// violations lists the invariants o breaks; none for a held case.
func (o outcome) violations(hs *victimServer, up *hostileUpstream) []string {
	var v []string
	switch {
	case o.err != nil:
		v = append(v, "protocol error instead of an isError result: "+o.err.Error())
	case !o.isError:
		v = append(v, "a hostile answer was returned as a result: "+truncate(o.text, 300))
	}
	if o.elapsed > hostileCallBound {
		v = append(v, "answered after "+o.elapsed.String()+", bound "+hostileCallBound.String())
	}
	low := strings.ToLower(o.text)
	for _, bad := range []string{"<html", "<!doctype", "<body", "foreign-body", strings.ToLower(hostileAPIKey)} {
		if strings.Contains(low, bad) {
			v = append(v, "the error text contains "+strconv.Quote(bad)+": "+truncate(o.text, 300))
		}
	}
	if o.err == nil && !strings.Contains(o.text, "[error kind: ") {
		v = append(v, "the error text has no error kind line: "+truncate(o.text, 300))
	}
	if len(o.text) > hostileMaxText {
		v = append(v, "the error text is "+strconv.Itoa(len(o.text))+" bytes")
	}
	if !utf8.ValidString(o.text) {
		v = append(v, "the error text is not valid UTF-8")
	}
	if strings.ContainsFunc(o.text, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f }) {
		v = append(v, "the error text holds control characters: "+strconv.QuoteToASCII(truncate(o.text, 200)))
	}
	if n, wire := up.foreign.received(); n > 0 {
		v = append(v, "the foreign host received "+strconv.Itoa(n)+" connections: "+truncate(wire, 300))
	}
	if !hs.alive() {
		v = append(v, "the server process died")
	}
	return v
}

// hostileCase is one named fault of the table and what its text must say.
type hostileCase struct {
	category string
	name     string
	f        fault
	want     string // a phrase naming the problem
	maxUp    int64  // at most this many upstream requests (0: any)
}

func hostileTable() []hostileCase {
	var cases []hostileCase
	add := func(cat, name string, f fault, want string) {
		cases = append(cases, hostileCase{category: cat, name: name, f: f, want: want})
	}
	for _, st := range []int{200, 400, 404, 500, 503} {
		for _, l := range []string{"1e9", "1e11", "max", "more", "less"} {
			body := "html"
			if st == 200 {
				body = "invalid-json"
			}
			want := "error kind"
			add("lying Content-Length", strconv.Itoa(st)+"/"+l, fault{Status: st, Length: l, Body: body}, want)
		}
	}
	add("drip", "200 drip", fault{Timing: "drip"}, "timeout")
	add("drip", "500 drip", fault{Status: 500, Timing: "drip", Body: "html"}, "HTTP 500") // a partial error body is enough
	add("hang", "200 hang", fault{Timing: "hang"}, "timeout")
	add("hang", "503 hang", fault{Status: 503, Timing: "hang"}, "timeout")
	add("huge body", "200 100 MB chunked", fault{Body: "huge"}, "larger than this server's limit")
	add("huge body", "500 100 MB chunked", fault{Status: 500, Body: "huge"}, "HTTP 500")
	add("gzip bomb", "200 gzip bomb", fault{Body: "gzip-bomb"}, "larger than this server's limit")
	add("gzip bomb", "502 gzip bomb", fault{Status: 502, Body: "gzip-bomb"}, "HTTP 502")
	add("invalid body", "200 invalid JSON", fault{Body: "invalid-json"}, "not valid JSON")
	add("invalid body", "200 invalid UTF-8", fault{Body: "invalid-utf8"}, "not valid JSON")
	add("invalid body", "400 invalid UTF-8", fault{Status: 400, Body: "invalid-utf8"}, "HTTP 400")
	add("reset", "200 reset mid-body", fault{Timing: "reset"}, "connection")
	add("reset", "500 reset mid-body", fault{Status: 500, Timing: "reset", Body: "html"}, "HTTP 500")
	add("HTML error page", "500 HTML", fault{Status: 500, Body: "html"}, "Gateway Error")
	add("HTML error page", "200 HTML", fault{Body: "html"}, "Gateway Error")
	add("redirect", "302 to another port", fault{Status: 302, Redirect: "foreign"}, "allow_redirect_hosts")
	add("redirect", "307 to another port", fault{Status: 307, Redirect: "foreign"}, "allow_redirect_hosts")
	add("redirect", "same origin, then another port", fault{Status: 302, Redirect: "chain"}, "allow_redirect_hosts")
	add("redirect", "loop", fault{Status: 307, Redirect: "loop"}, "redirect loop")
	add("big headers", "200 with 9 MB of headers", fault{BigHeaders: true}, "headers")
	add("big headers", "500 with 9 MB of headers", fault{Status: 500, BigHeaders: true}, "headers")
	for _, ra := range []string{"9223372036854775807", "99999999999999999999999", "86401", "-5", "1.5", "soon",
		"Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "0"} {
		c := hostileCase{category: "Retry-After", name: "503 Retry-After " + ra, f: fault{Status: 503, RetryAfter: ra, Body: "json-error"}, want: "HTTP 503"}
		if ra == "9223372036854775807" || ra == "99999999999999999999999" || ra == "86401" || strings.HasPrefix(ra, "Fri") {
			// Far beyond the retry cap: reported (clamped to a day), never waited or retried at once.
			c.want, c.maxUp = "Retry after 86400 seconds", 1
		}
		cases = append(cases, c)
	}
	return cases
}

// TestHostileUpstream runs the table of faults, then the seeded random
// ones, against one server process, and checks its peak memory and
// descriptors at the end. OA2MCP_HOSTILE_CASE=NAME runs the one table
// case NAME (e.g. "500/1e9") alone, to measure its peak memory.
func TestHostileUpstream(t *testing.T) {
	up := startHostileUpstream(t)
	hs := startVictimServer(t, up)
	type tally struct{ tried, held int }
	table := map[string]*tally{}
	var order []string
	only := os.Getenv("OA2MCP_HOSTILE_CASE") // measures one table case alone, e.g. "500/1e9"
	for i, c := range hostileTable() {
		if only != "" && c.name != only {
			continue
		}
		if table[c.category] == nil {
			table[c.category] = &tally{}
			order = append(order, c.category)
		}
		table[c.category].tried++
		steps := i%2 == 1
		o := hs.call(up, c.f, steps)
		v := o.violations(hs, up)
		if !strings.Contains(o.text, c.want) {
			v = append(v, "the error text does not say "+strconv.Quote(c.want)+": "+truncate(o.text, 400))
		}
		if maxUp := c.maxUp * int64(upstreamOps(steps)); maxUp > 0 && o.upCalls > maxUp {
			v = append(v, "the upstream got "+strconv.FormatInt(o.upCalls, 10)+" requests, at most "+strconv.FormatInt(maxUp, 10)+" expected")
		}
		if len(v) > 0 {
			t.Errorf("%s / %s (%s): %s", c.category, c.name, c.f, strings.Join(v, "; "))
			if !hs.alive() {
				t.Fatalf("the server died; VmHWM unknown")
			}
			continue
		}
		table[c.category].held++
		t.Logf("%-22s %-34s %6.2fs VmHWM %6d kB  %s", c.category, c.name, o.elapsed.Seconds(), hs.procStatus(t, "VmHWM"), firstLine(o.text))
	}
	if only == "" {
		runRandomHostile(t, hs, up)
	}
	// Still answering: a sane upstream gets a sane result.
	up.set(fault{Body: "good"})
	if o := hs.callGood(t, up); o != "" {
		t.Errorf("after the hostile cases the server no longer answers: %s", o)
	}
	hwm, fds := hs.procStatus(t, "VmHWM"), hs.openFDs(t)
	if hwm > hostileRSSBoundKB {
		t.Errorf("peak RSS (VmHWM) %d kB, bound %d kB", hwm, hostileRSSBoundKB)
	}
	if fds > 64 {
		t.Errorf("%d open file descriptors after the suite, bound 64", fds)
	}
	if strings.Contains(hs.stderr.String(), hostileAPIKey) {
		t.Errorf("the server's log contains the API key")
	}
	var sum strings.Builder
	for _, cat := range order {
		sum.WriteString("\n  " + cat + ": " + strconv.Itoa(table[cat].held) + "/" + strconv.Itoa(table[cat].tried) + " held")
	}
	t.Logf("hostile upstream: VmHWM %d kB (bound %d kB), %d fds; per category:%s", hwm, hostileRSSBoundKB, fds, sum.String())
}

// callGood checks that a plain good answer still comes through.
func (hs *victimServer) callGood(t *testing.T, up *hostileUpstream) string {
	o := hs.call(up, fault{Body: "good"}, false)
	if o.err != nil || o.isError || !strings.Contains(o.text, "available") {
		return strconv.Quote(truncate(o.text, 300)) + " " + errText(o.err)
	}
	return ""
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return truncate(s, 110)
}

// randomFault draws a hostile answer: a status, a body shape that no tool
// can turn into a result, a declared length, timing, headers and maybe a
// redirect.
func randomFault(r *rand.Rand) fault {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	statuses := []int{200, 200, 200, 302, 307, 400, 401, 404, 409, 429, 500, 502, 503, 504}
	f := fault{Status: statuses[r.IntN(len(statuses))]}
	f.Body = pick("html", "invalid-json", "invalid-utf8", "gzip-bomb", "huge", "json-error")
	if f.Status == 200 && f.Body == "json-error" {
		f.Body = "invalid-json" // a JSON object could be a valid result
	}
	f.Length = pick("", "", "none", "chunked", "1e9", "1e11", "max", "more", "less")
	switch r.IntN(20) {
	case 0:
		f.Timing = "drip"
	case 1:
		f.Timing = "hang"
	case 2, 3:
		f.Timing = "reset"
	}
	if r.IntN(3) == 0 {
		f.RetryAfter = pick("9223372036854775807", "-1", "0", "1", "2", "abc", "Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "  7  ", "1e3")
	}
	f.BigHeaders = r.IntN(15) == 0
	if f.Status == 302 || f.Status == 307 {
		f.Redirect = pick("foreign", "loop", "chain")
	}
	return f
}

// runRandomHostile draws seeded hostile answers (OA2MCP_HOSTILE_SEED
// repeats a run, OA2MCP_HOSTILE_CASES sets how many; default 40) and
// checks the invariants on each; a failure prints the seed and the case
// minimised to the fewest hostile traits that still fail.
func runRandomHostile(t *testing.T, hs *victimServer, up *hostileUpstream) {
	seed := hostileSeed(t)
	n := 40
	if s := os.Getenv("OA2MCP_HOSTILE_CASES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	t.Logf("random hostile answers: seed %d (OA2MCP_HOSTILE_SEED=%d repeats it), %d cases", seed, seed, n)
	deadline := time.Now().Add(3 * time.Minute)
	for i := 0; i < n && time.Now().Before(deadline); i++ {
		f := randomFault(r)
		steps := r.IntN(2) == 0
		v := hs.call(up, f, steps).violations(hs, up)
		if len(v) == 0 {
			continue
		}
		if !hs.alive() {
			t.Fatalf("seed %d, case %d: %s: %s (the server died)", seed, i, f, strings.Join(v, "; "))
		}
		minF := minimiseFault(f, func(g fault) bool { return len(hs.call(up, g, steps).violations(hs, up)) > 0 })
		t.Fatalf("seed %d, case %d: %s\n  minimal failing answer: %s\n  %s", seed, i, f, minF, strings.Join(v, "\n  "))
	}
}

// minimiseFault drops hostile traits one at a time while fails still
// holds, so a report names only what matters.
func minimiseFault(f fault, fails func(fault) bool) fault {
	drops := []func(*fault){
		func(g *fault) { g.Timing = "" }, func(g *fault) { g.RetryAfter = "" }, func(g *fault) { g.BigHeaders = false },
		func(g *fault) { g.Length = "" }, func(g *fault) { g.Redirect = "" }, func(g *fault) { g.Body = "" },
	}
	for changed := true; changed; {
		changed = false
		for _, drop := range drops {
			g := f
			drop(&g)
			if g != f && fails(g) {
				f, changed = g, true
			}
		}
	}
	return f
}
