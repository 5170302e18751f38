package load

import (
	"reflect"
	"strings"
	"testing"
)

// TestScanYAMLFlow checks the key scanner on YAML flow collections: keys
// inside them get their paths and offsets, values their extent, and the
// block scan resumes after a collection spread over several lines.
func TestScanYAMLFlow(t *testing.T) {
	src := strings.Join([]string{
		"a:",
		"  b: {c: 1, 'd''e': [x, {f: \"g\"}], h: }  # comment",
		"v:",
		"  - {i: j}",
		"k: [",
		"  {l: m},",
		"  {n: o}]",
		"p: q",
		"r: {s: 'unclosed}",
		"t: u",
	}, "\n")
	data := []byte(src)
	hits := scanKeys(data, false, func([]string) bool { return true })
	var got []string
	for _, h := range hits {
		got = append(got, strings.Join(h.path, "/")+"@"+src[h.off:h.off+1]+"="+h.value)
	}
	want := []string{
		"a@a=", `a/b@b={c: 1, 'd''e': [x, {f: "g"}], h: }`, "a/b/c@c=1", "a/b/d'e/1/f@f=g", "a/b/d'e@'=", "a/b/h@h=",
		"v@v=", "v/0/i@i=j", "k@k=[", "k/0/l@l=m", "k/1/n@n=o", "p@p=q", "r@r={s: 'unclosed}", "t@t=u",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hits:\n got %q\nwant %q", got, want)
	}
	for _, h := range hits {
		if strings.Join(h.path, "/") == "a/b/d'e/1/f" && src[h.voff:h.vend] != `"g"` {
			t.Errorf("value of f spans %q", src[h.voff:h.vend])
		}
	}
}

// TestSniffJSONVersion checks the scanner-based JSON sniffer, with the
// version key last and as a number.
func TestSniffJSONVersion(t *testing.T) {
	info, ok := sniffJSON([]byte("{\"paths\": {\"/a\": {\"swagger\": 1}},\n \"swagger\": 2.0}"))
	if !ok || info.version != "2" || info.pos.Line != 2 || info.pos.Column != 2 {
		t.Errorf("got %+v, %v", info, ok)
	}
}
