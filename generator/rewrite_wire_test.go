package generator_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// TestRewritesArriveOnTheWire generates random combinations of input
// rewrites (rename, value, drop, flatten, and each of them again on the
// fields a flatten lifts) over the JSON request bodies of real specs,
// calls every tool with a valid input through the runtime against the
// spec-driven fake upstream, and checks the body that arrives: every
// value the caller or the file gave is at its spec location, and nothing
// else is there. A failure prints the seed and the override file,
// minimised to the one tool that broke.
func TestRewritesArriveOnTheWire(t *testing.T) {
	root, corpus := testenv.RepoRoot(t), testenv.CorpusDir(t)
	specs := []string{
		filepath.Join(root, "testdata", "payments", "openapi.yaml"),
		filepath.Join(corpus, "redocly-museum-3.1.yaml"),
		filepath.Join(corpus, "swagger-petstore-3.1.yaml"),
		filepath.Join(corpus, "discourse-3.1.json"),
	}
	files, tools, calls, emptyPatches := 0, 0, 0, 0
	start := time.Now()
	for _, spec := range specs {
		doc, problems := load.Load(context.Background(), spec, load.Options{})
		if problems.HasErrors() {
			t.Fatal(problems.Errors())
		}
		base, problems := generator.Model(doc, generator.Config{Name: "wire"})
		if problems.HasErrors() {
			t.Fatal(problems.Errors())
		}
		targets := bodyTargets(base)
		if len(targets) == 0 {
			t.Fatalf("%s: no operation with a JSON object body", spec)
		}
		for seed := uint64(1); seed <= 25; seed++ {
			rng := rand.New(rand.NewPCG(seed, uint64(len(spec))))
			plans := randomPlans(rng, targets, 6)
			n, c, e := checkPlans(t, doc, spec, seed, rng, plans)
			files, tools, calls, emptyPatches = files+1, tools+n, calls+c, emptyPatches+e
		}
	}
	t.Logf("%d override files, %d tools, %d calls checked on the wire (the body is exactly what was given; %d empty PATCH bodies refused before the upstream) in %v", files, tools, calls, emptyPatches, time.Since(start).Round(time.Millisecond))
	if emptyPatches == 0 {
		t.Error("no call left a PATCH body empty: the refusal of empty merge patches went untested")
	}
}

// target is an operation with a flattened JSON body, from the default tools.
type target struct {
	op       string // operationId
	method   string
	schema   map[string]any
	fields   []runtime.BodyField
	required map[string]bool
	example  map[string]any // a valid input of the default tool
}

func bodyTargets(srv *ir.Server) []target {
	normal := map[string]map[string]any{}
	for _, c := range srv.CallCases {
		if c.Name == "normal" {
			var args map[string]any
			dec := json.NewDecoder(strings.NewReader(c.Args))
			dec.UseNumber()
			dec.Decode(&args)
			normal[c.Tool] = args
		}
	}
	var out []target
	for _, tool := range srv.Tools {
		op := tool.Op
		if op == nil || op.OperationID == "" || op.Body == nil || len(op.Body.Fields) == 0 || !oa2mcpimpl.IsJSONMedia(op.Body.MediaType) || normal[tool.Name] == nil {
			continue
		}
		var schema map[string]any
		json.Unmarshal([]byte(tool.InputSchema), &schema)
		req := map[string]bool{}
		for _, r := range asList(schema["required"]) {
			req[r.(string)] = true
		}
		out = append(out, target{op: op.OperationID, method: strings.ToUpper(op.Method), schema: schema, fields: op.Body.Fields, required: req, example: normal[tool.Name]})
	}
	return out
}

// rewrite is what the file does to one input: "" keeps it.
type rewrite struct {
	kind     string // rename, value, drop, flatten
	value    any
	children map[string]rewrite // for flatten
	sub      map[string]any     // the flattened object's properties
}

// plan is one tool of a random override file.
type plan struct {
	tool string
	t    target
	rw   map[string]rewrite // by default input name
}

func randomPlans(rng *rand.Rand, targets []target, n int) []plan {
	var out []plan
	for i := range min(n, len(targets)) {
		tg := targets[rng.IntN(len(targets))]
		p := plan{tool: fmt.Sprintf("t%d", i), t: tg, rw: map[string]rewrite{}}
		names := inputNames(tg.schema)
		taken := map[string]bool{}
		for _, n := range names {
			taken[n] = true
		}
		for _, f := range tg.fields {
			p.rw[f.Arg] = randomRewrite(rng, tg, f.Arg, taken)
		}
		out = append(out, p)
	}
	return out
}

