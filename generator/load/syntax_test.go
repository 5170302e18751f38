package load

import (
	"strings"
	"testing"
)

// syntaxLines loads one file and returns its problems, folder cut off.
func syntaxLines(t *testing.T, name, text string) []string {
	t.Helper()
	path := writeSpecs(t, name, map[string]string{name: text})
	doc, probs := Load(t.Context(), path, Options{})
	if doc != nil {
		t.Fatalf("%s loaded", name)
	}
	var lines []string
	for _, p := range probs.Errors() {
		lines = append(lines, p.String())
	}
	return problemLines(path, lines)
}

// pathsYAML is a YAML spec of n paths, each 5 lines long from line 5 on.
func pathsYAML(n int, edit func(i int, lines []string) []string) string {
	var b strings.Builder
	b.WriteString("openapi: 3.0.3\ninfo:\n  title: broken\n  version: '1'\npaths:\n")
	for i := range n {
		lines := []string{
			"  /p" + string(rune('a'+i)) + ":",
			"    get:",
			"      tags: [a, b]",
			"      responses:",
			"        '200': {description: ok}",
		}
		if edit != nil {
			lines = edit(i, lines)
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}

// TestSyntaxUnclosedFlow checks that an unclosed "[" or "{" is reported
// where it opens, not where the parser gave up, which may be far below.
func TestSyntaxUnclosedFlow(t *testing.T) {
	far := pathsYAML(6, func(i int, lines []string) []string {
		if i == 1 {
			// Open a sequence whose items run on over the next lines: the
			// parser only gives up at the next path's "get:".
			out := []string{lines[0], lines[1], "      tags: [a, b,"}
			for range 30 {
				out = append(out, "        c, d,")
			}
			return append(out, "        e", lines[3], lines[4])
		}
		return lines
	})
	wantLines(t, syntaxLines(t, "spec.yaml", far), []string{
		`spec.yaml:13:13: invalid YAML: this '[' is never closed (the parser stopped at 45:7: ',' or ']' must be specified); add the closing ']'`,
	})
	nested := pathsYAML(3, func(i int, lines []string) []string {
		if i == 2 {
			lines[4] = `        '200': {description: ok, content: {application/json: {schema: {type: string}}}`
		}
		return lines
	})
	wantLines(t, syntaxLines(t, "spec.yaml", nested), []string{
		`spec.yaml:20:16: invalid YAML: this '{' is never closed; add the closing '}'`,
	})
	// An apostrophe inside a plain scalar opens no quoted scalar: the "["
	// on line 8 is closed, and the stray "]" on line 13 is reported as is.
	apostrophe := pathsYAML(2, func(i int, lines []string) []string {
		lines[2] = []string{`      tags: [it's]`, `      tags: ]`}[i]
		return lines
	})
	wantLines(t, syntaxLines(t, "spec.yaml", apostrophe), []string{
		`spec.yaml:13:13: invalid YAML: could not find '[' character corresponding to ']'; fix the YAML syntax`,
	})
	quoted := pathsYAML(2, func(i int, lines []string) []string {
		if i == 0 {
			lines[2] = `      tags: ["a]", 'it''s', b`
		}
		return lines
	})
	wantLines(t, syntaxLines(t, "spec.yaml", quoted), []string{
		`spec.yaml:8:13: invalid YAML: this '[' is never closed (the parser stopped at 9:7: ',' or ']' must be specified); add the closing ']'`,
	})
}

// TestSyntaxOtherYAML checks errors that are not about brackets.
func TestSyntaxOtherYAML(t *testing.T) {
	wantLines(t, syntaxLines(t, "spec.yaml", "openapi: 3.0.3\ninfo:\n  title: x\n   version: x\npaths: {}\n"), []string{
		`spec.yaml:4:11: invalid YAML: mapping value is not allowed in this context (check the indentation, or quote a value that holds ": "); fix the YAML syntax`,
	})
	wantLines(t, syntaxLines(t, "spec.yaml", "openapi: 3.0.3\ninfo: {title: x, version: x}\npaths: {}\npaths: {}\n"), []string{
		`spec.yaml:4:1: invalid YAML: mapping key "paths" already defined at [3:1]; fix the YAML syntax`,
	})
}

// TestSyntaxJSON checks that a JSON file's errors are reported as JSON,
// at the character at fault; a truncated file at its end, naming the
// innermost bracket left open.
func TestSyntaxJSON(t *testing.T) {
	full := "{\n  \"openapi\": \"3.0.3\",\n  \"info\": {\"title\": \"x\", \"version\": \"1\"},\n  \"paths\": {\n    \"/a\": {\"get\": {\"responses\": {\"200\": {\"description\": \"ok\"}}}}\n  }\n}\n"
	cut := full[:strings.Index(full, "\"responses\"")]
	wantLines(t, syntaxLines(t, "spec.json", cut), []string{
		`spec.json:5:20: invalid JSON: the file ends in the middle of the document (the '{' at 5:19 is never closed); the file may be cut short: fetch or save it again`,
	})
	broken := strings.Replace(full, `"title": "x",`, `"title": "x",,`, 1)
	wantLines(t, syntaxLines(t, "spec.json", broken), []string{
		`spec.json:3:25: invalid JSON: invalid character ',' looking for beginning of object key string; fix the JSON syntax`,
	})
	// The same cut under a .yaml name, and with the version key past the
	// cut (so that the sniffer finds none): still JSON.
	wantLines(t, syntaxLines(t, "spec.yaml", cut), []string{
		`spec.yaml:5:20: invalid JSON: the file ends in the middle of the document (the '{' at 5:19 is never closed); the file may be cut short: fetch or save it again`,
	})
	wantLines(t, syntaxLines(t, "spec.json", "{\"info\": {\"title\": \"x\",\n"), []string{
		`spec.json:1:24: invalid JSON: the file ends in the middle of the document (the '{' at 1:10 is never closed); the file may be cut short: fetch or save it again`,
	})
}

// TestDecodeErrorWords checks that decoder messages never show Go types.
func TestDecodeErrorWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"cannot construct !!bool `true` into []string in /components/schemas/A/required", `"required" must be a list of property names, not true`},
		{"cannot construct !!map into []interface {} in /x/examples", `"examples" must be a list, not a mapping`},
		{"cannot construct !!str `#/compo...` into openapi3.Schema in /a/properties/$ref", `"$ref" must be a schema (a mapping), not the text "#/compo..."`},
		{"cannot construct !!seq into openapi3.Paths in /paths", `"paths" must be a mapping of paths, not a list`},
		{"cannot construct !!str `x` into *openapi3.Info in /info", `"info" must be an info object, not the text "x"`},
		{"cannot construct !!int `5` into map[string]*openapi3.ServerVariable in /servers/0/variables", `"variables" must be a mapping, not the number 5`},
		{"json: cannot unmarshal string into Go struct field Schema.properties of type openapi3.Schema", `"properties" must be a schema (a mapping), not a string`},
		{"json: cannot unmarshal number into Go value of type string", `expected a string, found a number`},
		{"field foo not found in type openapi3.Operation", `unknown field "foo"`},
		{"something about openapi3.RequestBodyRef and []string", `something about a request body object and a list of strings`},
	}
	for _, tt := range tests {
		if got := describeDecodeError(tt.in).msg; got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// TestUnclosedFlow checks the bracket scan on its own: quoted and plain
// scalars, comments and block scalars hide brackets; a flow collection
// starts only where a value does.
func TestUnclosedFlow(t *testing.T) {
	tests := []struct {
		yaml string
		want int // offset of the unclosed bracket, -1 for none
	}{
		{"a: [it's]\nb: c\n", -1},
		{"a: ['x]', b\nc: d\n", 3},
		{"a: \"[x\"\nb: {c: [d]\n", 11},
		{"a: |\n  [x\nb: 1\n", -1},
		{"a: [b, # ]\n  c\n", 3},
		{"a: see [docs\nb: 1\n", -1},
		{"- [a, {b: c}\n", 2},
	}
	for _, tt := range tests {
		got, ok := unclosedFlow([]byte(tt.yaml), len(tt.yaml))
		if !ok {
			got = -1
		}
		if got != tt.want {
			t.Errorf("%q: got %d, want %d", tt.yaml, got, tt.want)
		}
	}
}
