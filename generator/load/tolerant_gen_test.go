package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
)

// A seeded generator of OpenAPI documents for the tolerant pass: valid
// documents full of look-alikes (properties named after keywords, $ref
// siblings where 3.1 allows them, nested properties maps, examples maps
// where they are legal, keyword-shaped data), rendered as JSON, YAML block
// or YAML flow text, and the same documents with one defect injected.

// omap is an ordered mapping of the generated tree; lists are []any,
// scalars string, bool or int.
type omap struct {
	keys []string
	vals []any
}

func (m *omap) set(k string, v any) *omap {
	if i := slices.Index(m.keys, k); i >= 0 {
		m.vals[i] = v
		return m
	}
	m.keys, m.vals = append(m.keys, k), append(m.vals, v)
	return m
}

func (m *omap) get(k string) (any, bool) {
	if i := slices.Index(m.keys, k); i >= 0 {
		return m.vals[i], true
	}
	return nil, false
}

func (m *omap) del(i int) *omap {
	c := &omap{keys: slices.Clone(m.keys), vals: slices.Clone(m.vals)}
	c.keys, c.vals = slices.Delete(c.keys, i, i+1), slices.Delete(c.vals, i, i+1)
	return c
}

func obj(kv ...any) *omap {
	m := &omap{}
	for i := 0; i+1 < len(kv); i += 2 {
		m.set(kv[i].(string), kv[i+1])
	}
	return m
}

// lookalikeNames are property, component and data key names that are
// also keywords somewhere, beside ordinary ones.
var lookalikeNames = []string{"properties", "required", "$ref", "examples", "items", "allOf",
	"type", "description", "schema", "content", "example", "not", "additionalProperties",
	"default", "enum", "parameters", "id", "name", "geometry", "status"}

// docGen generates one document from a seed.
type docGen struct {
	rnd   *rand.Rand
	v31   bool
	comps []string // component schema names
	// refsTo are the components a $ref being generated may name.
	refsTo []string
	// schemas and propMaps are the nodes that are schemas and maps of
	// properties, for the defect injection.
	schemas  map[*omap]bool
	propMaps map[*omap]bool
}

func newDocGen(seed uint64) *docGen {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return &docGen{rnd: r, v31: r.IntN(2) == 0, schemas: map[*omap]bool{}, propMaps: map[*omap]bool{}}
}

func (g *docGen) pick(names []string) string { return names[g.rnd.IntN(len(names))] }

// document builds the whole tree.
func (g *docGen) document() *omap {
	g.comps = []string{"Alert", "Feature"}
	for _, n := range []string{"properties", "required", "examples"} {
		if g.rnd.IntN(2) == 0 {
			g.comps = append(g.comps, n)
		}
	}
	version := "3.0.3"
	if g.v31 {
		version = "3.1.0"
	}
	schemas := &omap{}
	for i, n := range g.comps {
		// A component refers only to those before it, so that no
		// cycle of bare $refs or allOf arises; one is an object.
		g.refsTo = g.comps[:i]
		schemas.set(n, g.mark(g.object(3)))
	}
	g.refsTo = g.comps
	idParam := func() *omap {
		return obj("name", "id", "in", "path", "required", true, "schema", g.mark(obj("type", "string")))
	}
	queryParam := obj("name", g.pick(lookalikeNames), "in", "query", "required", g.rnd.IntN(2) == 0, "schema", g.schema(1))
	if g.rnd.IntN(2) == 0 {
		queryParam.set("examples", obj("one", obj("value", g.data(1))))
	}
	media := obj("schema", g.schema(3))
	if g.rnd.IntN(2) == 0 {
		media.set("examples", obj("full", obj("summary", "A full one", "value", g.data(2))))
	}
	get := obj("operationId", "getItem", "parameters", []any{idParam(), queryParam},
		"responses", obj("200", obj("description", "ok", "content", obj("application/json", media))))
	post := obj("operationId", "putItem", "parameters", []any{obj("$ref", "#/components/parameters/required")},
		"requestBody", obj("required", true, "content", obj("application/json", obj("schema", g.schema(3)))),
		"responses", obj("204", obj("description", "done")))
	return obj("openapi", version, "info", obj("title", "Generated", "version", "1"),
		"paths", obj("/items/{id}", obj("parameters", []any{idParam()}, "get", get, "post", post)),
		"components", obj("schemas", schemas,
			"parameters", obj("required", obj("name", "required", "in", "query", "required", true, "schema", g.mark(obj("type", "boolean"))))))
}

func (g *docGen) mark(s *omap) *omap {
	g.schemas[s] = true
	return s
}

