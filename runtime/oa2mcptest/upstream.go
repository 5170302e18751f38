package oa2mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/oa2mcp/oa2mcp/runtime"
)

// Response is what the fake upstream answers one operation with.
type Response struct {
	// Status is the HTTP status (default 200).
	Status int
	// ContentType defaults to application/json.
	ContentType string
	// Body is sent as it is.
	Body string
}

// RepeatJSON is a JSON array of n copies of the JSON value item: what a
// paging case's upstream page holds, written once in generated call
// cases instead of n times.
func RepeatJSON(n int, item string) string {
	var b strings.Builder
	b.Grow(2 + n*(len(item)+1))
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item)
	}
	b.WriteByte(']')
	return b.String()
}

// RepeatedJSON reports whether s is exactly RepeatJSON(n, item) for some
// item and n of at least 3: the bodies a case file writes once.
func RepeatedJSON(s string) (item string, n int, ok bool) {
	if len(s) < 2 || s[0] != '[' {
		return "", 0, false
	}
	var items []json.RawMessage
	if json.Unmarshal([]byte(s), &items) != nil || len(items) < 3 {
		return "", 0, false
	}
	for _, it := range items[1:] {
		if !bytes.Equal(it, items[0]) {
			return "", 0, false
		}
	}
	item = string(items[0])
	return item, len(items), RepeatJSON(len(items), item) == s
}

// Faults a case can program into the upstream: every request then fails
// this way.
const (
	// FaultTimeout never answers (until the request is cancelled).
	FaultTimeout = "timeout"
	// FaultReset closes the connection without an answer.
	FaultReset = "reset"
	// FaultMalformed answers 200 with a body declared as JSON that is not.
	FaultMalformed = "malformed"
	// FaultOversized answers 200 with a JSON body of 2 MiB, over the
	// runtime's default response limit.
	FaultOversized = "oversized"
	// FaultHTML answers 200 with an HTML login page.
	FaultHTML = "html"
)

// FaultStatus is the fault answering every request with status code.
func FaultStatus(code int) string { return fmt.Sprintf("status:%d", code) }

// Upstream is a fake of the API a server definition calls: it serves
// every operation of the definition (tools, steps, actions) from the
// responses it is given, checks each request against the operation (its
// required parameters and body), and can be programmed to fail. It is a
// real http.Handler: serve it with httptest on 127.0.0.1 or pass it as
// runtime.Options.Upstream.
type Upstream struct {
	ops       []fakeOp
	responses map[string]Response
	// identity lists, by Operation.Key, the request values bound from the
	// caller's identity, which must carry the calling caller's claims.
	identity map[string][]identityValue

	mu        sync.Mutex
	fault     string
	overrides map[string]Response
	caller    map[string]string
	problems  []string

	requests atomic.Int64
}

// fakeOp is one operation the upstream recognises.
type fakeOp struct {
	key      string // "GET /pet/{petId}", the key of Response maps
	method   string
	segments []string // path segments; "{...}" matches any one segment
	// fixed is the query written into the path key, which a request must
	// carry to match ("/responses?beta=true").
	fixed url.Values
	op    *runtime.Operation
}

// NewUpstream returns the fake upstream of def: responses are keyed by
// Operation.Key of each operation; an operation without one answers 200
// with {}.
func NewUpstream(def *runtime.ServerDef, responses map[string]Response) *Upstream {
	u := &Upstream{responses: responses, identity: identityValues(def)}
	seen := map[string]bool{}
	add := func(op *runtime.Operation) {
		if op == nil {
			return
		}
		// Two operations may share a method and path (see match): each
		// is kept, told apart by its operationId.
		key := op.Key()
		if seen[key+" "+op.OperationID] {
			return
		}
		seen[key+" "+op.OperationID] = true
		path, query, _ := strings.Cut(op.Path, "?")
		fixed, _ := url.ParseQuery(query)
		u.ops = append(u.ops, fakeOp{key: key, method: strings.ToUpper(op.Method), segments: splitPath(path), fixed: fixed, op: op})
	}
	for _, t := range def.Tools {
		for _, op := range t.Operations() {
			add(op)
		}
	}
	if def.Discovery != nil {
		for _, d := range def.Discovery.Operations {
			add(d.Tool.Op)
		}
	}
	// Literal segments first, so /pets/mine wins over /pets/{id}; then
	// fixed queries, so /responses?beta=true wins over /responses.
	sort.SliceStable(u.ops, func(i, j int) bool {
		a, b := u.ops[i], u.ops[j]
		if literalCount(a) != literalCount(b) {
			return literalCount(a) > literalCount(b)
		}
		return len(a.fixed) > len(b.fixed)
	})
	return u
}

