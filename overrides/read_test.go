package overrides

import (
	"strings"
	"testing"
)

func TestDecodeReportsEveryProblem(t *testing.T) {
	src := `version: 1
server:
  nmae: x
select:
  unused: sometimes
tools:
  - name: "bad name!"
    operation: a
    steps:
      - operation: b
        args:
          x: ${nowhere.y}
  - name: twice
    operation: a
  - name: twice
    actions:
      go: {}
    input:
      f:
        value: 1
        env: X
`
	_, problems := Decode("o.yaml", []byte(src))
	got := problems.Error()
	_, problems2 := Decode("o.yaml", []byte(strings.Replace(src, "  nmae: x\n", "", 1)))
	got2 := problems2.Error()
	if !strings.Contains(got, `o.yaml:3:3: unknown key "nmae"; did you mean name?`) {
		t.Errorf("unknown key not reported:\n%s", got)
	}
	for _, want := range []string{
		`o.yaml:4:3: unknown value "sometimes" for select.unused; use "keep", "drop" or "discover"`,
		`o.yaml:6:5: tool name "bad name!" is not valid`,
		`tool "bad name!" has 2 of operation, steps and actions`,
		`binding for "x": ${nowhere.y}: unknown root "nowhere"`,
		`o.yaml:14:5: tool name "twice" is used twice (first at o.yaml:12:5)`,
		`action "go" of tool "twice" is incomplete`,
		`input "f" is hidden in more than one way`,
	} {
		if !strings.Contains(got2, want) {
			t.Errorf("missing %q in:\n%s", want, got2)
		}
	}
}

func TestParseExpr(t *testing.T) {
	e, err := ParseExpr("${steps.ticket.body.order_id}")
	if err != nil || !e.Whole || e.Refs[0].Root != "steps" || strings.Join(e.Refs[0].Path, ".") != "ticket.body.order_id" {
		t.Fatalf("whole ref: %+v %v", e, err)
	}
	e, err = ParseExpr("T-${input.year}-${input.n}")
	if err != nil || e.Whole || len(e.Refs) != 2 {
		t.Fatalf("template: %+v %v", e, err)
	}
	if e, _ := ParseExpr(42); e.Const != 42 {
		t.Fatalf("const: %+v", e)
	}
	for _, bad := range []string{"${input}", "${steps.x.headers}", "${env.a.b}", "${x"} {
		if _, err := ParseExpr(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestDecodeBrokenYAML: a file that does not parse gives its syntax
// problem alone (no follow-on "version 0") and no file; a file that
// parses but has a refused value still gives the rest of the file.
func TestDecodeBrokenYAML(t *testing.T) {
	f, problems := Decode("ov.yaml", []byte("version: 1\ntools: [\n"))
	if f != nil || len(problems) != 1 || !strings.Contains(problems.Error(), "ov.yaml:") {
		t.Errorf("broken YAML: file %v, problems:\n%s", f != nil, problems.Error())
	}
	f, problems = Decode("ov.yaml", []byte("version: 1\ntools:\n  - name: a\n    operation: getA\n    output: {list: {limit: many}}\n"))
	if f == nil || !problems.HasErrors() || len(f.Tools) != 1 || f.Tools[0].Operation != "getA" {
		t.Errorf("refused value: file %+v, problems:\n%s", f, problems.Error())
	}
}
