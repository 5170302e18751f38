package emit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// fill sets every settable field of v (recursively) to a non-zero value
// derived from seed, so that a field the literal renderer drops or
// renders wrong changes the round trip below. Fields tagged oa2mcp:"-"
// (Go values) stay zero.
func fill(v reflect.Value, seed *int, depth int) {
	*seed++
	if depth > 24 {
		return // recursive types (Binding.Fields) stop here
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d \"q\" `b`\n", *seed))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int:
		v.SetInt(int64(*seed))
	case reflect.Float64:
		v.SetFloat(float64(*seed) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), seed, depth+1)
	case reflect.Slice:
		if depth > 16 && v.Type().Elem().Kind() == reflect.Struct {
			return // Binding.Fields nests Bindings: two levels suffice
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fill(v.Index(0), seed, depth+1)
		fill(v.Index(1), seed, depth+1)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i := 0; i < 2; i++ {
			k := reflect.New(v.Type().Key()).Elem()
			fill(k, seed, depth+1)
			e := reflect.New(v.Type().Elem()).Elem()
			fill(e, seed, depth+1)
			v.SetMapIndex(k, e)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Tag.Get("oa2mcp") != "-" && v.Type().Field(i).IsExported() {
				fill(v.Field(i), seed, depth+1)
			}
		}
	}
}

// TestContractRoundTrip fills every field of the runtime's definition
// types, renders the server definition as generated code does, compiles
// and runs it against the runtime, and compares what the program holds
// with what was rendered. A field the emitter cannot render, renders
// wrongly or leaves out fails here: the generator and the runtime cannot
// drift apart.
func TestContractRoundTrip(t *testing.T) {
	var def runtime.ServerDef
	seed := 0
	fill(reflect.ValueOf(&def).Elem(), &seed, 0)
	lit, err := literal(reflect.ValueOf(&def))
	if err != nil {
		t.Fatal(err)
	}
	f := jen.NewFile("main")
	f.Var().Id("def").Op("=").Add(lit)
	f.Func().Id("main").Params().Block(
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("def")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err())),
		jen.Qual("os", "Stdout").Dot("Write").Call(jen.Id("b")),
	)
	var src bytes.Buffer
	if err := f.Render(&src); err != nil {
		t.Fatal(err)
	}
	mod := testenv.TempModule(t, "roundtrip")
	if err := os.WriteFile(filepath.Join(mod, "main.go"), src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", ".")
	cmd.Dir, cmd.Env = mod, testenv.GoEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s\n%s", err, stderr.String(), src.String())
	}
	want, err := json.Marshal(def)
	if err != nil || len(want) < 4000 {
		t.Fatalf("the filled definition does not encode fully (%d bytes): %v", len(want), err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the generated literal does not hold the definition it was rendered from:\ngot  %s\nwant %s", got, want)
	}
}

// TestLiteralRefusesGoValues: a definition carrying a Go value (a
// hand-written handler) cannot be rendered, and says which field.
func TestLiteralRefusesGoValues(t *testing.T) {
	tool := runtime.Tool{Name: "x", Handler: func(_ context.Context, c *runtime.Call) (any, error) { return nil, nil }}
	if _, err := literal(reflect.ValueOf(&tool)); err == nil {
		t.Fatal("a tool with a Handler was rendered")
	}
}
