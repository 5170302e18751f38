package oa2mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Suite is the call cases of one server: what every generated
// oa2mcp_calls_test.go runs, read from its case file (see RunFile).
type Suite struct {
	// Def is the server's definition.
	Def *runtime.ServerDef
	// Responses are the fake upstream's answers, by Operation.Key.
	Responses map[string]Response
	// Credentials answer Options.Getenv for the credential variables, so
	// calls carry credentials without touching the real environment.
	Credentials map[string]string
	// Cases run per tool in order; tools run concurrently.
	Cases []Case
}

// Callers a case can call as. Each is a static bearer token of the HTTP
// transport; the first two hold every scope the definition uses.
const (
	CallerDefault = "default" // subject oa2mcp-test-a; "" means it too
	CallerOther   = "other"   // subject oa2mcp-test-b
	CallerNoScope = "noscope" // subject oa2mcp-test-c, no scopes
)

// Case is one tools/call and what it must produce.
type Case struct {
	// Tool is the tool's name; Name says what the case checks.
	Tool string
	Name string
	// Args are the arguments as a JSON object. A handle input's value is
	// replaced by a fresh handle (see HandleOwner) before the call.
	Args string
	// Caller is one of the Caller constants; "" is CallerDefault.
	Caller string
	// HandleOwner is the caller the handles in Args are created for; ""
	// is Caller itself. A different owner checks that a handle works only
	// for its creator.
	HandleOwner string
	// Fault, when set, makes the upstream fail every request this way
	// (FaultStatus, FaultTimeout, ...).
	Fault string
	// Responses replace the upstream's answers for this case, by
	// Operation.Key (a long list for a paging case, say).
	Responses map[string]Response
	// Answers is the JSON object a user gives when the tool asks
	// (input_required); "" when the tool asks nothing.
	Answers string
	// WantError: the result must be an error of kind WantKind (its
	// _meta), without structuredContent; otherwise a success whose
	// structuredContent matches the tool's output schema.
	WantError bool
	WantKind  string
	// WantUpstream: the call must reach the upstream; false: it must be
	// refused before any upstream request.
	WantUpstream bool
	// WantText are phrases the result's text must contain.
	WantText []string
	// WantPage, when set, checks the paging fields of the result.
	WantPage *Page
}

// Page is what a paged result must say.
type Page struct {
	// Items is the number of items on the page; Total the totalCount, or
	// NoTotal when the page must carry none.
	Items, Total int
	HasMore      bool
	// Next is the nextPage value of the page input; -1: no nextPage.
	Next int
	// PageInput names the page input of nextPage.
	PageInput string
}

// NoTotal is Page.Total when the upstream pages the list and says no
// total: the page must carry no totalCount.
const NoTotal = -1

// Failure is one case that did not produce what it must.
type Failure struct {
	Tool, Case string
	Problem    string
}

func (f Failure) String() string { return f.Tool + " [" + f.Case + "]: " + f.Problem }

// Transport says how the driver reaches the servers.
type Transport int

const (
	// Loopback serves the MCP server and the fake upstream on 127.0.0.1
	// (httptest): real sockets, the Streamable HTTP client of the SDK.
	Loopback Transport = iota
	// InProcess serves both through in-process round trippers: the same
	// HTTP handlers and client, no sockets.
	InProcess
	// Direct calls one server's tools from Go (Server.CallTool), the
	// upstream in process: the generator's proof (see direct.go).
	Direct
)

// Options tune Check.
type Options struct {
	Transport Transport
	// Timeout of each call (the server's Options.Timeout); default 1s,
	// which the timeout fault cases wait out.
	Timeout time.Duration
	// Parallel bounds the tools checked at once; default 32, as a tool
	// spends most of its time waiting out its timeout case, not
	// computing (Twilio's 197 tools: 37 s at 8, 10 s at 32).
	Parallel int
}