func randomRewrite(rng *rand.Rand, tg target, name string, taken map[string]bool) rewrite {
	ex, hasEx := tg.example[name]
	ex = normalize(ex) // plain numbers: a json.Number would be written as text
	sub := objectProps(tg.schema, name)
	switch k := rng.IntN(5); {
	case k == 0:
		return rewrite{kind: "rename"}
	case k == 1 && hasEx:
		return rewrite{kind: "value", value: ex}
	case k == 2 && !tg.required[name]:
		return rewrite{kind: "drop"}
	case k == 3 && len(sub) > 0 && free(sub, taken):
		rw := rewrite{kind: "flatten", children: map[string]rewrite{}, sub: sub}
		exObj, _ := ex.(map[string]any)
		childReq := requiredOf(tg.schema, name)
		for _, c := range sortedNames(sub) {
			taken[c] = true
			cv, hasCV := exObj[c]
			switch rng.IntN(4) {
			case 0:
				rw.children[c] = rewrite{kind: "rename"}
			case 1:
				if hasCV {
					rw.children[c] = rewrite{kind: "value", value: cv}
				}
			case 2:
				if !(tg.required[name] && childReq[c]) {
					rw.children[c] = rewrite{kind: "drop"}
				}
			}
		}
		return rw
	}
	return rewrite{}
}

// overrideFile renders the plans as an override file.
func overrideFile(plans []plan) []byte {
	var tools []map[string]any
	for _, p := range plans {
		input := map[string]any{}
		for name, rw := range p.rw {
			addField(input, name, rw)
			for c, crw := range rw.children {
				addField(input, c, crw)
			}
		}
		tool := map[string]any{"name": p.tool, "operation": p.t.op,
			"description": "Random rewrites of " + p.t.op + " under test, e.g. with a synthesised input. Use it only in this test."}
		if len(input) > 0 {
			tool["input"] = input
		}
		tools = append(tools, tool)
	}
	b, _ := yaml.Marshal(map[string]any{"version": 1, "tools": tools})
	return b
}

func addField(input map[string]any, name string, rw rewrite) {
	switch rw.kind {
	case "rename":
		input[name] = map[string]any{"rename": "w_" + name}
	case "value":
		input[name] = map[string]any{"value": rw.value}
	case "drop":
		input[name] = map[string]any{"drop": true}
	case "flatten":
		input[name] = map[string]any{"flatten": true}
	}
}

// checkPlans generates one file, calls each tool and checks the wire;
// emptyPatches counts the calls refused for an empty PATCH body.
func checkPlans(t *testing.T, doc *load.Document, spec string, seed uint64, rng *rand.Rand, plans []plan) (tools, calls, emptyPatches int) {
	t.Helper()
	file := overrideFile(plans)
	ov, problems := overrides.Decode("wire.yaml", file)
	if problems.HasErrors() {
		t.Fatalf("%s seed %d: the override file does not decode: %v\n%s", spec, seed, problems.Errors(), file)
	}
	srv, problems := generator.Model(doc, generator.Config{Name: "wire", Overrides: ov})
	if problems.HasErrors() {
		t.Fatalf("%s seed %d: valid rewrites do not generate: %v\n%s", spec, seed, problems.Errors(), minimal(doc, plans))
	}
	def := cases.Definition(srv)
	rec := &recorder{next: oa2mcptest.NewUpstream(def, srv.UpstreamResponses)}
	rt, err := runtime.NewServer(def, runtime.Options{BaseURL: "http://upstream.in-process", Upstream: rec,
		Getenv: func(k string) string { return cases.Credentials(srv)[k] }})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	// The normal case gives the required inputs, the boundary case every
	// input: either, with optional inputs then left out at random.
	caseName := []string{"normal", "boundary"}[rng.IntN(2)]
	args := map[string]map[string]any{}
	for _, c := range srv.CallCases {
		if c.Name == caseName || c.Name == "normal" && args[c.Tool] == nil {
			var a map[string]any
			dec := json.NewDecoder(strings.NewReader(c.Args))
			dec.UseNumber()
			dec.Decode(&a)
			args[c.Tool] = a
		}
	}
	for _, p := range plans {
		in := args[p.tool]
		if in == nil {
			t.Fatalf("%s seed %d: no synthesised input for %s\n%s", spec, seed, p.tool, overrideFile([]plan{p}))
		}
		var schema map[string]any
		for _, tool := range srv.Tools {
			if tool.Name == p.tool {
				json.Unmarshal([]byte(tool.InputSchema), &schema)
			}
		}
		req := map[string]bool{}
		for _, r := range asList(schema["required"]) {
			req[r.(string)] = true
		}
		for _, k := range sortedNames(in) {
			if !req[k] && rng.IntN(3) == 0 {
				delete(in, k) // optional inputs come and go
			}
		}
		rec.reset()
		res, err := rt.CallTool(context.Background(), p.tool, in)
		calls++
		if want := expectedBody(p, in); len(want) == 0 && p.t.method == "PATCH" {
			// An empty merge patch changes nothing: the call is refused
			// in the tool's terms and nothing reaches the upstream.
			if err != nil || !res.IsError || !strings.Contains(resultText(res), "nothing to change") || rec.calls() != 0 {
				t.Fatalf("%s seed %d: %s with %s would send an empty PATCH; want it refused before the upstream, got %v %s (%d upstream calls)\n%s", spec, seed, p.tool, mustJSON(in), err, resultText(res), rec.calls(), overrideFile([]plan{p}))
			}
			tools, emptyPatches = tools+1, emptyPatches+1
			continue
		}
		if err != nil || res.IsError {
			t.Fatalf("%s seed %d: %s with %s failed: %v %s\n%s", spec, seed, p.tool, mustJSON(in), err, resultText(res), overrideFile([]plan{p}))
		}
		got := rec.body()
		want := expectedBody(p, in)
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Fatalf("%s seed %d: %s called with %s sent the body\n  %s\nwant\n  %s\noverride file (minimised):\n%s", spec, seed, p.tool, mustJSON(in), mustJSON(got), mustJSON(want), overrideFile([]plan{p}))
		}
		tools++
	}
	return tools, calls, emptyPatches
}

