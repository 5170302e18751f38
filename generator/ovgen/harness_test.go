package ovgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/runtime"
)

// request is one request the fake upstream received.
type request struct {
	method, path string
	query        url.Values
	body         []byte
	op           *runtime.Operation
	// resp is the body answered.
	resp string
}

// pagedList is a list the fake upstream holds for one operation: n
// items, paged by query parameter wire ("" answers them all at once).
type pagedList struct {
	rel, wire string
	number    bool
	limit     int
	base      any // the response the list sits in
	item      any
	n         int
}

// wire is the fake upstream as the harness sees it: oa2mcptest's
// spec-driven upstream, which checks each request against its
// operation, behind a recorder that keeps every request of the current
// call, serves the long lists of paging checks, and fails on demand.
type wire struct {
	next  http.Handler
	ops   []*runtime.Operation
	mu    sync.Mutex
	reqs  []request
	lists map[string]*pagedList // by operation key
	fault int
	// patch, when set, overwrites top-level fields of every JSON object
	// answered for the operation patchKey (a distinctive upstream id).
	patchKey string
	patch    map[string]any
}

// setPatch makes the answers of operation key carry fields (nil: none).
func (w *wire) setPatch(key string, fields map[string]any) {
	w.mu.Lock()
	w.patchKey, w.patch = key, fields
	w.mu.Unlock()
}

// patched is body with the patch applied, when it is for op.
func (w *wire) patched(op *runtime.Operation, body []byte) []byte {
	w.mu.Lock()
	key, fields := w.patchKey, w.patch
	w.mu.Unlock()
	if op == nil || len(fields) == 0 || op.Key() != key {
		return body
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&m) != nil || m == nil {
		return body
	}
	for k, v := range fields {
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

func (w *wire) reset(lists map[string]*pagedList, fault int) {
	w.mu.Lock()
	w.reqs, w.lists, w.fault = nil, lists, fault
	w.mu.Unlock()
}

func (w *wire) requests() []request {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]request(nil), w.reqs...)
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	r.Body = io.NopCloser(bytes.NewReader(body))
	op := w.match(r)
	req := request{method: r.Method, path: r.URL.EscapedPath(), query: r.URL.Query(), body: body, op: op}
	w.mu.Lock()
	fault, lists := w.fault, w.lists
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.reqs = append(w.reqs, req)
		w.mu.Unlock()
	}()
	if fault != 0 {
		rw.Header().Set("Content-Type", "application/json")
		rw.WriteHeader(fault)
		io.WriteString(rw, `{"message":"no such thing"}`)
		return
	}
	if op != nil {
		if l := lists[op.Key()]; l != nil {
			out := l.page(r.URL.Query())
			req.resp = out
			rw.Header().Set("Content-Type", "application/json")
			io.WriteString(rw, out)
			return
		}
	}
	rec := &recorder{header: http.Header{}}
	w.next.ServeHTTP(rec, r)
	for k, v := range rec.header {
		rw.Header()[k] = v
	}
	out := w.patched(op, rec.buf.Bytes())
	rw.Header().Del("Content-Length")
	rw.WriteHeader(rec.status())
	rw.Write(out)
	req.resp = string(out)
}

// match finds the operation of a request by method and path template.
func (w *wire) match(r *http.Request) *runtime.Operation {
	segs := strings.Split(strings.Trim(r.URL.EscapedPath(), "/"), "/")
	var best *runtime.Operation
	bestLit := -1
	for _, op := range w.ops {
		if !strings.EqualFold(op.Method, r.Method) {
			continue
		}
		path, _, _ := strings.Cut(op.Path, "?")
		tmpl := strings.Split(strings.Trim(path, "/"), "/")
		if len(tmpl) != len(segs) {
			continue
		}
		lit, ok := 0, true
		for i, t := range tmpl {
			switch {
			case strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}"):
			case strings.Contains(t, "{"):
				ok = ok && segmentRE(t).MatchString(segs[i])
			case t == segs[i]:
				lit++
			default:
				ok = false
			}
		}
		if ok && lit > bestLit {
			best, bestLit = op, lit
		}
	}
	return best
}

// segmentRE matches a path segment with a parameter inside it
// ("thumbnail.{extension}").
func segmentRE(t string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for t != "" {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t, '}')
		if i < 0 || j < i {
			b.WriteString(regexp.QuoteMeta(t))
			break
		}
		b.WriteString(regexp.QuoteMeta(t[:i]) + "([^/]+?)")
		t = t[j+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// page answers one page of the list: from the offset (or page number)
// in the query, or all of it.
func (l *pagedList) page(q url.Values) string {
	start, end := 0, l.n
	if l.wire != "" {
		v, _ := strconv.Atoi(q.Get(l.wire))
		if l.number {
			start = (max(v, 1) - 1) * l.limit
		} else {
			start = max(v, 0)
		}
		end = min(start+l.limit, l.n)
		start = min(start, l.n)
	}
	items := make([]any, 0, end-start)
	for i := start; i < end; i++ {
		items = append(items, l.itemAt(i))
	}
	root := deepCopyJSON(l.base)
	root = setAt(root, l.rel, items)
	if m, ok := root.(map[string]any); ok && l.rel != "" {
		for k := range m {
			if totalName(k) {
				if _, isNum := m[k].(json.Number); isNum || m[k] == nil {
					m[k] = l.n
				}
			}
		}
	}
	b, _ := json.Marshal(root)
	return string(b)
}

// itemAt is item i: a copy of the first item, numbered when it is an
// object so the order of the pages can be checked.
func (l *pagedList) itemAt(i int) any {
	it := deepCopyJSON(l.item)
	if m, ok := it.(map[string]any); ok {
		m["oa2mcp_seq"] = i
	}
	return it
}

func deepCopyJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	dec.Decode(&out)
	return out
}

func setAt(root any, path string, v any) any {
	if path == "" {
		return v
	}
	m, ok := root.(map[string]any)
	if !ok {
		m = map[string]any{}
	}
	m[path] = v
	return m
}

// recorder buffers the inner upstream's answer.
type recorder struct {
	header http.Header
	code   int
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.buf.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }
func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// leaves collects the scalar values of a JSON value as text.
func leaves(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			leaves(e, out)
		}
	case []any:
		for _, e := range x {
			leaves(e, out)
		}
	case nil:
	default:
		out[fmt.Sprint(x)] = true
	}
}

// encodings collects the JSON text of every object and list inside v:
// one may be sent whole (a deepObject, a JSON query value).
func encodings(v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			encodings(e, out)
		}
	case []any:
		for _, e := range x {
			encodings(e, out)
		}
	default:
		return
	}
	if b, err := json.Marshal(v); err == nil {
		out[string(b)] = true
	}
}

// lookup reads a result path ("a.b", "a[].b") from a value; ok is false
// when any part is missing.
func lookup(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	seg, rest, _ := strings.Cut(path, ".")
	name, mapped := strings.CutSuffix(seg, "[]")
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	x, ok := m[name]
	if !ok || x == nil {
		return nil, false
	}
	if mapped {
		list, ok := x.([]any)
		if !ok || len(list) == 0 {
			return nil, false
		}
		return lookup(list[0], rest)
	}
	return lookup(x, rest)
}

var _ = context.Background