// Check runs the suite's cases and returns what failed. The cases of a
// tool run in order against a server of their own (the tool and the
// tools that create its handles) and a fake upstream of their own.
func Check(ctx context.Context, s Suite, opts Options) []Failure {
	if opts.Timeout <= 0 {
		opts.Timeout = time.Second
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 32
	}
	byTool := map[string][]Case{}
	var order []string
	for _, c := range s.Cases {
		if byTool[c.Tool] == nil {
			order = append(order, c.Tool)
		}
		byTool[c.Tool] = append(byTool[c.Tool], c)
	}
	if opts.Transport == Direct {
		return checkDirect(ctx, s, order, byTool, opts)
	}
	return eachTool(order, opts.Parallel, func(_ int, tool string) []Failure {
		return checkTool(ctx, s, tool, byTool[tool], opts)
	})
}

// eachTool runs check for every tool, at most parallel at once, and
// joins the failures in tool order.
func eachTool(tools []string, parallel int, check func(i int, tool string) []Failure) []Failure {
	results := make([][]Failure, len(tools))
	// A fixed set of workers, the caller among them, takes the tools in
	// turn: a goroutine per tool grew a fresh stack by copying for each.
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < len(tools); i = int(next.Add(1)) - 1 {
			results[i] = check(i, tools[i])
		}
	}
	var wg sync.WaitGroup
	for range min(max(parallel, 1), len(tools)) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	var out []Failure
	for _, r := range results {
		out = append(out, r...)
	}
	return out
}

// TB is what Run needs of a *testing.T.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
}

// Run runs the suite over Streamable HTTP on loopback and reports every
// failure on t; RunFile, which every generated oa2mcp_calls_test.go
// calls, reads the suite from a case file first.
func Run(t TB, s Suite) {
	t.Helper()
	if len(s.Cases) == 0 {
		t.Errorf("the suite has no cases")
	}
	for _, tool := range untested(s) {
		t.Errorf("tool %s has no call cases; every tool of the definition needs them", tool)
	}
	for _, f := range Check(context.Background(), s, Options{Transport: Loopback}) {
		t.Errorf("%s", f)
	}
}

// untested lists the definition's tools that no case calls.
func untested(s Suite) []string {
	called := map[string]bool{}
	for _, c := range s.Cases {
		called[c.Tool] = true
	}
	var out []string
	if s.Def == nil {
		return out
	}
	for _, t := range s.Def.Tools {
		if !called[t.Name] {
			out = append(out, t.Name)
		}
	}
	return out
}

// toolRun is the state of one tool's cases.
type toolRun struct {
	suite    Suite
	tool     string
	def      *runtime.ServerDef
	upstream *Upstream
	clients  map[string]*mcp.ClientSession
	tokens   map[string]runtime.Caller
	fails    []Failure
	// cur is the case being run, for answering input_required forms.
	mu    sync.Mutex
	cur   *Case
	clock *caseClock
}

// caseClock is a server's Options.Now under test: each case starts a
// little later, so a per-caller rate limit of the definition refills
// between cases instead of refusing the suite's own calls.
type caseClock struct {
	mu sync.Mutex
	t  time.Time
	// steady keeps the clock still while held: a case that creates a
	// handle and then uses it holds it, so that cases of other tools
	// running in parallel cannot age the handle past a short lifetime
	// in between.
	steady sync.RWMutex
}

func newCaseClock() *caseClock { return &caseClock{t: time.Now()} }

