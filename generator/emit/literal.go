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
func literal(v reflect.Value) (jen.Code, error) { return literalOf(v, false) }

// literalOf renders v; elide leaves out the type of a struct (or pointer
// to struct) literal, as Go allows for the elements of a slice or map.
func literalOf(v reflect.Value, elide bool) (jen.Code, error) {
	switch v.Kind() {
	case reflect.Pointer:
		inner, err := literalOf(v.Elem(), elide)
		if err != nil || elide {
			return inner, err
		}
		return jen.Op("&").Add(inner), nil
	case reflect.Struct:
		fields, err := structFields(v)
		if err != nil {
			return nil, err
		}
		opts := multi
		if flatStruct(v) {
			opts = inline
		}
		if elide {
			return jen.Custom(opts, fields...), nil
		}
		return typeCode(v.Type()).Custom(opts, fields...), nil
	case reflect.Slice:
		items := make([]jen.Code, 0, v.Len())
		for i := 0; i < v.Len(); i++ {
			item, err := literalOf(v.Index(i), true)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			items = append(items, item)
		}
		opts := multi
		if isBasic(v.Type().Elem()) {
			opts = inline
		}
		if elide {
			return jen.Custom(opts, items...), nil
		}
		return typeCode(v.Type()).Custom(opts, items...), nil
	case reflect.Map:
		return mapLiteral(v)
	case reflect.String:
		return stringLit(v.String()), nil
	case reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return jen.Lit(v.Interface()), nil
	}
	return nil, fmt.Errorf("cannot render a %s", v.Type())
}

// structFields renders the non-zero fields of a struct value.
func structFields(v reflect.Value) ([]jen.Code, error) {
	t := v.Type()
	var fields []jen.Code
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fv := v.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		if f.Tag.Get("oa2mcp") == "-" {
			return nil, fmt.Errorf("%s.%s is set, but only Go code can set it", t.Name(), f.Name)
		}
		val, err := literal(fv)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.Name(), f.Name, err)
		}
		fields = append(fields, field(f.Name, val))
	}
	return fields, nil
}

// mapLiteral renders a map with string keys, sorted by key.
func mapLiteral(v reflect.Value) (jen.Code, error) {
	if v.Type().Key().Kind() != reflect.String {
		return nil, fmt.Errorf("cannot render a %s", v.Type())
	}
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, k.String())
	}
	sort.Strings(keys)
	var items []jen.Code
	for _, k := range keys {
		val, err := literalOf(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), true)
		if err != nil {
			return nil, fmt.Errorf("[%q]: %w", k, err)
		}
		items = append(items, jen.Lit(k).Op(":").Add(val))
	}
	return typeCode(v.Type()).Custom(multi, items...), nil
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

// stringLit renders s as a raw string literal when it spans lines (JSON
// schemas stay readable in the generated code), unless s holds a
// backquote or a carriage return, which a raw literal cannot carry.
func stringLit(s string) jen.Code {
	if strings.Contains(s, "\n") && !strings.ContainsAny(s, "`\r") {
		return jen.Op("`" + s + "`")
	}
	return jen.Lit(s)
}