// SetFault makes every request fail with fault ("" for none).
func (u *Upstream) SetFault(fault string) {
	u.mu.Lock()
	u.fault = fault
	u.mu.Unlock()
}

// SetResponses replaces, until the next call, the answers of some
// operations (e.g. a long list for a paging case); nil restores them.
func (u *Upstream) SetResponses(overrides map[string]Response) {
	u.mu.Lock()
	u.overrides = overrides
	u.mu.Unlock()
}

// SetCaller sets the claims (runtime.Caller.AllClaims) of the caller of
// the next calls: a request value bound from the caller's identity must
// carry them. nil turns the check off.
func (u *Upstream) SetCaller(claims map[string]string) {
	u.mu.Lock()
	u.caller = claims
	u.mu.Unlock()
}

// Requests is the number of requests served so far.
func (u *Upstream) Requests() int64 { return u.requests.Load() }

// Problems returns and clears what was wrong with requests: unknown
// operations, missing required parameters or bodies.
func (u *Upstream) Problems() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	p := u.problems
	u.problems = nil
	return p
}

// ServeHTTP answers one request.
func (u *Upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.requests.Add(1)
	// Read the body first: net/http notices a client that hangs up (the
	// timeout fault waits for that) only once the body is consumed.
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	r.ContentLength = int64(len(body))
	u.mu.Lock()
	fault, overrides, caller := u.fault, u.overrides, u.caller
	u.mu.Unlock()
	cs := caseStateOf(r)
	if cs != nil {
		// A call made in process carries its own case (Direct): many
		// cases share this upstream at once.
		cs.requests.Add(1)
		fault, overrides, caller = cs.fault, cs.overrides, cs.caller
	}
	if fault != "" {
		serveFault(w, r, fault)
		return
	}
	op := u.match(r)
	if op == nil {
		u.problem(cs, fmt.Sprintf("%s %s matches no operation of the definition", r.Method, r.URL.Path))
		writeJSON(w, http.StatusNotFound, `{"message":"fake upstream: no such operation"}`)
		return
	}
	msg := checkRequest(op.op, r)
	if msg == "" {
		msg = checkIdentity(u.identity[op.key], r, body, caller)
	}
	if msg == "" {
		msg = unexpanded(r, body)
	}
	if msg != "" {
		u.problem(cs, op.key+": "+msg)
		writeJSON(w, http.StatusBadRequest, fmt.Sprintf(`{"message":%q}`, "fake upstream: "+msg))
		return
	}
	resp, ok := overrides[op.key]
	if !ok {
		resp, ok = u.responses[op.key]
	}
	if !ok {
		resp = Response{Body: "{}"}
	}
	ct := resp.ContentType
	if ct == "" {
		ct = "application/json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(cmpOr(resp.Status, http.StatusOK))
	io.WriteString(w, resp.Body)
}

func (u *Upstream) problem(cs *caseState, msg string) {
	if cs != nil {
		cs.mu.Lock()
		cs.problems = append(cs.problems, msg)
		cs.mu.Unlock()
		return
	}
	u.mu.Lock()
	u.problems = append(u.problems, msg)
	u.mu.Unlock()
}

// caseState is what one case programs into the upstream when the call is
// made in process and carries it in its context.
type caseState struct {
	fault     string
	overrides map[string]Response
	caller    map[string]string // the calling caller's claims
	requests  atomic.Int64
	mu        sync.Mutex
	problems  []string
}

type caseStateKey struct{}

// withCaseState puts a case's state on a call's context.
func withCaseState(ctx context.Context, cs *caseState) context.Context {
	return context.WithValue(ctx, caseStateKey{}, cs)
}

func caseStateOf(r *http.Request) *caseState {
	cs, _ := r.Context().Value(caseStateKey{}).(*caseState)
	return cs
}

// match finds the operation a request is for. Of operations on the same
// method and path (Box writes two for GET /web_links/{id}, told apart by
// a #fragment the URL drops), the first whose required parameters the
// request carries.
func (u *Upstream) match(r *http.Request) *fakeOp {
	segs := splitPath(r.URL.EscapedPath())
	query := r.URL.Query()
	var first *fakeOp
	for i := range u.ops {
		op := &u.ops[i]
		if op.method != r.Method || !matchSegments(op.segments, segs) || !hasFixedQuery(query, op.fixed) {
			continue
		}
		if checkRequest(op.op, r) == "" {
			return op
		}
		if first == nil {
			first = op
		}
	}
	return first
}

// checkRequest reports what the request lacks that the operation
// requires: required query, header and cookie parameters and a required
// body.
func checkRequest(op *runtime.Operation, r *http.Request) string {
	q := r.URL.Query()
	for _, p := range op.Params {
		if !p.Required {
			continue
		}
		switch p.In {
		case runtime.InQuery:
			if !q.Has(p.Name) && !hasDeepObject(q, p.Name) {
				return "missing required query parameter " + p.Name
			}
		case runtime.InHeader:
			if r.Header.Get(p.Name) == "" {
				return "missing required header " + p.Name
			}
		case runtime.InCookie:
			if _, err := r.Cookie(p.Name); err != nil {
				return "missing required cookie " + p.Name
			}
		}
	}
	if op.Body != nil && op.Body.Required && r.ContentLength == 0 {
		return "missing required request body"
	}
	return ""
}

// unexpanded reports a binding expression that reached the API as text
// (${input.amount} inside a constant): the request carries a value
// neither the caller nor the override file gave.
func unexpanded(r *http.Request, body []byte) string {
	where := ""
	switch {
	case strings.Contains(string(body), "${"):
		where = "the body"
	case strings.Contains(r.URL.RawQuery, "${"), strings.Contains(r.URL.RawQuery, "%24%7B"), strings.Contains(r.URL.EscapedPath(), "%24%7B"):
		where = "the URL"
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			if strings.Contains(v, "${") {
				where = "header " + k
			}
		}
	}
	if where == "" {
		return ""
	}
	return "an unexpanded ${...} expression reached the API in " + where
}