func (c *caseClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// tick moves the clock on between cases.
func (c *caseClock) tick() {
	c.steady.Lock()
	defer c.steady.Unlock()
	c.mu.Lock()
	c.t = c.t.Add(30 * time.Second)
	c.mu.Unlock()
}

// hold keeps the clock from ticking until the returned func is called.
func (c *caseClock) hold() func() {
	c.steady.RLock()
	return c.steady.RUnlock
}

func checkTool(ctx context.Context, s Suite, tool string, cases []Case, opts Options) []Failure {
	r := &toolRun{suite: s, tool: tool, def: toolDef(s.Def, tool), clock: newCaseClock()}
	if r.def == nil {
		return []Failure{{Tool: tool, Problem: "the definition has no such tool"}}
	}
	r.upstream = NewUpstream(r.def, s.Responses)
	closeAll, err := r.start(ctx, opts)
	if err != nil {
		return []Failure{{Tool: tool, Problem: err.Error()}}
	}
	defer closeAll()
	for i := range cases {
		r.runCase(ctx, &cases[i])
	}
	return r.fails
}

// toolDef is def narrowed to tool and the tools that create the handles
// it takes.
func toolDef(def *runtime.ServerDef, tool string) *runtime.ServerDef {
	byName := map[string]*runtime.Tool{}
	for _, t := range def.Tools {
		byName[t.Name] = t
	}
	t := byName[tool]
	if t == nil {
		for _, d := range oa2mcpimpl.DiscoveryTools(def) {
			if d.Name == tool {
				// A discovery tool needs only the discovery definition.
				out := *def
				out.Tools, out.Resources = nil, nil
				return &out
			}
		}
		return nil
	}
	keep := map[string]bool{tool: true}
	for _, in := range t.HandleInputs {
		for _, h := range def.Handles {
			if h.Name == in.Type {
				for _, c := range h.Creators {
					keep[c] = true
				}
			}
		}
	}
	out := *def
	out.Tools, out.Resources = nil, nil
	for _, t := range def.Tools {
		if keep[t.Name] {
			out.Tools = append(out.Tools, t)
		}
	}
	// The resources the kept tools serve, and no others (their tools are gone).
	for _, r := range def.Resources {
		if keep[r.Tool] {
			out.Resources = append(out.Resources, r)
		}
	}
	return &out
}

// tokens are the static bearer tokens of the test callers.
func tokens(def *runtime.ServerDef) map[string]runtime.Caller {
	all := def.Scopes()
	claims := identityClaims(def)
	return map[string]runtime.Caller{
		tokenOf(CallerDefault): {Subject: "oa2mcp-test-a", Scopes: all, Claims: claims("a")},
		tokenOf(CallerOther):   {Subject: "oa2mcp-test-b", Scopes: all, Claims: claims("b")},
		tokenOf(CallerNoScope): {Subject: "oa2mcp-test-c", Claims: claims("c")},
	}
}

// identityClaims gives each test caller a distinct value of every claim
// the definition's bindings read besides sub, as a JWT would carry them.
func identityClaims(def *runtime.ServerDef) func(caller string) map[string]string {
	var names []string
	for _, t := range def.Tools {
		for _, c := range t.IdentityClaims() {
			if c != "sub" && !slices.Contains(names, c) {
				names = append(names, c)
			}
		}
	}
	return func(caller string) map[string]string {
		if len(names) == 0 {
			return nil
		}
		out := map[string]string{}
		for _, n := range names {
			out[n] = "oa2mcp-test-" + caller + "-" + n
		}
		return out
	}
}

// start serves the server and the upstream and connects one client per
// caller.
func (r *toolRun) start(ctx context.Context, opts Options) (func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	r.tokens = tokens(r.def)
	sopts := runtime.Options{
		Now:     r.clock.now,
		Timeout: opts.Timeout,
		Getenv:  func(k string) string { return r.suite.Credentials[k] },
		Auth:    &runtime.AuthOptions{Tokens: r.tokens},
		// Callers' own upstream accounts (per_user, exchange) are taken
		// as connected: the cases test the tools, not the sign-in.
		UpstreamTokens: TestUpstreamTokens,
	}
	upClient, upURL := r.serve(r.upstream, opts.Transport, &closers)
	sopts.BaseURL, sopts.HTTPClient = upURL, upClient
	srv, err := runtime.NewServer(r.def, sopts)
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("NewServer: %v", err)
	}
	closers = append(closers, srv.Close)
	mcpClient, mcpURL := r.serve(srv.HTTPHandler(), opts.Transport, &closers)
	r.clients = map[string]*mcp.ClientSession{}
	for _, caller := range []string{CallerDefault, CallerOther, CallerNoScope} {
		cs, err := r.connect(ctx, mcpURL, mcpClient, caller)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("connecting as %q: %v", caller, err)
		}
		// As clients do: the tool list tells the client which inputs to
		// mirror in Mcp-Param-* headers (x-mcp-header).
		if _, err := cs.ListTools(ctx, nil); err != nil {
			cs.Close()
			closeAll()
			return nil, fmt.Errorf("tools/list as %q: %v", caller, err)
		}
		closers = append(closers, func() { cs.Close() })
		r.clients[caller] = cs
	}
	return closeAll, nil
}

