// Package strictyaml decodes YAML into Go structs and reports every
// problem at once with its line and column: syntax errors, unknown keys
// (with a "did you mean" suggestion) and values of the wrong type, named
// by their key and the YAML type wanted ("tools[0].output.list.limit
// must be an integer, not the string \"many\""), never by Go type names.
//
// goccy/go-yaml's own strict mode stops at the first unknown field, and
// its type errors name Go struct fields; either would make a user fix an
// override file one cryptic error per run.
package strictyaml

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Decode parses data (read from file, used for positions) into v, which
// must be a pointer to a struct with `yaml` tags. When the YAML parses but
// some keys or values do not fit v, the problems name each of them and v
// still receives the rest, so a caller can check that too and report
// every problem in one run.
func Decode(file string, data []byte, v any) diag.List {
	problems, _ := DecodeRefusing(file, data, v)
	return problems
}

// DecodeRefusing is Decode that also returns the key paths of the values
// it refused, in the form Positions uses ("tools[0].output.list.limit"),
// so checks of the rest can leave them alone. refused is nil exactly when
// nothing was read: the YAML does not parse. With no problem it is empty.
func DecodeRefusing(file string, data []byte, v any) (diag.List, map[string]bool) {
	var problems diag.List
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		problems = append(problems, yamlProblem(file, err, "fix the YAML syntax"))
		return problems, nil
	}
	w := &walker{file: file, problems: &problems}
	for _, doc := range f.Docs {
		if doc.Body != nil {
			w.node(doc.Body, reflect.TypeOf(v).Elem(), "", nil)
		}
	}
	if problems.HasErrors() {
		decodeRest(data, w.bad, v)
		refused := map[string]bool{}
		for _, segs := range w.bad {
			refused[segsPath(segs)] = true
		}
		return problems, refused
	}
	if err := yaml.UnmarshalWithOptions(data, v); err != nil {
		problems = append(problems, yamlProblem(file, err, "use a value of the documented type"))
	}
	return problems, map[string]bool{}
}

// segsPath writes a place as Positions names it: keys joined with ".",
// indices as [N].
func segsPath(segs []any) string {
	path := ""
	for _, seg := range segs {
		switch x := seg.(type) {
		case int:
			path += fmt.Sprintf("[%d]", x)
		case string:
			path = joinPath(path, x)
		}
	}
	return path
}

// decodeRest fills v with everything but the values at bad (the keys and
// items the walker refused), so that a caller can go on to report the
// problems of the rest of the document in the same run. It does nothing
// when the document cannot be read generically.
func decodeRest(data []byte, bad [][]any, v any) {
	var doc any
	if yaml.Unmarshal(data, &doc) != nil {
		return
	}
	for _, segs := range bad {
		doc = without(doc, segs)
	}
	text, err := json.Marshal(doc)
	if err != nil {
		return
	}
	_ = yaml.Unmarshal(text, v) // what still does not fit stays zero
}

// without removes the value at segs (map keys and list indices) from doc.
// A removed list item becomes null, so the indices of the others, which
// positions refer to, do not move.
func without(doc any, segs []any) any {
	if len(segs) == 0 {
		return nil
	}
	switch d := doc.(type) {
	case map[string]any:
		key, _ := segs[0].(string)
		if len(segs) == 1 {
			delete(d, key)
		} else if child, ok := d[key]; ok {
			d[key] = without(child, segs[1:])
		}
	case []any:
		i, ok := segs[0].(int)
		if ok && i >= 0 && i < len(d) {
			d[i] = without(d[i], segs[1:])
		}
	}
	return doc
}

// walker checks a YAML tree against a Go type, collecting problems.
type walker struct {
	file     string
	problems *diag.List
	// bad are the places of the values refused, as map keys and list
	// indices, for decodeRest.
	bad [][]any
}

// with extends a place by one key or index, copying so that siblings do
// not share a backing array.
func with(segs []any, seg any) []any {
	out := make([]any, len(segs), len(segs)+1)
	copy(out, segs)
	return append(out, seg)
}

// node checks node, found at key path path, against type t: its kind,
// then its keys and items.
func (w *walker) node(node ast.Node, t reflect.Type, path string, segs []any) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	node = unwrap(node)
	if node == nil || t.Kind() == reflect.Interface {
		return
	}
	if !w.kindOK(node, t, path) {
		w.bad = append(w.bad, segs)
		return
	}
	switch n := node.(type) {
	case *ast.MappingNode:
		for _, mv := range n.Values {
			w.entry(mv, t, path, segs)
		}
	case *ast.MappingValueNode:
		w.entry(n, t, path, segs)
	case *ast.SequenceNode:
		for i, item := range n.Values {
			w.node(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), with(segs, i))
		}
	}
}

// unwrap looks through tags and anchors; aliases and nulls are nil (an
// alias repeats a value checked where it is defined; null is every
// type's zero value).
func unwrap(node ast.Node) ast.Node {
	for {
		switch n := node.(type) {
		case *ast.TagNode:
			node = n.Value
		case *ast.AnchorNode:
			node = n.Value
		case *ast.AliasNode, *ast.NullNode, nil:
			return nil
		default:
			return node
		}
	}
}