// schema is a random valid schema at most depth levels deep.
func (g *docGen) schema(depth int) *omap {
	k := g.rnd.IntN(10)
	if depth <= 0 {
		k = 9
	}
	var s *omap
	switch {
	case k < 4:
		s = g.object(depth)
	case k < 5:
		s = obj("type", "array", "items", g.schema(depth-1))
	case k < 6:
		s = obj(g.pick([]string{"allOf", "anyOf", "oneOf"}), []any{g.schema(depth - 1), g.schema(depth - 1)})
	case k < 8 && len(g.refsTo) > 0:
		s = obj("$ref", "#/components/schemas/"+g.pick(g.refsTo))
		if g.v31 && g.rnd.IntN(2) == 0 {
			s.set("description", "A $ref with a sibling, legal in 3.1: properties: {$ref: X}")
		}
	default:
		s = obj("type", g.pick([]string{"string", "integer", "boolean"}))
		if g.rnd.IntN(3) == 0 {
			s.set("description", "required: true, examples: {a: b}")
		}
	}
	g.examples(s)
	return g.mark(s)
}

// object is an object schema whose property names come from the
// look-alikes, so that keywords show up as names.
func (g *docGen) object(depth int) *omap {
	props := &omap{}
	for range 1 + g.rnd.IntN(4) {
		props.set(g.pick(lookalikeNames), g.schema(depth-1))
	}
	g.propMaps[props] = true
	s := obj("type", "object", "properties", props)
	if g.rnd.IntN(2) == 0 {
		var req []any
		for _, n := range props.keys {
			if g.rnd.IntN(2) == 0 {
				req = append(req, n)
			}
		}
		if len(req) > 0 {
			s.set("required", req)
		}
	}
	if g.rnd.IntN(4) == 0 {
		s.set("additionalProperties", g.schema(depth-1))
	}
	if g.rnd.IntN(3) == 0 {
		s.set("x-data", g.data(2))
	}
	return s
}

// examples adds a valid example: a list of examples in 3.1, example in
// 3.0.
func (g *docGen) examples(s *omap) {
	switch {
	case g.rnd.IntN(3) != 0:
	case g.v31:
		s.set("examples", []any{g.data(2)})
	default:
		s.set("example", g.data(2))
	}
}

// data is instance data whose keys look like keywords.
func (g *docGen) data(depth int) any {
	switch k := g.rnd.IntN(5); {
	case depth <= 0 || k == 0:
		return g.pick([]string{"#/components/schemas/Alert", "true", "x"})
	case k == 1:
		return g.rnd.IntN(2) == 0
	case k == 2:
		return []any{g.data(depth - 1)}
	}
	m := &omap{}
	for range 1 + g.rnd.IntN(3) {
		m.set(g.pick(lookalikeNames), g.data(depth-1))
	}
	return m
}

// rendered is a document as text, with the offset of every key by path.
type rendered struct {
	text   []byte
	isJSON bool
	keyAt  map[string]int
}

// renderStyle picks JSON, YAML block or YAML with flow collections.
type renderStyle int

const (
	styleJSON renderStyle = iota
	styleBlock
	styleFlow
)

func render(doc *omap, style renderStyle, rnd *rand.Rand) rendered {
	r := &renderer{style: style, rnd: rnd, keyAt: map[string]int{}}
	if style == styleJSON {
		r.json(doc, nil, 0)
		r.buf.WriteByte('\n')
	} else {
		r.block(doc, nil, 0)
	}
	return rendered{text: r.buf.Bytes(), isJSON: style == styleJSON, keyAt: r.keyAt}
}

type renderer struct {
	buf   bytes.Buffer
	style renderStyle
	rnd   *rand.Rand
	keyAt map[string]int
}

func pathKey(p []string) string { return strings.Join(p, "\x00") }

func (r *renderer) json(v any, p []string, indent int) {
	pad := strings.Repeat("  ", indent+1)
	switch v := v.(type) {
	case *omap:
		r.buf.WriteString("{")
		for i, k := range v.keys {
			if i > 0 {
				r.buf.WriteString(",")
			}
			r.buf.WriteString("\n" + pad)
			kp := append(slices.Clone(p), k)
			r.keyAt[pathKey(kp)] = r.buf.Len()
			r.scalarJSON(k)
			r.buf.WriteString(": ")
			r.json(v.vals[i], kp, indent+1)
		}
		r.buf.WriteString("\n" + pad[2:] + "}")
	case []any:
		r.buf.WriteString("[")
		for i, e := range v {
			if i > 0 {
				r.buf.WriteString(", ")
			}
			r.json(e, append(slices.Clone(p), fmt.Sprint(i)), indent+1)
		}
		r.buf.WriteString("]")
	default:
		r.scalarJSON(v)
	}
}