// serve makes h reachable: on loopback, an httptest server; in process,
// a client whose transport calls h directly.
func (r *toolRun) serve(h http.Handler, tr Transport, closers *[]func()) (*http.Client, string) {
	if tr == InProcess {
		return &http.Client{Transport: handlerTransport{h}}, "http://in-process"
	}
	hs := httptest.NewServer(h)
	*closers = append(*closers, hs.Close)
	return hs.Client(), hs.URL
}

// connect opens a session as caller: a bearer token, and an elicitation
// handler answering forms with the current case's answers.
func (r *toolRun) connect(ctx context.Context, url string, hc *http.Client, caller string) (*mcp.ClientSession, error) {
	hc2 := &http.Client{Transport: bearer{token: tokenOf(caller), next: transportOf(hc)}}
	client := mcp.NewClient(&mcp.Implementation{Name: "oa2mcp-call-cases", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: r.elicit,
	})
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp", HTTPClient: hc2}, nil)
}

// elicit answers a form with the current case's answers.
func (r *toolRun) elicit(_ context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	r.mu.Lock()
	c := r.cur
	r.mu.Unlock()
	content := map[string]any{}
	if c != nil && c.Answers != "" {
		if err := json.Unmarshal([]byte(c.Answers), &content); err != nil {
			return nil, err
		}
	}
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

// runCase runs one case and records its failures.
func (r *toolRun) runCase(ctx context.Context, c *Case) {
	fail := func(format string, args ...any) {
		r.fails = append(r.fails, Failure{Tool: r.tool, Case: c.Name, Problem: fmt.Sprintf(format, args...)})
	}
	args := map[string]any{}
	if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
		fail("arguments %s are not a JSON object: %v", c.Args, err)
		return
	}
	r.clock.tick()
	if c.Caller == "" {
		c.Caller = CallerDefault
	}
	if err := r.freshHandles(ctx, c, args); err != nil {
		fail("%v", err)
		return
	}
	r.upstream.Problems()
	r.upstream.SetFault(c.Fault)
	r.upstream.SetResponses(c.Responses)
	defer r.upstream.SetFault("")
	defer r.upstream.SetResponses(nil)
	r.mu.Lock()
	r.cur = c
	r.mu.Unlock()
	r.upstream.SetCaller(r.tokens[tokenOf(c.Caller)].AllClaims())
	before := r.upstream.Requests()
	res, err := r.clients[c.Caller].CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: args})
	reached := r.upstream.Requests() > before
	if err != nil {
		fail("protocol error %v for arguments %s", err, c.Args)
		return
	}
	for _, p := range checkResult(r.def, c, res, reached) {
		fail("%s (arguments %s)", p, c.Args)
	}
	if c.Fault == "" {
		for _, p := range r.upstream.Problems() {
			fail("the upstream got a bad request: %s", p)
		}
	}
}

