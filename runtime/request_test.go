package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// decodeJSON decodes a test value like the handler does (UseNumber).
func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestPathStyles(t *testing.T) {
	const arr, obj = `["a","b/c"]`, `{"x":1,"y":"z"}`
	for _, tc := range []struct {
		style   string
		explode bool
		value   string
		want    string
	}{
		{"simple", false, `"5"`, "5"},
		{"simple", false, arr, "a,b%2Fc"},
		{"simple", false, obj, "x,1,y,z"},
		{"simple", true, obj, "x=1,y=z"},
		{"label", false, `"5"`, ".5"},
		{"label", false, arr, ".a,b%2Fc"},
		{"label", true, arr, ".a.b%2Fc"},
		{"label", true, obj, ".x=1.y=z"},
		{"matrix", false, `"5"`, ";id=5"},
		{"matrix", false, arr, ";id=a,b%2Fc"},
		{"matrix", true, arr, ";id=a;id=b%2Fc"},
		{"matrix", false, obj, ";id=x,1,y,z"},
		{"matrix", true, obj, ";x=1;y=z"},
	} {
		p := Param{Name: "id", Arg: "id", In: InPath, Style: tc.style, Explode: tc.explode}
		if got := expandPathParam(p, decodeJSON(t, tc.value)); got != tc.want {
			t.Errorf("%s explode=%v %s = %q, want %q", tc.style, tc.explode, tc.value, got, tc.want)
		}
	}
}

func TestQueryStyles(t *testing.T) {
	for _, tc := range []struct {
		p     Param
		value string
		want  string
	}{
		{Param{Name: "id", Style: "form", Explode: true}, `[3,4]`, "id=3&id=4"},
		{Param{Name: "id", Style: "form"}, `[3,4]`, "id=3,4"},
		{Param{Name: "id", Style: "form"}, `{"r":1,"g":2}`, "id=g,2,r,1"},
		{Param{Name: "id", Style: "form", Explode: true}, `{"r":1,"g":2}`, "g=2&r=1"},
		{Param{Name: "id", Style: "spaceDelimited"}, `["a","b"]`, "id=a%20b"},
		{Param{Name: "id", Style: "pipeDelimited"}, `["a","b"]`, "id=a%7Cb"},
		{Param{Name: "id", Style: "deepObject", Explode: true}, `{"r":1,"n":{"a":"b c"}}`, "id[n][a]=b%20c&id[r]=1"},
		{Param{Name: "u", Style: "form", Explode: true}, `"a/b?c&d=e#f"`, "u=a%2Fb%3Fc%26d%3De%23f"},
		{Param{Name: "u", Style: "form", Explode: true, AllowReserved: true}, `"a/b?c&d=e#f"`, "u=a/b?c%26d%3De%23f"},
		{Param{Name: "b", Style: "form", Explode: true}, `true`, "b=true"},
	} {
		tc.p.Arg, tc.p.In = "v", InQuery
		op := &compiledOp{query: []Param{tc.p}}
		if got := op.buildQuery(map[string]any{"v": decodeJSON(t, tc.value)}); got != tc.want {
			t.Errorf("%+v %s = %q, want %q", tc.p, tc.value, got, tc.want)
		}
	}
}

func TestHeaderValues(t *testing.T) {
	p := Param{Name: "X-Ids", Arg: "ids", In: InHeader, Style: "simple"}
	if got, err := headerValue(p, decodeJSON(t, `[1,2]`)); err != nil || got != "1,2" {
		t.Errorf("array header = %q, %v", got, err)
	}
	for _, bad := range []string{"a\rb", "a\nb", "a\x00b"} {
		if _, err := headerValue(p, bad); err == nil {
			t.Errorf("header value %q accepted", bad)
		}
	}
}

func TestRawBody(t *testing.T) {
	op := &compiledOp{body: &Body{MediaType: "text/plain", Arg: "text", Required: true}}
	r, ct, err := op.buildBody(map[string]any{"text": "hello"})
	if err != nil || ct != "text/plain" {
		t.Fatal(ct, err)
	}
	buf := new(bytes.Buffer)
	if _, err := buf.ReadFrom(r); err != nil || buf.String() != "hello" {
		t.Fatalf("body = %q", buf.String())
	}
	if _, _, err := op.buildBody(map[string]any{}); err == nil {
		t.Fatal("missing required body accepted")
	}
}

func TestCompileOpErrors(t *testing.T) {
	cs, _ := newCredentialSet(nil, func(string) string { return "" })
	for _, op := range []*Operation{
		{Method: "GET", Path: "/a/{missing}"},
		{Method: "GET", Path: "/a/{open"},
		{Method: "GET", Path: "/a", Security: [][]string{{"nope"}}},
		{Method: "GET", Path: "/a", Params: []Param{{Name: "x", In: "body"}}},
	} {
		if _, err := compileOp(op, cs); err == nil {
			t.Errorf("compileOp(%+v) succeeded", op)
		}
	}
}

// TestIdempotentMethods: QUERY (OpenAPI 3.2) is retried like GET; POST
// and PATCH are not.
func TestIdempotentMethods(t *testing.T) {
	for m, want := range map[string]bool{"GET": true, "QUERY": true, "PUT": true, "DELETE": true, "POST": false, "PATCH": false} {
		if got := idempotentMethod(m); got != want {
			t.Errorf("idempotentMethod(%s) = %v, want %v", m, got, want)
		}
	}
}

// TestEmptyPatchRefused: a PATCH whose body of optional fields came out
// empty is refused naming the inputs that could fill it (an empty merge
// patch changes nothing); any other method, a PATCH with one field, and a
// whole-body PATCH input are sent as before.
func TestEmptyPatchRefused(t *testing.T) {
	fields := &Body{MediaType: "application/json", Required: true, Fields: []BodyField{{Name: "status", Arg: "status"}, {Name: "notes", Arg: "notes"}}}
	whole := &Body{MediaType: "application/json", Required: true, Arg: "body"}
	cases := []struct {
		method string
		body   *Body
		args   map[string]any
		want   string // the body sent, or "" for a refusal
	}{
		{"PATCH", fields, map[string]any{}, ""},
		{"PATCH", fields, map[string]any{"status": "done"}, `{"status":"done"}`},
		{"PUT", fields, map[string]any{}, `{}`},
		{"POST", fields, map[string]any{}, `{}`},
		{"PATCH", whole, map[string]any{"body": map[string]any{}}, `{}`},
	}
	for _, c := range cases {
		op := &compiledOp{method: c.method, body: c.body}
		r, _, err := op.buildBody(c.args)
		if c.want == "" {
			if err == nil || !strings.Contains(err.Error(), `nothing to change: give at least one of "status", "notes"`) {
				t.Errorf("%s %v: err = %v, want the empty patch refused", c.method, c.args, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", c.method, c.args, err)
			continue
		}
		buf := new(bytes.Buffer)
		buf.ReadFrom(r)
		if buf.String() != c.want {
			t.Errorf("%s %v: sent %s, want %s", c.method, c.args, buf.String(), c.want)
		}
	}
}