func hasDeepObject(q map[string][]string, name string) bool {
	for k := range q {
		if strings.HasPrefix(k, name+"[") {
			return true
		}
	}
	return false
}

// serveFault fails one request.
func serveFault(w http.ResponseWriter, r *http.Request, fault string) {
	switch fault {
	case FaultTimeout:
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	case FaultReset:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	case FaultMalformed:
		writeJSON(w, http.StatusOK, `{"id": 1, "name": "truncated`)
	case FaultOversized:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[`)
		chunk := strings.Repeat(`"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",`, 1024)
		for i := 0; i < 32; i++ {
			io.WriteString(w, chunk)
		}
		io.WriteString(w, `"end"]}`)
	case FaultHTML:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><html><head><title>Sign in</title></head><body>Please sign in</body></html>")
	default:
		code := 0
		fmt.Sscanf(fault, "status:%d", &code)
		if code == 0 {
			code = http.StatusInternalServerError
		}
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "120")
		}
		writeJSON(w, code, fmt.Sprintf(`{"message":"simulated upstream failure %d"}`, code))
	}
}

func writeJSON(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	io.WriteString(w, body)
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// matchSegments matches request path segments against a template's: a
// template segment holding a {parameter} matches any non-empty segment
// (with its literal prefix and suffix, as in /files/{name}.json).
func matchSegments(tmpl, segs []string) bool {
	if len(tmpl) != len(segs) {
		return false
	}
	for i, t := range tmpl {
		open := strings.IndexByte(t, '{')
		if open < 0 {
			if t != segs[i] {
				return false
			}
			continue
		}
		end := strings.LastIndexByte(t, '}')
		prefix, suffix := t[:open], t[end+1:]
		s := segs[i]
		if len(s) <= len(prefix)+len(suffix) || !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, suffix) {
			return false
		}
	}
	return true
}

// hasFixedQuery reports whether q carries every pair of fixed.
func hasFixedQuery(q, fixed url.Values) bool {
	for k, vs := range fixed {
		for _, v := range vs {
			if !slices.Contains(q[k], v) {
				return false
			}
		}
	}
	return true
}

func literalCount(op fakeOp) int {
	n := 0
	for _, s := range op.segments {
		if !strings.Contains(s, "{") {
			n++
		}
	}
	return n
}

func cmpOr(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}