// expectedBody is the body the spec says the call carries: each value the
// caller gave or the file fixed, at its field; nothing else.
func expectedBody(p plan, in map[string]any) map[string]any {
	body := map[string]any{}
	for _, f := range p.t.fields {
		if v, ok := given(p.rw[f.Arg], f.Arg, in); ok {
			body[f.Name] = v
		}
	}
	return body
}

func given(rw rewrite, name string, in map[string]any) (any, bool) {
	switch rw.kind {
	case "rename":
		v, ok := in["w_"+name]
		return v, ok
	case "value":
		return rw.value, true
	case "drop":
		return nil, false
	case "flatten":
		obj := map[string]any{}
		for _, c := range sortedNames(rw.sub) {
			if v, ok := given(rw.children[c], c, in); ok {
				obj[c] = v
			}
		}
		return obj, len(obj) > 0
	}
	v, ok := in[name]
	return v, ok
}

// minimal is the file of the first single tool that fails to generate
// on its own, or the whole file when none does.
func minimal(doc *load.Document, plans []plan) []byte {
	for _, p := range plans {
		file := overrideFile([]plan{p})
		ov, _ := overrides.Decode("wire.yaml", file)
		if _, problems := generator.Model(doc, generator.Config{Name: "wire", Overrides: ov}); problems.HasErrors() {
			return file
		}
	}
	return overrideFile(plans)
}

// recorder keeps the body of the last request and passes it on.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	last []byte
	n    int
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.last, r.n = b, r.n+1
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(b))
	r.next.ServeHTTP(w, req)
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.last, r.n = nil, 0
	r.mu.Unlock()
}

// calls is how many requests reached the upstream since the last reset.
func (r *recorder) calls() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

func (r *recorder) body() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]any{}
	if len(r.last) > 0 {
		json.Unmarshal(r.last, &out)
	}
	return out
}

func normalize(v any) any {
	var out any
	json.Unmarshal([]byte(mustJSON(v)), &out)
	return out
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func resultText(res *mcp.CallToolResult) string {
	if res == nil || len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); ok {
		return tc.Text
	}
	return ""
}

func inputNames(schema map[string]any) []string {
	props, _ := schema["properties"].(map[string]any)
	return sortedNames(props)
}

// unionSummary marks a union the default tool's compressed schema
// summarised: not an object a flatten can lift.
var unionSummary = regexp.MustCompile(`One of \d+ shapes`)

// objectProps are the properties of an object input (through a $defs
// reference), when it is a plain object a flatten can lift.
func objectProps(schema map[string]any, name string) map[string]any {
	s := resolved(schema, name)
	if d, _ := s["description"].(string); s == nil || s["allOf"] != nil || s["oneOf"] != nil || s["anyOf"] != nil || unionSummary.MatchString(d) {
		return nil // a union, perhaps summarised in the default tool's compressed schema
	}
	props, _ := s["properties"].(map[string]any)
	return props
}

