package emit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// formattedSeeds is how many random files TestFormattedMatchesGofmt
// renders both ways.
const formattedSeeds = 300

// TestFormattedMatchesGofmt renders seeded random files of tool and
// operation variables (every field of the contract filled or left out
// at random, strings with newlines, backquotes, tabs and wide runes,
// empty and long lists, maps with keys of very different lengths) both
// ways: written directly in go/format's layout (varsFile) and rendered
// whole by jennifer and go/format (renderVars). The bytes must be the
// same; on a difference it prints the seed and a smallest definition
// that still differs.
func TestFormattedMatchesGofmt(t *testing.T) {
	srv := &ir.Server{}
	srv.Package, srv.Source = "x", "openapi.yaml"
	direct := 0
	for seed := uint64(1); seed <= formattedSeeds; seed++ {
		decls := randomDecls(seed)
		same, usedDirect, err := renderBothWays(srv, decls)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if usedDirect {
			direct++
		}
		if same {
			continue
		}
		small := shrinkDecls(srv, decls)
		got, _ := varsFile(srv, small)
		want, _ := renderVars(srv, small, mustNodes(t, small), false)
		t.Fatalf("seed %d: the direct layout differs from go/format's; smallest failing file:\n--- direct\n%s\n--- go/format\n%s", seed, got, want)
	}
	// Every definition of the runtime's types is inside the direct
	// layout; a fallback here would hide a case it gets wrong.
	if direct != formattedSeeds {
		t.Fatalf("%d of %d random files used the direct layout; want all", direct, formattedSeeds)
	}
}

// outsideDef is a definition type of a package other than the runtime's,
// which the direct layout leaves to jennifer and go/format.
type outsideDef struct {
	Name  string
	Items []string
}

// TestFormattedFallback: a file holding a literal outside the direct
// layout is rendered whole by jennifer and go/format, and still holds
// every variable.
func TestFormattedFallback(t *testing.T) {
	srv := &ir.Server{}
	srv.Package = "x"
	decls := append(randomDecls(7), varDecl{what: "outside", name: "vOutside", value: reflect.ValueOf(&outsideDef{Name: "n", Items: []string{"a"}})})
	if _, err := formatted(mustNodes(t, decls)[len(decls)-1], 0); err != errUnformatted {
		t.Fatalf("a type outside the runtime was written directly (err %v)", err)
	}
	same, direct, err := renderBothWays(srv, decls)
	if err != nil || !same || direct {
		t.Fatalf("fallback: same %v, direct %v, err %v", same, direct, err)
	}
}

// renderBothWays reports whether both renderings agree, and whether
// varsFile wrote the literals directly.
func renderBothWays(srv *ir.Server, decls []varDecl) (same, direct bool, err error) {
	got, err := varsFile(srv, decls)
	if err != nil {
		return false, false, err
	}
	nodes := make([]*litNode, len(decls))
	direct = true
	for i, d := range decls {
		if nodes[i], err = valueNode(d.value, false); err != nil {
			return false, false, err
		}
		if _, ferr := formatted(nodes[i], 0); ferr != nil {
			direct = false
		}
	}
	want, err := renderVars(srv, decls, nodes, false)
	if err != nil {
		return false, false, err
	}
	return bytes.Equal(got, want), direct, nil
}

func mustNodes(t *testing.T, decls []varDecl) []*litNode {
	nodes := make([]*litNode, len(decls))
	for i, d := range decls {
		n, err := valueNode(d.value, false)
		if err != nil {
			t.Fatal(err)
		}
		nodes[i] = n
	}
	return nodes
}

// randomDecls is a file of one to four random tools and operations.
func randomDecls(seed uint64) []varDecl {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var decls []varDecl
	for i := range 1 + r.IntN(4) {
		var v reflect.Value
		if r.IntN(2) == 0 {
			v = reflect.ValueOf(&runtime.Tool{})
		} else {
			v = reflect.ValueOf(&runtime.Discoverable{})
		}
		randomFill(r, v.Elem(), 0)
		decls = append(decls, varDecl{what: "decl", doc: []string{fmt.Sprintf("v%d is random.", i), "", "GET /x"},
			name: fmt.Sprintf("v%d", i), value: v})
	}
	return decls
}