// entry checks one key of a mapping decoded into t (a struct or a map).
func (w *walker) entry(mv *ast.MappingValueNode, t reflect.Type, path string, segs []any) {
	key := keyText(mv.Key)
	switch t.Kind() {
	case reflect.Map:
		w.node(mv.Value, t.Elem(), joinPath(path, key), with(segs, key))
	case reflect.Struct:
		fields := yamlFields(t)
		ft, ok := fields[key]
		if !ok {
			fix := "remove it"
			if s := oa2mcpimpl.Suggest(key, keys(fields)); s != "" {
				fix = "did you mean " + s + "?"
			}
			w.problems.Errorf(position(w.file, mv.Key.GetToken()), fix, "unknown key %q", key)
			w.bad = append(w.bad, with(segs, key))
			return
		}
		w.node(mv.Value, ft, joinPath(path, key), with(segs, key))
	}
}

// kindOK reports whether node can decode into t, reporting the key, the
// type wanted and the value found when it cannot. It accepts what the
// decoder converts: any scalar as a string, "3" and 1.0 as integers.
func (w *walker) kindOK(node ast.Node, t reflect.Type, path string) bool {
	want, fix := wanted(t)
	if want == "" || accepts(node, t) {
		return true
	}
	what := path
	if what == "" {
		what = "the document"
	}
	w.problems.Errorf(position(w.file, node.GetToken()), fix, "%s must be %s, not %s", what, want, describe(node))
	return false
}

// wanted names the YAML type that decodes into t, and how to write one.
func wanted(t reflect.Type) (want, fix string) {
	switch t.Kind() {
	case reflect.String:
		return "a single value", "write one value; quote text that contains \": \" or starts with [ or {"
	case reflect.Bool:
		return "true or false", "write true or false, without quotes"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer", "write a whole number, e.g. 20"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer of 0 or more", "write a whole number of 0 or more, e.g. 20"
	case reflect.Float32, reflect.Float64:
		return "a number", "write a number, e.g. 1.5"
	case reflect.Slice, reflect.Array:
		return "a list", "write one \"- item\" per line under the key, or [a, b]"
	case reflect.Map, reflect.Struct:
		return "a mapping", "write key: value pairs indented under the key"
	}
	return "", ""
}

// accepts reports whether node decodes into t.
func accepts(node ast.Node, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String:
		return isScalar(node)
	case reflect.Bool:
		_, ok := node.(*ast.BoolNode)
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return asNumber(node, true, false)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return asNumber(node, true, true)
	case reflect.Float32, reflect.Float64:
		return asNumber(node, false, false)
	case reflect.Slice, reflect.Array:
		_, ok := node.(*ast.SequenceNode)
		return ok
	case reflect.Map, reflect.Struct:
		switch node.(type) {
		case *ast.MappingNode, *ast.MappingValueNode:
			return true
		}
		return false
	}
	return true
}

func isScalar(node ast.Node) bool {
	switch node.(type) {
	case *ast.MappingNode, *ast.MappingValueNode, *ast.SequenceNode:
		return false
	}
	return true
}

// asNumber reports whether a scalar reads as a number: an integer (whole)
// that is not negative (unsigned), written plainly or quoted.
func asNumber(node ast.Node, whole, unsigned bool) bool {
	if !isScalar(node) {
		return false
	}
	switch node.(type) {
	case *ast.InfinityNode, *ast.NanNode:
		return !whole
	case *ast.BoolNode, *ast.LiteralNode:
		return false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(node.GetToken().Value, "_", ""), 64)
	if err != nil {
		n, ierr := strconv.ParseInt(node.GetToken().Value, 0, 64)
		if ierr != nil {
			return false
		}
		f = float64(n)
	}
	return (!whole || f == float64(int64(f))) && (!unsigned || f >= 0)
}

// describe says what a node holds, for messages: the string "many", the
// number 1.5, a list.
func describe(node ast.Node) string {
	switch n := node.(type) {
	case *ast.StringNode:
		return fmt.Sprintf("the string %q", n.Value)
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "the number " + n.GetToken().Value
	case *ast.BoolNode:
		return n.GetToken().Value
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.LiteralNode:
		return "a block of text"
	}
	return fmt.Sprintf("%q", node.GetToken().Value)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
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
		return diag.Problem{Pos: position(file, yerr.GetToken()), Message: scrub(yerr.GetMessage()), Fix: fix}
	}
	return diag.Problem{Pos: diag.Position{File: file}, Message: scrub(err.Error()), Fix: fix}
}

// scrub replaces a decoder message that names Go types (struct fields,
// interface {}), which mean nothing to the author of a YAML file. The
// walker reports type problems first, so this is a last resort.
func scrub(msg string) string {
	if strings.Contains(msg, "Go ") || strings.Contains(msg, "interface {}") || strings.Contains(msg, "struct field") {
		return "this value has the wrong type for its key"
	}
	return msg
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
		key := joinPath(path, keyText(n.Key))
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

// keyText is a mapping key's value, without the quotes of a quoted key
// (JSON input quotes every key).
func keyText(k ast.MapKeyNode) string {
	if s, ok := k.(*ast.StringNode); ok {
		return s.Value
	}
	return k.String()
}
