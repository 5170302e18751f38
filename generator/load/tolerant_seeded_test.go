package load

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Seeded runs of the document generator (tolerant_gen_test.go). Set
// OA2MCP_TOLERANT_SEEDS for a longer run; a failure prints the seed, the
// style and the smallest document that still fails.

func tolerantSeeds(t *testing.T) int {
	if s := os.Getenv("OA2MCP_TOLERANT_SEEDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("OA2MCP_TOLERANT_SEEDS=%q: %v", s, err)
		}
		return n
	}
	return 150
}

// TestTolerantGeneratedValidDocuments: a valid document, however full of
// look-alikes, loads with every file byte for byte as written and no
// repair reported.
func TestTolerantGeneratedValidDocuments(t *testing.T) {
	dir := t.TempDir()
	for seed := range uint64(tolerantSeeds(t)) {
		g := newDocGen(seed)
		doc := g.document()
		style := renderStyle(seed % 3)
		check := func(d *omap) string { return validDocProblem(t, dir, d, style, seed) }
		if msg := check(doc); strings.HasPrefix(msg, genInvalid) {
			t.Fatalf("seed %d (style %d): %s\n%s", seed, style, msg, render(doc, style, rand.New(rand.NewPCG(seed, 1))).text)
		} else if msg != "" {
			small := shrink(doc, nil, check)
			t.Fatalf("seed %d (style %d): %s\nsmallest failing document:\n%s", seed, style, check(small),
				render(small, style, rand.New(rand.NewPCG(seed, 1))).text)
		}
	}
}

// genInvalid starts the text of a generator bug: its document is invalid.
const genInvalid = "generated document is not valid for kin-openapi: "

// validDocProblem is why the valid document d fails the invariant, "" if
// it holds; a document kin-openapi finds invalid is a generator bug.
func validDocProblem(t *testing.T, dir string, d *omap, style renderStyle, seed uint64) string {
	path := writeRendered(t, dir, render(d, style, rand.New(rand.NewPCG(seed, 1))))
	if _, ok, why := kinReads(t, path); !ok {
		return genInvalid + why
	}
	return untouched(path, true)
}

func writeRendered(t *testing.T, dir string, r rendered) string {
	name := "spec.yaml"
	if r.isJSON {
		name = "spec.json"
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, r.text, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// untouched is assertUntouched's check as text ("" when it holds), plus
// no repair marker left as a property name in the loaded schemas.
func untouched(path string, valid bool) string {
	l := newLoader(context.Background(), path, Options{})
	doc := l.run()
	if doc == nil || l.probs.HasErrors() {
		return "does not load: " + l.probs.Error()
	}
	for _, key := range l.files.order {
		u, err := url.Parse(key)
		if err != nil || u.Scheme != "" {
			continue
		}
		orig, err := os.ReadFile(filepath.FromSlash(u.Path))
		if err != nil {
			return err.Error()
		}
		if got := l.files.data[key]; string(got) != string(orig) {
			return "the tolerant pass changed a valid document: " + u.Path + ": " + firstDifference(orig, got)
		}
	}
	for _, w := range l.probs.Warnings() {
		if valid && isRepairWarning(w.Message+"; "+w.Fix) {
			return "repair reported on a valid document: " + w.String()
		}
	}
	return markerLeak(doc)
}

// markerLeak names a repair marker that reached the Document as a
// property name.
func markerLeak(doc *Document) string {
	var found string
	seen := map[*Schema]bool{}
	var walk func(s *Schema)
	walk = func(s *Schema) {
		if s == nil || seen[s] || found != "" {
			return
		}
		seen[s] = true
		for name, p := range s.Properties {
			if strings.HasPrefix(name, "x-oa2mcp-") {
				found = "repair marker " + name + " left as a property"
			}
			walk(p)
		}
		for _, list := range [][]*Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
			for _, m := range list {
				walk(m)
			}
		}
		walk(s.Items)
		walk(s.AdditionalProperties)
		walk(s.Not)
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Schemas)) {
		walk(doc.Schemas[name])
	}
	for _, op := range doc.Operations {
		if op.RequestBody != nil {
			walk(op.RequestBody.Schema)
		}
		for _, r := range op.Responses {
			walk(r.Schema)
		}
		for _, p := range op.Parameters {
			walk(p.Schema)
		}
	}
	return found
}