// randomStrings are the kinds of text a definition carries: names,
// long sentences, JSON on several lines, and text a raw literal cannot
// hold.
var randomStrings = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return "id" },
	func(r *rand.Rand) string { return strings.Repeat("k", 1+r.IntN(120)) },
	func(r *rand.Rand) string { return "Returns the pet, its tags and 2 more; é 漢字 ✓" },
	func(r *rand.Rand) string { return "{\n  \"type\": \"object\",\n\t\"x\": 1\n}" },
	func(r *rand.Rand) string { return "line `one`\nline two" },
	func(r *rand.Rand) string { return "tab\there, quote \" and back\\slash" },
	func(r *rand.Rand) string { return "cr\r\nlf" },
	func(r *rand.Rand) string { return strings.Repeat("long words ", 1+r.IntN(12)) },
}

// randomFill sets the exported fields of v at random, recursive types
// two levels deep; Go values (oa2mcp:"-") stay zero.
func randomFill(r *rand.Rand, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(randomStrings[r.IntN(len(randomStrings))](r))
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 0)
	case reflect.Int, reflect.Int64:
		v.SetInt([]int64{0, 1, -3, 42, 1 << 40}[r.IntN(5)])
	case reflect.Float64:
		v.SetFloat([]float64{0.5, 2, -1e21, 1e-7, 3.25}[r.IntN(5)])
	case reflect.Pointer:
		if depth < 8 && r.IntN(3) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			randomFill(r, v.Elem(), depth+1)
		}
	case reflect.Slice:
		if depth < 8 && r.IntN(3) > 0 {
			n := r.IntN(4)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				randomFill(r, v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		if depth < 8 && r.IntN(3) > 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for range r.IntN(6) {
				k := reflect.New(v.Type().Key()).Elem()
				randomFill(r, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				randomFill(r, e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() && f.Tag.Get("oa2mcp") != "-" && r.IntN(4) > 0 {
				randomFill(r, v.Field(i), depth+1)
			}
		}
	}
}

// shrinkDecls zeroes every field it can while the two renderings still
// differ, first whole declarations, then field by field.
func shrinkDecls(srv *ir.Server, decls []varDecl) []varDecl {
	differs := func(d []varDecl) bool {
		same, _, err := renderBothWays(srv, d)
		return err == nil && !same
	}
	for i := 0; i < len(decls) && len(decls) > 1; {
		fewer := append(append([]varDecl{}, decls[:i]...), decls[i+1:]...)
		if differs(fewer) {
			decls = fewer
			continue
		}
		i++
	}
	for _, d := range decls {
		shrinkValue(d.value.Elem(), func() bool { return differs(decls) })
	}
	return decls
}

// shrinkValue zeroes the settable parts of v one by one, keeping each
// change under which differs still holds.
func shrinkValue(v reflect.Value, differs func() bool) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Field(i); f.CanSet() && !f.IsZero() {
				old := reflect.New(f.Type()).Elem()
				old.Set(f)
				f.Set(reflect.Zero(f.Type()))
				if !differs() {
					f.Set(old)
					shrinkValue(f, differs)
				}
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			shrinkValue(v.Elem(), differs)
		}
	case reflect.Slice:
		for i := range v.Len() {
			shrinkValue(v.Index(i), differs)
		}
	}
}

// TestDirectLayoutCostsLittle guards the reason for the direct layout: a
// file of 40 random definitions written directly (deciding its
// literals included) allocates under 40 % of what rendering the decided
// literals whole with jennifer and go/format does (24 % when this test
// was written; formatting the whole file again would exceed 100 %).
func TestDirectLayoutCostsLittle(t *testing.T) {
	srv := &ir.Server{}
	srv.Package = "x"
	var decls []varDecl
	for seed := uint64(1); len(decls) < 40; seed++ {
		for _, d := range randomDecls(seed) {
			d.name = fmt.Sprintf("v%d", len(decls))
			decls = append(decls, d)
		}
	}
	nodes := mustNodes(t, decls)
	direct := testing.AllocsPerRun(3, func() {
		if _, err := varsFile(srv, decls); err != nil {
			t.Fatal(err)
		}
	})
	whole := testing.AllocsPerRun(3, func() {
		if _, err := renderVars(srv, decls, nodes, false); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("allocations: direct %.0f, jennifer and go/format %.0f (%.2f)", direct, whole, direct/whole)
	if direct > 0.4*whole {
		t.Fatalf("the direct layout allocates %.0f times against %.0f for jennifer and go/format: more than 40 %%", direct, whole)
	}
}
