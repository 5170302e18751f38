package strictyaml

import (
	"strings"
	"testing"
)

type limits struct {
	Limit int     `yaml:"limit"`
	Burst *uint64 `yaml:"burst"`
	Rate  float64 `yaml:"rate"`
}

type doc struct {
	Name    string            `yaml:"name"`
	Strict  *bool             `yaml:"strict"`
	Tags    []string          `yaml:"tags"`
	Labels  map[string]string `yaml:"labels"`
	Limits  limits            `yaml:"limits"`
	Items   []*limits         `yaml:"items"`
	Example any               `yaml:"example"`
}

// TestTypeErrorsNameTheKey: every value of the wrong type is reported at
// once, by its key path and the YAML type wanted, never in Go terms.
func TestTypeErrorsNameTheKey(t *testing.T) {
	src := `name: [a, b]
strict: maybe
tags: solo
labels: [x]
limits: {limit: many, burst: -1, rate: fast}
items:
  - limit: 2.5
`
	var d doc
	got := Decode("o.yaml", []byte(src), &d).Error()
	for _, want := range []string{
		`o.yaml:1:7: name must be a single value, not a list; write one value`,
		`o.yaml:2:9: strict must be true or false, not the string "maybe"; write true or false`,
		`o.yaml:3:7: tags must be a list, not the string "solo"`,
		`o.yaml:4:9: labels must be a mapping, not a list`,
		`o.yaml:5:17: limits.limit must be an integer, not the string "many"; write a whole number, e.g. 20`,
		`o.yaml:5:30: limits.burst must be an integer of 0 or more, not the number -1`,
		`o.yaml:5:40: limits.rate must be a number, not the string "fast"`,
		`o.yaml:7:12: items[0].limit must be an integer, not the number 2.5`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	for _, goWord := range []string{"Go ", "struct", "int64", "uint64", "float64", "interface", "[]string"} {
		if strings.Contains(got, goWord) {
			t.Errorf("message names Go type %q:\n%s", goWord, got)
		}
	}
}

// TestAcceptsWhatTheDecoderConverts: values the decoder turns into the
// field's type are not refused.
func TestAcceptsWhatTheDecoderConverts(t *testing.T) {
	src := `name: 123
strict: true
tags: [1, two]
labels: {a: 1}
limits: {limit: "3", burst: 4, rate: 2}
items:
  - &one {limit: 1.0}
  - *one
example: {anything: [goes]}
`
	var d doc
	if problems := Decode("o.yaml", []byte(src), &d); len(problems) > 0 {
		t.Fatalf("unexpected problems:\n%s", problems.Error())
	}
	if d.Name != "123" || d.Limits.Limit != 3 || *d.Limits.Burst != 4 || d.Limits.Rate != 2 || len(d.Items) != 2 || d.Items[1].Limit != 1 {
		t.Errorf("decoded %+v", d)
	}
}

func TestUnknownKeysAllAtOnce(t *testing.T) {
	var d doc
	got := Decode("o.yaml", []byte("nmae: x\nlimits: {limt: 1}\n"), &d).Error()
	for _, want := range []string{`o.yaml:1:1: unknown key "nmae"; did you mean name?`, `o.yaml:2:10: unknown key "limt"; did you mean limit?`} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}

func TestScrubGoTypeNames(t *testing.T) {
	if got := scrub("cannot unmarshal string into Go struct field File.Tools of type int"); strings.Contains(got, "Go") || strings.Contains(got, "int") {
		t.Errorf("scrub kept Go terms: %q", got)
	}
	if got := scrub("could not find end character of double-quoted text"); got != "could not find end character of double-quoted text" {
		t.Errorf("scrub changed a plain message: %q", got)
	}
}