// freshHandles replaces the values of handle inputs in args by handles
// that the case's handle owner creates now, with the creating tool's own
// first success case.
func (r *toolRun) freshHandles(ctx context.Context, c *Case, args map[string]any) error {
	tool := findTool(r.def, c.Tool)
	owner := c.HandleOwner
	if owner == "" {
		owner = c.Caller
	}
	for _, in := range tool.HandleInputs {
		// Only placeholders (the handle prefix and letters): a case
		// giving a wrong type or a forged value keeps it.
		v, _ := args[in.Arg].(string)
		if v == "" || !strings.HasPrefix(v, handlePrefix(r.def, in.Type)) {
			continue
		}
		h, err := r.createHandle(ctx, in.Type, owner)
		if err != nil {
			return fmt.Errorf("no %s handle for input %s: %v", in.Type, in.Arg, err)
		}
		args[in.Arg] = h
	}
	return nil
}

// createHandle runs the first success case of a tool creating a handle
// of typ and returns the handle from its result.
func (r *toolRun) createHandle(ctx context.Context, typ, caller string) (string, error) {
	for _, creator := range r.def.Tools {
		field := handleField(creator, typ)
		if field == "" {
			continue
		}
		for i := range r.suite.Cases {
			cc := &r.suite.Cases[i]
			if cc.Tool != creator.Name || cc.WantError || cc.Fault != "" || (cc.Caller != "" && cc.Caller != CallerDefault) {
				continue
			}
			var args map[string]any
			json.Unmarshal([]byte(cc.Args), &args)
			// A tool that grows a state handle creates one when called
			// without it; one that takes other handles is no creator.
			if !dropHandleInputs(creator, typ, args) {
				continue
			}
			r.mu.Lock()
			r.cur = cc
			r.mu.Unlock()
			r.upstream.SetCaller(r.tokens[tokenOf(caller)].AllClaims())
			res, err := r.clients[caller].CallTool(ctx, &mcp.CallToolParams{Name: creator.Name, Arguments: args})
			if err != nil {
				return "", err
			}
			return handleFromResult(creator.Name, field, res)
		}
	}
	return "", fmt.Errorf("no success case of a tool creating one")
}

// dropHandleInputs removes from args the inputs of creator that take a
// handle of typ, and reports false when creator takes another handle.
func dropHandleInputs(creator *runtime.Tool, typ string, args map[string]any) bool {
	for _, in := range creator.HandleInputs {
		if in.Type != typ {
			return false
		}
		delete(args, in.Arg)
	}
	return true
}

// handlePrefix is the prefix of handles of typ.
func handlePrefix(def *runtime.ServerDef, typ string) string {
	for _, h := range def.Handles {
		if h.Name == typ {
			return h.Prefix
		}
	}
	return "\x00"
}

// handleField is the result field in which tool t returns a new handle
// of typ, or "".
func handleField(t *runtime.Tool, typ string) string {
	switch {
	case t.CreatesHandle != nil && t.CreatesHandle.Type == typ:
		return t.CreatesHandle.Field
	case t.UpdatesHandle != nil && t.UpdatesHandle.Type == typ:
		return t.UpdatesHandle.Arg
	}
	return ""
}

// findTool finds a tool of def, discovery tools included; an unknown name
// gets an empty tool, and the call itself then fails the case.
func findTool(def *runtime.ServerDef, name string) *runtime.Tool {
	for _, t := range def.Tools {
		if t.Name == name {
			return t
		}
	}
	for _, t := range oa2mcpimpl.DiscoveryTools(def) {
		if t.Name == name {
			return t
		}
	}
	return &runtime.Tool{Name: name}
}

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// tokenOf is the bearer token of a test caller.
func tokenOf(caller string) string { return "oa2mcp-test-token-" + caller + "-0123456789" }

// TestUpstreamTokens gives every identified caller a connected upstream
// account of every per_user and exchange scheme: a token naming the
// scheme and the caller.
func TestUpstreamTokens(_ context.Context, scheme string, caller map[string]string) (string, error) {
	if caller["sub"] == "" {
		return "", nil
	}
	return "oa2mcp-test-upstream-" + scheme + "-" + caller["sub"], nil
}