func requiredOf(schema map[string]any, name string) map[string]bool {
	out := map[string]bool{}
	if s := resolved(schema, name); s != nil {
		for _, r := range asList(s["required"]) {
			out[r.(string)] = true
		}
	}
	return out
}

func resolved(schema map[string]any, name string) map[string]any {
	props, _ := schema["properties"].(map[string]any)
	s, _ := props[name].(map[string]any)
	if ref, ok := s["$ref"].(string); ok {
		defs, _ := schema["$defs"].(map[string]any)
		s, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	return s
}

func free(sub map[string]any, taken map[string]bool) bool {
	for c := range sub {
		if taken[c] || strings.HasPrefix(c, "w_") || strings.ContainsAny(c, ".[]") {
			return false
		}
	}
	return true
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func sortedNames(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestBindingsBuildNestedValues generates step tools whose args build
// every object body field from a map of per-field inputs and constants,
// and every array field from a list of inputs, over real request bodies;
// each call with a valid input (optional inputs randomly left out) sends
// exactly the object or array the bindings describe, or, when the caller
// gave some of an object's inputs but not one it requires, is refused
// before any request.
func TestBindingsBuildNestedValues(t *testing.T) {
	root, corpus := testenv.RepoRoot(t), testenv.CorpusDir(t)
	specs := []string{
		filepath.Join(root, "testdata", "payments", "openapi.yaml"),
		filepath.Join(corpus, "redocly-museum-3.1.yaml"),
		filepath.Join(corpus, "discourse-3.1.json"),
	}
	files, calls, refused := 0, 0, 0
	start := time.Now()
	for _, spec := range specs {
		doc, problems := load.Load(context.Background(), spec, load.Options{})
		if problems.HasErrors() {
			t.Fatal(problems.Errors())
		}
		base, problems := generator.Model(doc, generator.Config{Name: "wire"})
		if problems.HasErrors() {
			t.Fatal(problems.Errors())
		}
		targets := bodyTargets(base)
		for seed := uint64(1); seed <= 80; seed++ {
			rng := rand.New(rand.NewPCG(seed, 11))
			tg := targets[rng.IntN(len(targets))]
			args, shape := randomArgs(rng, tg)
			file, _ := yaml.Marshal(map[string]any{"version": 1, "tools": []any{map[string]any{
				"name": "bound", "description": "Nested bindings of " + tg.op + " under test, e.g. with a synthesised input. Use it only in this test.",
				"steps": []any{map[string]any{"id": "call", "operation": tg.op, "args": args}}}}})
			ov, problems := overrides.Decode("bind.yaml", file)
			if problems.HasErrors() {
				t.Fatalf("%s seed %d: %v\n%s", spec, seed, problems.Errors(), file)
			}
			srv, problems := generator.Model(doc, generator.Config{Name: "wire", Overrides: ov})
			if problems.HasErrors() {
				t.Fatalf("%s seed %d: valid bindings do not generate: %v\n%s", spec, seed, problems.Errors(), file)
			}
			files++
			in := map[string]any{}
			caseName := []string{"normal", "boundary"}[rng.IntN(2)]
			for _, c := range srv.CallCases {
				if c.Name == caseName || c.Name == "normal" && len(in) == 0 {
					dec := json.NewDecoder(strings.NewReader(c.Args))
					dec.UseNumber()
					dec.Decode(&in)
				}
			}
			var schema map[string]any
			json.Unmarshal([]byte(srv.Tools[0].InputSchema), &schema)
			req := map[string]bool{}
			for _, r := range asList(schema["required"]) {
				req[r.(string)] = true
			}
			for _, k := range sortedNames(in) {
				if !req[k] && rng.IntN(3) == 0 {
					delete(in, k)
				}
			}
			def := cases.Definition(srv)
			rec := &recorder{next: oa2mcptest.NewUpstream(def, srv.UpstreamResponses)}
			rt, err := runtime.NewServer(def, runtime.Options{BaseURL: "http://upstream.in-process", Upstream: rec,
				Getenv: func(k string) string { return cases.Credentials(srv)[k] }})
			if err != nil {
				t.Fatal(err)
			}
			res, err := rt.CallTool(context.Background(), "bound", in)
			rt.Close()
			calls++
			want, partial := shape.build(in)
			switch {
			case err != nil:
				t.Fatalf("%s seed %d: %v\n%s", spec, seed, err, file)
			case partial:
				refused++
				if !res.IsError || rec.n != 0 || !strings.Contains(resultText(res), "goes together with") {
					t.Fatalf("%s seed %d: called with %s (an object's inputs given in part), want a refusal before any request; got %d requests and %s\n%s", spec, seed, mustJSON(in), rec.n, resultText(res), file)
				}
			case res.IsError:
				t.Fatalf("%s seed %d: called with %s failed: %s\n%s", spec, seed, mustJSON(in), resultText(res), file)
			default:
				if want == nil {
					want = map[string]any{} // no body, or an empty one
				}
				if got := rec.body(); !reflect.DeepEqual(normalize(got), normalize(want)) {
					t.Fatalf("%s seed %d: called with %s sent the body\n  %s\nwant\n  %s\noverride file:\n%s", spec, seed, mustJSON(in), mustJSON(got), mustJSON(want), file)
				}
			}
		}
	}
	t.Logf("%d override files, %d calls (%d refused as partial) checked on the wire in %v", files, calls, refused, time.Since(start).Round(time.Millisecond))
}

// bound describes what one binding sends: an input, a constant, an
// object of fields (required marks those the object needs) or a list.
type bound struct {
	input    string
	constant any
	isConst  bool
	fields   map[string]bound
	required map[string]bool
	items    []bound
	isList   bool
}

// build is the value the binding sends for input in; partial is true
// when an object got some of its inputs but lacks one it requires.
func (b bound) build(in map[string]any) (any, bool) {
	switch {
	case b.isConst:
		return b.constant, false
	case b.fields != nil:
		obj := map[string]any{}
		missing, given, partial := false, false, false
		for _, k := range sortedNamesB(b.fields) {
			f := b.fields[k]
			v, p := f.build(in)
			partial = partial || p
			switch {
			case v != nil:
				obj[k] = v
				given = given || !f.isConst
			case b.required[k]:
				missing = true
			}
		}
		if missing {
			return nil, partial || given
		}
		if len(obj) == 0 {
			return nil, partial
		}
		return obj, partial
	case b.isList:
		var out []any
		for _, it := range b.items {
			if v, _ := it.build(in); v != nil {
				out = append(out, v)
			}
		}
		if len(out) == 0 {
			return nil, false
		}
		return out, false
	}
	v, ok := in[b.input]
	if !ok {
		return nil, false
	}
	return v, false
}

// randomArgs binds every body field of tg: objects as maps of inputs and
// constants, arrays as lists of inputs, the rest as one input each. The
// returned bound describes the whole body.
func randomArgs(rng *rand.Rand, tg target) (map[string]any, bound) {
	args := map[string]any{}
	body := bound{fields: map[string]bound{}, required: map[string]bool{}}
	for _, f := range tg.fields {
		args[f.Arg], body.fields[f.Name] = randomBinding(rng, tg, f.Arg)
	}
	// Path, query and header inputs the operation requires: bound as is.
	for name := range tg.required {
		if _, ok := args[name]; !ok {
			args[name] = "${input." + name + "}"
		}
	}
	return args, body
}

func randomBinding(rng *rand.Rand, tg target, name string) (any, bound) {
	ref := func(n string) (string, bound) { return "${input." + n + "}", bound{input: n} }
	ex, _ := normalize(tg.example[name]).(map[string]any)
	if sub := objectProps(tg.schema, name); len(sub) > 0 && rng.IntN(4) != 0 {
		req := requiredOf(tg.schema, name)
		m := map[string]any{}
		b := bound{fields: map[string]bound{}, required: map[string]bool{}}
		for _, c := range sortedNames(sub) {
			cv, hasCV := ex[c]
			switch {
			case !req[c] && rng.IntN(3) == 0:
				continue // an optional field left unbound
			case hasCV && rng.IntN(3) == 0 && isScalar(cv):
				m[c], b.fields[c] = cv, bound{constant: cv, isConst: true}
			default:
				m[c], b.fields[c] = ref("b_" + name + "_" + c)
			}
			b.required[c] = req[c]
		}
		if len(m) > 0 {
			return m, b
		}
	}
	if s := resolved(tg.schema, name); s != nil && s["type"] == "array" && rng.IntN(3) != 0 {
		var list []any
		b := bound{isList: true}
		for i := range 1 + rng.IntN(2) {
			e, eb := ref(fmt.Sprintf("b_%s_%d", name, i))
			list, b.items = append(list, e), append(b.items, eb)
		}
		return list, b
	}
	return ref(name)
}

func isScalar(v any) bool {
	switch v.(type) {
	case string, float64, bool:
		return true
	}
	return false
}

func sortedNamesB(m map[string]bound) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