// injected is one defect put into a generated document: the key path the
// warning must point at and the warning's text.
type injected struct {
	kind string
	at   []string
	want string
}

// schemaSite is a schema node of the tree, with its path and whether it
// is a property (its parent is a map of properties).
type schemaSite struct {
	node     *omap
	path     []string
	property bool
}

// sites lists the schema nodes of doc in document order.
func (g *docGen) sites(doc *omap) []schemaSite {
	var out []schemaSite
	var walk func(v any, p []string, inProps bool)
	walk = func(v any, p []string, inProps bool) {
		switch v := v.(type) {
		case *omap:
			if g.schemas[v] {
				out = append(out, schemaSite{node: v, path: p, property: inProps})
			}
			for i, k := range v.keys {
				walk(v.vals[i], append(slices.Clone(p), k), g.propMaps[v])
			}
		case []any:
			for i, e := range v {
				walk(e, append(slices.Clone(p), strconv.Itoa(i)), false)
			}
		}
	}
	walk(doc, nil, false)
	return out
}

// inject puts one defect of a random kind at a random schema of doc.
func (g *docGen) inject(doc *omap) (injected, bool) {
	sites := g.sites(doc)
	for range 50 {
		s := sites[g.rnd.IntN(len(sites))]
		if d, ok := g.injectAt(s); ok {
			return d, true
		}
	}
	return injected{}, false
}

func (g *docGen) injectAt(s schemaSite) (injected, bool) {
	at := func(k ...string) []string { return append(slices.Clone(s.path), k...) }
	ref := "#/components/schemas/" + g.pick(g.comps)
	props, hasProps := s.node.get("properties")
	_, hasReq := s.node.get("required")
	_, hasAllOf := s.node.get("allOf")
	switch g.rnd.IntN(5) {
	case 0, 1:
		if hasReq {
			return injected{}, false
		}
		b := g.rnd.IntN(3) != 0
		s.node.set("required", b)
		name := s.path[len(s.path)-1]
		switch {
		case !s.property:
			return injected{"required on a schema", at("required"), sprintf(wSchemaReq, strconv.FormatBool(b))}, true
		case b:
			return injected{"required: true on a property", at("required"), sprintf(wRequiredTrue, name, name)}, true
		}
		return injected{"required: false on a property", at("required"), sprintf(wRequiredFalse, name)}, true
	case 2:
		pm, ok := props.(*omap)
		if !hasProps || !ok {
			return injected{}, false
		}
		if _, taken := pm.get("$ref"); taken {
			return injected{}, false
		}
		pm.set("$ref", ref)
		return injected{"$ref among properties", at("properties", "$ref"), sprintf(wSiblingRef, ref, ref)}, true
	case 3:
		if !hasProps || hasAllOf {
			return injected{}, false
		}
		s.node.set("properties", obj("$ref", ref))
		return injected{"properties is a $ref", at("properties"), sprintf(wPropsAllOf, ref, ref)}, true
	}
	s.node.set("examples", obj("first", obj("value", "a"), "second", "b"))
	return injected{"examples map", at("examples"), wExamplesMap}, true
}

