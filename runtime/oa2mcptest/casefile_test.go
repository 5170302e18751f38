package oa2mcptest_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// texts are the kinds of text a case file holds: compact JSON, JSON with
// spaces, JSON scalars, HTML-ish and non-ASCII text, broken JSON, empty.
var texts = []string{
	`{}`, `{"id":3}`, `{"a":{"b":[1,2,{"c":null}]},"d":"<&>"}`, `[1,2]`, `[]`,
	`{"id": 3}`, ` {"id":3}`, `"just a string"`, `42`, `null`, `true`,
	`plain text`, `<html><body>x</body></html>`, `名前 \u00e9`, `{"broken":`, `{"dup":1,"dup":2}`,
	`{"esc":"\u003c\n"}`, "",
}

// randomSuite is a suite of seeded cases that sets every field in turn.
func randomSuite(r *rand.Rand) oa2mcptest.Suite {
	return randomSuiteOf(r, func() string { return texts[r.IntN(len(texts))] })
}

// randomSuiteOf is randomSuite with its texts drawn from pick.
func randomSuiteOf(r *rand.Rand, pick func() string) oa2mcptest.Suite {
	responses := func() map[string]oa2mcptest.Response {
		if r.IntN(3) == 0 {
			return nil
		}
		m := map[string]oa2mcptest.Response{}
		for i := range 1 + r.IntN(3) {
			body := pick()
			switch r.IntN(4) {
			case 0:
				body = oa2mcptest.RepeatJSON(r.IntN(30), pick())
			case 1: // bytes that are not UTF-8: an image, say
				body = "\x89PNG\r\n\x00\xff" + pick()
			}
			m[fmt.Sprintf("GET /r%d", i)] = oa2mcptest.Response{Status: []int{0, 200, 404}[r.IntN(3)], ContentType: []string{"", "text/plain"}[r.IntN(2)], Body: body}
		}
		return m
	}
	s := oa2mcptest.Suite{Responses: responses(), Credentials: map[string]string{}}
	for i := range r.IntN(3) {
		s.Credentials[fmt.Sprintf("X_%d", i)] = pick()
	}
	for i := range 1 + r.IntN(12) {
		c := oa2mcptest.Case{Tool: fmt.Sprintf("tool_%d", r.IntN(3)), Name: fmt.Sprintf("case %d %s", i, pick()), Args: pick(),
			Caller: []string{"", oa2mcptest.CallerOther}[r.IntN(2)], HandleOwner: []string{"", oa2mcptest.CallerNoScope}[r.IntN(2)],
			Fault: []string{"", oa2mcptest.FaultTimeout}[r.IntN(2)], Responses: responses(), WantError: r.IntN(2) == 0,
			WantKind: []string{"", "not_found"}[r.IntN(2)], WantUpstream: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			c.Answers = pick()
		}
		if r.IntN(2) == 0 {
			c.WantText = []string{pick(), pick()}
		}
		if r.IntN(3) == 0 {
			c.WantPage = &oa2mcptest.Page{Items: r.IntN(5), Total: r.IntN(7) - 1, HasMore: r.IntN(2) == 0, Next: r.IntN(4) - 1, PageInput: "page"}
		}
		s.Cases = append(s.Cases, c)
	}
	return s
}

// TestCaseFileRoundTrip: for seeded suites, reading what EncodeCases
// wrote gives the very suite back, writing it again gives the same bytes,
// and every case starts on a line of its own.
func TestCaseFileRoundTrip(t *testing.T) {
	seed := oa2mcptest.Seed(t)
	r := rand.New(rand.NewPCG(seed, 7))
	for round := range 300 {
		s := randomSuite(r)
		data, err := oa2mcptest.EncodeCases(s)
		if err != nil {
			t.Fatalf("seed %d round %d: %v", seed, round, err)
		}
		got, err := oa2mcptest.DecodeCases("cases.json", data)
		if err != nil {
			t.Fatalf("seed %d round %d: %v\n%s", seed, round, err, data)
		}
		if s.Responses == nil { // written as {}: no answers and none are one to the driver
			s.Responses = map[string]oa2mcptest.Response{}
		}
		if !reflect.DeepEqual(got.Responses, s.Responses) || !reflect.DeepEqual(got.Credentials, s.Credentials) {
			t.Fatalf("seed %d round %d: the suite read back differs\n got %#v %#v\nwant %#v %#v\nfile:\n%s", seed, round, got.Responses, got.Credentials, s.Responses, s.Credentials, data)
		}
		for i := range s.Cases {
			if !reflect.DeepEqual(got.Cases[i], s.Cases[i]) {
				t.Fatalf("seed %d round %d: case %d read back differs\n got %#v\nwant %#v\nfile:\n%s", seed, round, i, got.Cases[i], s.Cases[i], data)
			}
		}
		again, _ := oa2mcptest.EncodeCases(got)
		if !bytes.Equal(again, data) {
			t.Fatalf("seed %d round %d: writing the suite again gives other bytes", seed, round)
		}
		if n := strings.Count(string(data), "\n    {\n      \"tool\": "); n != len(s.Cases) {
			t.Fatalf("seed %d round %d: %d cases start a line of their own, want %d:\n%s", seed, round, n, len(s.Cases), data)
		}
	}
}

