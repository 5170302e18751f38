package runtime

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// fuzzOp has a parameter in every location and style the runtime builds.
var fuzzOp = &Operation{
	Method: "GET",
	Path:   "/items/{id}/{label}",
	Params: []Param{
		{Name: "id", Arg: "id", In: InPath, Style: "simple", Required: true},
		{Name: "label", Arg: "label", In: InPath, Style: "label", Explode: true, Required: true},
		{Name: "q", Arg: "q", In: InQuery, Style: "form", Explode: true},
		{Name: "tags", Arg: "tags", In: InQuery, Style: "pipeDelimited"},
		{Name: "filter", Arg: "filter", In: InQuery, Style: "deepObject", Explode: true},
		{Name: "X-Trace", Arg: "trace", In: InHeader, Style: "simple"},
		{Name: "session", Arg: "session", In: InCookie, Style: "form"},
	},
}

// FuzzBuildRequest feeds arbitrary argument objects to the path, query and
// header builders: they must never panic, a path value must never change
// the route (no "/", "?", "#" or dot segment escapes its segment), and a
// header value is either refused or free of CR, LF and NUL.
func FuzzBuildRequest(f *testing.F) {
	seeds := []string{
		`{"id": 1, "label": "a", "q": "x"}`,
		`{"id": "../admin?x=1#f", "label": [1, 2], "tags": ["a|b", "c"], "filter": {"a": {"b": 1}}}`,
		`{"id": "..", "label": {"k": "v"}, "trace": "a\r\nInjected: 1", "session": "s; other=1"}`,
		`{"id": "%2e%2e", "label": "", "q": ["x", "y"], "filter": "plain"}`,
		`{"id": 1e300, "label": null, "trace": "\u0000"}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	op, err := compileOp(fuzzOp, &credentialSet{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var args map[string]any
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&args) != nil || args == nil {
			return
		}
		path, err := op.buildPath(args)
		if err == nil {
			checkPath(t, path)
		}
		_ = op.buildQuery(args)
		for _, p := range fuzzOp.Params {
			if p.In != InHeader {
				continue
			}
			if v, ok := args[p.Arg]; ok {
				if hv, err := headerValue(p, v); err == nil && strings.ContainsAny(hv, "\r\n\x00") {
					t.Fatalf("header value %q carries a control character", hv)
				}
			}
		}
	})
}

// checkPath asserts the built path has exactly the template's segments.
func checkPath(t *testing.T, path string) {
	t.Helper()
	if strings.ContainsAny(path, "?#") {
		t.Fatalf("path %q carries a query or fragment", path)
	}
	segs := strings.Split(path, "/")
	if len(segs) != 4 || segs[0] != "" || segs[1] != "items" {
		t.Fatalf("path %q does not keep the template's segments", path)
	}
	for _, s := range segs[2:] {
		u, err := url.PathUnescape(s)
		if err != nil {
			continue
		}
		if u == "." || u == ".." {
			t.Fatalf("path %q has a dot segment", path)
		}
	}
}