// TestTolerantGeneratedDefects: a generated document with one defect
// loads, with exactly one repair warning, at the file:line:col of the
// defect's key, naming the repair it applied.
func TestTolerantGeneratedDefects(t *testing.T) {
	dir := t.TempDir()
	kinds := map[string]int{}
	for seed := range uint64(tolerantSeeds(t)) {
		g := newDocGen(seed)
		doc := g.document()
		d, ok := g.inject(doc)
		if !ok {
			continue
		}
		kinds[d.kind]++
		style := renderStyle(seed % 3)
		check := func(doc *omap) string { return defectProblem(t, dir, doc, style, seed, d) }
		if msg := check(doc); msg != "" {
			small := shrink(doc, d.at, check)
			t.Fatalf("seed %d (style %d), %s at %s: %s\nsmallest failing document:\n%s", seed, style, d.kind,
				strings.Join(d.at, "/"), check(small), render(small, style, rand.New(rand.NewPCG(seed, 1))).text)
		}
	}
	t.Logf("defects injected: %v", kinds)
	for _, k := range []string{"required on a schema", "required: true on a property", "required: false on a property",
		"$ref among properties", "properties is a $ref", "examples map"} {
		if kinds[k] == 0 {
			t.Errorf("no document got the defect %q: the generator does not cover it", k)
		}
	}
}

// defectProblem is why the document d with defect want fails the
// invariant, "" if it holds.
func defectProblem(t *testing.T, dir string, d *omap, style renderStyle, seed uint64, want injected) string {
	r := render(d, style, rand.New(rand.NewPCG(seed, 1)))
	path := writeRendered(t, dir, r)
	off, ok := r.keyAt[pathKey(want.at)]
	if !ok {
		return "the defect's key is gone"
	}
	line, col := newLineIndex(r.text).pos(off)
	wantLine := fmt.Sprintf("%s:%d:%d: %s", path, line, col, want.want)
	doc, probs := Load(context.Background(), path, Options{})
	if doc == nil {
		return "refused instead of repaired:\n" + probs.Error()
	}
	var repairs []string
	for _, w := range probs.Warnings() {
		if isRepairWarning(w.Message + "; " + w.Fix) {
			repairs = append(repairs, w.String())
		}
	}
	if len(repairs) != 1 || repairs[0] != wantLine {
		return fmt.Sprintf("repair warnings:\n  %s\nwant exactly:\n  %s", strings.Join(repairs, "\n  "), wantLine)
	}
	return markerLeak(doc)
}

// shrink removes map entries from doc, one at a time, for as long as the
// document still fails the same way (the same text, positions and numbers
// aside); entries on the path keep are never removed.
func shrink(doc *omap, keep []string, check func(*omap) string) *omap {
	kind := failureKind(check(doc))
	same := func(c *omap) bool {
		msg := check(c)
		return msg != "" && failureKind(msg) == kind
	}
	for changed := true; changed; {
		changed = false
		for _, p := range entryPaths(doc, nil) {
			if len(p) <= len(keep) && slices.Equal(p, keep[:len(p)]) {
				continue
			}
			if c := without(doc, p).(*omap); same(c) {
				doc, changed = c, true
				break
			}
		}
	}
	return doc
}

var positionOrNumber = regexp.MustCompile(`\S*:\d+:\d+: |\d+`)

// failureKind is a failure's text without positions and numbers.
func failureKind(msg string) string { return positionOrNumber.ReplaceAllString(msg, "") }

// entryPaths lists the paths of every map entry, deepest first.
func entryPaths(v any, p []string) [][]string {
	var out [][]string
	switch v := v.(type) {
	case *omap:
		for i, k := range v.keys {
			kp := append(slices.Clone(p), k)
			out = append(out, entryPaths(v.vals[i], kp)...)
			out = append(out, kp)
		}
	case []any:
		for i, e := range v {
			out = append(out, entryPaths(e, append(slices.Clone(p), strconv.Itoa(i)))...)
		}
	}
	return out
}

// without is v with the map entry at p removed, copied along p only.
func without(v any, p []string) any {
	switch v := v.(type) {
	case *omap:
		i := slices.Index(v.keys, p[0])
		if i < 0 {
			return v
		}
		if len(p) == 1 {
			return v.del(i)
		}
		c := &omap{keys: v.keys, vals: slices.Clone(v.vals)}
		c.vals[i] = without(v.vals[i], p[1:])
		return c
	case []any:
		i, _ := strconv.Atoi(p[0])
		c := slices.Clone(v)
		c[i] = without(v[i], p[1:])
		return c
	}
	return v
}