// TestCaseFileRepeats: a body of one item repeated is written once.
func TestCaseFileRepeats(t *testing.T) {
	item := `{"id":"example","name":"example"}`
	data, err := oa2mcptest.EncodeCases(oa2mcptest.Suite{Responses: map[string]oa2mcptest.Response{"GET /x": {Body: oa2mcptest.RepeatJSON(23, item)}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), `"id": "example"`); n != 1 {
		t.Errorf("the item is written %d times, want once:\n%s", n, data)
	}
}

// TestCaseFileRefused: a file that is not what EncodeCases writes is
// refused with its position and what to do.
func TestCaseFileRefused(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"{\n  \"x-oa2mcp-generated\": \"x\",\n  \"cases\": [{\"tool\": \"a\", \"name\": \"b\", \"args\": {}, \"wantKnd\": \"x\"}]\n}", `f.json:3:`},
		{`{"cases": []}`, `f.json:1:1: no "x-oa2mcp-generated" key`},
		{"{\"x-oa2mcp-generated\": \"x\",\n \"cases\": [{\"tool\": \"a\"}]}", `case 1 has no tool or no name`},
		{"{\"x-oa2mcp-generated\": \"x\",\n \"cases\": [{\"tool\": 3}]}", `f.json:2:`},
		{"{\"x-oa2mcp-generated\": \"x\",\n \"cases\": [", `f.json:2:`},
	} {
		_, err := oa2mcptest.DecodeCases("f.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("DecodeCases(%q) = %v, want an error with %q", c.data, err, c.want)
		}
	}
}

// recorder is a TB that keeps what it was told.
type recorder struct{ errs []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestRunFileBites: RunFile runs what the case file says, as the
// generated tests call it: the passing cases pass, and each wrong
// expectation is reported with its tool and case.
func TestRunFileBites(t *testing.T) {
	write := func(cases []oa2mcptest.Case) string {
		s := shopSuite(cases...)
		data, err := oa2mcptest.EncodeCases(s)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "oa2mcp_calls.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var ok recorder
	oa2mcptest.RunFile(&ok, shop(), write(passing))
	if len(ok.errs) != 0 {
		t.Errorf("the passing cases failed: %v", ok.errs)
	}
	wrong := []oa2mcptest.Case{
		{Tool: "get_pet", Name: "500 as success", Args: `{"id":3}`, Fault: oa2mcptest.FaultStatus(500), WantUpstream: true},
		{Tool: "get_pet", Name: "wrong kind", Args: `{"id":3}`, Fault: oa2mcptest.FaultStatus(404), WantError: true, WantKind: "timeout", WantUpstream: true},
		{Tool: "list_pets", Name: "wrong page", Args: `{"offset":1}`, WantUpstream: true, WantPage: &oa2mcptest.Page{Items: 1, Total: 1, Next: -1, PageInput: "offset"}},
		{Tool: "manage_pet", Name: "unused ignored", Args: `{"action":"remove","id":4,"name":"Tom"}`, WantUpstream: true},
	}
	var bad recorder
	oa2mcptest.RunFile(&bad, shop(), write(wrong))
	all := strings.Join(bad.errs, "\n")
	for _, c := range wrong {
		if !strings.Contains(all, c.Tool+" ["+c.Name+"]") {
			t.Errorf("case %s [%s]: no failure reported:\n%s", c.Tool, c.Name, all)
		}
	}
	var missing recorder
	oa2mcptest.RunFile(&missing, shop(), filepath.Join(t.TempDir(), "none.json"))
	if len(missing.errs) != 1 || !strings.Contains(missing.errs[0], "oa2mcp generate") {
		t.Errorf("a missing case file: %v, want one error saying to regenerate", missing.errs)
	}
}