func (r *renderer) scalarJSON(v any) {
	b, _ := json.Marshal(v)
	r.buf.Write(b)
}

// plainSafe are strings YAML reads back as the same string unquoted.
var plainSafe = regexp.MustCompile(`^[A-Za-z_$/][A-Za-z0-9_$/{}.-]*$`)

// yamlScalarText writes a scalar: plain when that reads back the same
// (and, in a flow collection, has no flow indicator), else JSON-quoted.
func (r *renderer) yamlScalarText(v any, flow bool) string {
	s, isString := v.(string)
	if !isString {
		return fmt.Sprint(v)
	}
	plain := plainSafe.MatchString(s) && !slices.Contains([]string{"true", "false", "null", "yes", "no", "on", "off", "y", "n"}, strings.ToLower(s))
	if flow && strings.ContainsAny(s, "{}[],") {
		plain = false
	}
	if plain && r.rnd.IntN(4) != 0 {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// block writes a mapping in block style at indent; under styleFlow,
// small collections go in flow style.
func (r *renderer) block(m *omap, p []string, indent int) {
	for i, k := range m.keys {
		r.blockEntry(k, m.vals[i], p, indent)
	}
}

func (r *renderer) blockEntry(k string, v any, p []string, indent int) {
	kp := append(slices.Clone(p), k)
	r.buf.WriteString(strings.Repeat(" ", indent))
	r.keyAt[pathKey(kp)] = r.buf.Len()
	r.buf.WriteString(r.yamlScalarText(k, false) + ":")
	r.blockValue(v, kp, indent)
}

// blockValue writes the value of a key at indent (after the colon).
func (r *renderer) blockValue(v any, p []string, indent int) {
	switch v := v.(type) {
	case *omap:
		if len(v.keys) == 0 {
			r.buf.WriteString(" {}\n")
			return
		}
		if r.style == styleFlow && r.rnd.IntN(3) == 0 {
			r.buf.WriteString(" ")
			r.flow(v, p)
			r.buf.WriteString("\n")
			return
		}
		r.buf.WriteString("\n")
		r.block(v, p, indent+2)
	case []any:
		if len(v) == 0 || r.style == styleFlow && r.rnd.IntN(2) == 0 {
			r.buf.WriteString(" ")
			r.flow(v, p)
			r.buf.WriteString("\n")
			return
		}
		r.buf.WriteString("\n")
		for i, e := range v {
			ep := append(slices.Clone(p), fmt.Sprint(i))
			r.buf.WriteString(strings.Repeat(" ", indent+2) + "-")
			if m, ok := e.(*omap); ok && len(m.keys) > 0 {
				// The first key sits after the dash, the others under it.
				r.buf.WriteString(" ")
				r.keyAt[pathKey(append(slices.Clone(ep), m.keys[0]))] = r.buf.Len()
				r.buf.WriteString(r.yamlScalarText(m.keys[0], false) + ":")
				r.blockValue(m.vals[0], append(slices.Clone(ep), m.keys[0]), indent+4)
				for j := 1; j < len(m.keys); j++ {
					r.blockEntry(m.keys[j], m.vals[j], ep, indent+4)
				}
				continue
			}
			r.buf.WriteString(" ")
			r.flow(e, ep)
			r.buf.WriteString("\n")
		}
	default:
		r.buf.WriteString(" " + r.yamlScalarText(v, false) + "\n")
	}
}

// flow writes a value in flow style, on one line.
func (r *renderer) flow(v any, p []string) {
	switch v := v.(type) {
	case *omap:
		r.buf.WriteString("{")
		for i, k := range v.keys {
			if i > 0 {
				r.buf.WriteString(", ")
			}
			kp := append(slices.Clone(p), k)
			r.keyAt[pathKey(kp)] = r.buf.Len()
			r.buf.WriteString(r.yamlScalarText(k, true) + ": ")
			r.flow(v.vals[i], kp)
		}
		r.buf.WriteString("}")
	case []any:
		r.buf.WriteString("[")
		for i, e := range v {
			if i > 0 {
				r.buf.WriteString(", ")
			}
			r.flow(e, append(slices.Clone(p), fmt.Sprint(i)))
		}
		r.buf.WriteString("]")
	default:
		r.buf.WriteString(r.yamlScalarText(v, true))
	}
}
