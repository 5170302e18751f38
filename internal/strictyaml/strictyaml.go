// Package strictyaml decodes YAML into Go structs and reports every
// problem at once with its line and column: syntax errors, unknown keys
// (with a "did you mean" suggestion) and values of the wrong type.
//
// goccy/go-yaml's own strict mode stops at the first unknown field, which
// would make a user fix an override file one error per run.
package strictyaml

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/oa2mcp/oa2mcp/generator/diag"
)

// Decode parses data (read from file, used for positions) into v, which
// must be a pointer to a struct with `yaml` tags.
func Decode(file string, data []byte, v any) diag.List {
	var problems diag.List
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		problems = append(problems, yamlProblem(file, err, "fix the YAML syntax"))
		return problems
	}
	for _, doc := range f.Docs {
		if doc.Body != nil {
			checkKeys(file, doc.Body, reflect.TypeOf(v).Elem(), &problems)
		}
	}
	if problems.HasErrors() {
		return problems
	}
	if err := yaml.UnmarshalWithOptions(data, v); err != nil {
		problems = append(problems, yamlProblem(file, err, "use a value of the documented type"))
	}
	return problems
}

// checkKeys walks node alongside type t and reports mapping keys that t
// has no field for.
func checkKeys(file string, node ast.Node, t reflect.Type, problems *diag.List) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n := node.(type) {
	case *ast.MappingNode:
		for _, mv := range n.Values {
			checkEntry(file, mv, t, problems)
		}
	case *ast.MappingValueNode:
		checkEntry(file, n, t, problems)
	case *ast.SequenceNode:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, item := range n.Values {
				checkKeys(file, item, t.Elem(), problems)
			}
		}
	case *ast.TagNode:
		checkKeys(file, n.Value, t, problems)
	}
}

func checkEntry(file string, mv *ast.MappingValueNode, t reflect.Type, problems *diag.List) {
	key := keyText(mv.Key)
	switch t.Kind() {
	case reflect.Map:
		checkKeys(file, mv.Value, t.Elem(), problems)
	case reflect.Struct:
		fields := yamlFields(t)
		ft, ok := fields[key]
		if !ok {
			fix := "remove it"
			if s := Suggest(key, keys(fields)); s != "" {
				fix = "did you mean " + s + "?"
			}
			problems.Errorf(position(file, mv.Key.GetToken()), fix, "unknown key %q", key)
			return
		}
		checkKeys(file, mv.Value, ft, problems)
	}
}

// yamlFields maps the yaml names of t's fields to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func keys(m map[string]reflect.Type) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func position(file string, tok *token.Token) diag.Position {
	if tok == nil || tok.Position == nil {
		return diag.Position{File: file}
	}
	return diag.Position{File: file, Line: tok.Position.Line, Column: tok.Position.Column}
}

// yamlProblem turns a goccy error into a positioned problem.
func yamlProblem(file string, err error, fix string) diag.Problem {
	var yerr interface {
		GetToken() *token.Token
		GetMessage() string
	}
	if errors.As(err, &yerr) {
		return diag.Problem{Pos: position(file, yerr.GetToken()), Message: yerr.GetMessage(), Fix: fix}
	}
	return diag.Problem{Pos: diag.Position{File: file}, Message: err.Error(), Fix: fix}
}

// Suggest returns the candidate closest to word by edit distance, or ""
// when none is close enough to be a likely typo.
func Suggest(word string, candidates []string) string {
	best, bestDist := "", len(word)/2+2
	for _, c := range candidates {
		if d := distance(strings.ToLower(word), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Positions maps every key path in data to the position of its value,
// e.g. "tools[0].steps[1].operation". Keys of the document root have no
// leading dot. Unparseable data gives an empty map.
func Positions(file string, data []byte) map[string]diag.Position {
	out := map[string]diag.Position{}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return out
	}
	for _, doc := range f.Docs {
		if doc.Body != nil {
			walkPositions(file, doc.Body, "", out)
		}
	}
	return out
}

func walkPositions(file string, node ast.Node, path string, out map[string]diag.Position) {
	switch n := node.(type) {
	case *ast.MappingNode:
		for _, mv := range n.Values {
			walkPositions(file, mv, path, out)
		}
	case *ast.MappingValueNode:
		key := mv(path, keyText(n.Key))
		out[key] = position(file, n.Key.GetToken())
		walkPositions(file, n.Value, key, out)
	case *ast.SequenceNode:
		for i, item := range n.Values {
			key := fmt.Sprintf("%s[%d]", path, i)
			if item != nil {
				out[key] = position(file, item.GetToken())
				walkPositions(file, item, key, out)
			}
		}
	case *ast.TagNode:
		walkPositions(file, n.Value, path, out)
	}
}

func mv(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// keyText is a mapping key's value, without the quotes of a quoted key
// (JSON input quotes every key).
func keyText(k ast.MapKeyNode) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return k.String()
}
