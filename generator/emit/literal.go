package emit

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
)

// literal renders v, a value of the runtime's definition types, as a Go
// composite literal: every exported field that is not zero, in
// declaration order. Because it walks the types by reflection, a field
// added to the runtime's contract is rendered without further code; a
// kind it cannot render is an error, and fields tagged `oa2mcp:"-"`
// (Go values such as hand-written handlers) must be zero.
func literal(v reflect.Value) (jen.Code, error) {
	n, err := valueNode(v, false)
	if err != nil {
		return nil, err
	}
	return n.code(), nil
}

// litNode is a contract value as a Go expression, decided once and
// printed two ways: as jennifer code (code) for files that go through
// go/format, and directly in go/format's layout (formatted.go) for the
// files of tool and operation variables, which are too big to format.
type litNode struct {
	// token is a scalar's Go token, exactly as jennifer writes it: a
	// quoted or raw string, a number, a bool. Empty for a composite.
	token string
	// typ is a composite's type; nil when elided (an element of a
	// slice or map).
	typ reflect.Type
	// amp makes the composite &T{...}.
	amp bool
	// multi puts each element on its own line.
	multi bool
	// keys are the elements' keys as Go tokens (field names, quoted
	// map keys); nil for a slice.
	keys  []string
	elems []*litNode
}

// valueNode decides how v renders; elide leaves out the type of a struct
// (or pointer to struct) literal, as Go allows for the elements of a
// slice or map.
func valueNode(v reflect.Value, elide bool) (*litNode, error) {
	switch v.Kind() {
	case reflect.Pointer:
		n, err := valueNode(v.Elem(), elide)
		if err != nil || elide {
			return n, err
		}
		if n.token != "" {
			return &litNode{token: "&" + n.token}, nil
		}
		n.amp = true
		return n, nil
	case reflect.Struct:
		return structNode(v, elide)
	case reflect.Slice:
		return sliceNode(v, elide)
	case reflect.Map:
		return mapNode(v)
	case reflect.String:
		return &litNode{token: stringToken(v.String())}, nil
	case reflect.Bool:
		return &litNode{token: scalarToken(v.Bool())}, nil
	case reflect.Int:
		return &litNode{token: scalarToken(int(v.Int()))}, nil
	case reflect.Int64:
		return &litNode{token: scalarToken(v.Int())}, nil
	case reflect.Float64:
		return &litNode{token: scalarToken(v.Float())}, nil
	}
	return nil, fmt.Errorf("cannot render a %s", v.Type())
}

func structNode(v reflect.Value, elide bool) (*litNode, error) {
	keys, elems, err := fieldNodes(v)
	if err != nil {
		return nil, err
	}
	n := &litNode{multi: !flatStruct(v), keys: keys, elems: elems}
	if !elide {
		n.typ = v.Type()
	}
	return n, nil
}

func sliceNode(v reflect.Value, elide bool) (*litNode, error) {
	n := &litNode{multi: !isBasic(v.Type().Elem()), elems: make([]*litNode, 0, v.Len())}
	for i := 0; i < v.Len(); i++ {
		item, err := valueNode(v.Index(i), true)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		n.elems = append(n.elems, item)
	}
	if !elide {
		n.typ = v.Type()
	}
	return n, nil
}

// fieldNodes decides the non-zero fields of a struct value.
func fieldNodes(v reflect.Value) (keys []string, elems []*litNode, err error) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fv := v.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		if f.Tag.Get("oa2mcp") == "-" {
			return nil, nil, fmt.Errorf("%s.%s is set, but only Go code can set it", t.Name(), f.Name)
		}
		n, err := valueNode(fv, false)
		if err != nil {
			return nil, nil, fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		keys, elems = append(keys, f.Name), append(elems, n)
	}
	return keys, elems, nil
}

// structFields renders the non-zero fields of a struct value.
func structFields(v reflect.Value) ([]jen.Code, error) {
	keys, elems, err := fieldNodes(v)
	if err != nil {
		return nil, err
	}
	fields := make([]jen.Code, len(keys))
	for i, k := range keys {
		fields[i] = field(k, elems[i].code())
	}
	return fields, nil
}

// mapNode decides a map with string keys, sorted by key.
func mapNode(v reflect.Value) (*litNode, error) {
	if v.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("cannot render a %s", v.Type())
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	n := &litNode{typ: v.Type(), multi: true}
	for _, k := range keys {
		val, err := valueNode(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), true)
		if err != nil {
			return nil, fmt.Errorf("[%q]: %w", k, err)
		}
		n.keys, n.elems = append(n.keys, scalarToken(k)), append(n.elems, val)
	}
	return n, nil
}

// code is the node as jennifer code.
func (n *litNode) code() jen.Code {
	if n.token != "" {
		return jen.Op(n.token)
	}
	items := make([]jen.Code, len(n.elems))
	for i, e := range n.elems {
		items[i] = e.code()
		if n.keys != nil {
			items[i] = jen.Op(n.keys[i]).Op(":").Add(items[i])
		}
	}
	opts := inline
	if n.multi {
		opts = multi
	}
	if n.typ == nil {
		return jen.Custom(opts, items...)
	}
	lit := typeCode(n.typ).Custom(opts, items...)
	if n.amp {
		return jen.Op("&").Add(lit)
	}
	return lit
}

// typeCode renders a type: named types by their package-qualified name,
// composite types by their structure.
func typeCode(t reflect.Type) *jen.Statement {
	if t.Name() != "" && t.PkgPath() != "" {
		return jen.Qual(t.PkgPath(), t.Name())
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jen.Op("*").Add(typeCode(t.Elem()))
	case reflect.Slice:
		return jen.Index().Add(typeCode(t.Elem()))
	case reflect.Map:
		return jen.Map(typeCode(t.Key())).Add(typeCode(t.Elem()))
	}
	return jen.Id(t.Kind().String())
}

// inline renders a composite literal on one line.
var inline = jen.Options{Open: "{", Close: "}", Separator: ","}

// flatStruct reports whether a struct value is small and holds basic
// values only (a parameter, a binding), so it reads best on one line.
func flatStruct(v reflect.Value) bool {
	n := 0
	for i := 0; i < v.NumField(); i++ {
		fv := v.Field(i)
		if fv.IsZero() {
			continue
		}
		if !isBasic(fv.Type()) || (fv.Kind() == reflect.String && (len(fv.String()) > 60 || strings.Contains(fv.String(), "\n"))) {
			return false
		}
		n++
	}
	return n <= 6
}

func isBasic(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return true
	}
	return false
}

// stringToken renders s as a raw string literal when it spans lines (JSON
// schemas stay readable in the generated code), unless s holds a
// backquote or a carriage return, which a raw literal cannot carry.
func stringToken(s string) string {
	if strings.Contains(s, "\n") && !strings.ContainsAny(s, "`\r") {
		return "`" + s + "`"
	}
	return scalarToken(s)
}

// stringLit is stringToken as jennifer code.
func stringLit(s string) jen.Code { return jen.Op(stringToken(s)) }

// scalarToken writes a bool, string or number as jennifer's Lit does:
// Go syntax, a float always with a point or an exponent, and a sized
// integer with its conversion.
func scalarToken(v any) string {
	switch x := v.(type) {
	case float64:
		s := fmt.Sprintf("%#v", x)
		if !strings.Contains(s, ".") && !strings.Contains(s, "e") {
			s += ".0"
		}
		return s
	case int64:
		return fmt.Sprintf("%T(%#v)", x, x)
	}
	return fmt.Sprintf("%#v", v)
}
