package runtime

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
)

// The advertised form of a tool's schemas. The server validates every
// call against the tool's full input schema; what tools/list shows is a
// rewrite of it that clients accept as is (docs/schemas.md, "Schema
// profiles"). Every profile makes the changes that are safe for every
// client: examples go into the description, non-recursive $refs are
// inlined, a single-arm allOf merges into its parent, annotations
// (deprecated, readOnly, $comment, ...) leave the schema (deprecated is
// said in the description), and patterns are written as ECMAScript reads
// them. Output schemas get only these changes: clients validate
// structuredContent against them, so they must accept exactly what the
// server returns.
//
// The portable and nullable profiles also keep to what Gemini's Schema
// object and OpenAI's strict mode both read: every other constraint moves
// into the description as a sentence (the server still enforces it), an
// open map is advertised as a JSON-encoded string (normalizeArgs decodes
// it), oneOf becomes anyOf, a union of objects becomes one object, and
// additionalProperties and null branches go. nullable then makes every
// optional property accept null (normalizeArgs drops such nulls), for
// clients that make every property required.

// schemaForm is what an advertised schema is written for: a profile, and
// whether the client sends Mcp-Param-* headers (protocol 2026-07-28 and
// later), for which x-mcp-header stays in the schema: it tells such a
// client which header mirrors an input. Older clients never send them,
// so to them it says nothing.
type schemaForm struct {
	profile    SchemaProfile
	mcpHeaders bool
}

// mcpHeaderKey is the input annotation naming an input's Mcp-Param-*
// header.
const mcpHeaderKey = "x-mcp-header"

// annotationKeys assert nothing and are left out of every profile.
var annotationKeys = []string{"readOnly", "writeOnly", "$comment", "$schema", "$id", "$anchor",
	"contentMediaType", "contentEncoding", "contentSchema", "deprecated", "examples", "example"}

// portableKeys are the keywords Gemini's Schema object and OpenAI strict
// mode share (additionalProperties aside, which Gemini lacks and strict
// clients add themselves); nullable is Gemini's, kept where a profile
// writes it.
var portableKeys = map[string]bool{"type": true, "format": true, "title": true, "description": true,
	"enum": true, "minItems": true, "maxItems": true, "properties": true, "required": true, "anyOf": true,
	"items": true, "minimum": true, "maximum": true, "pattern": true}

// maxToolDescription is the lowest common limit on a tool description
// (OpenAI's function description).
const maxToolDescription = 1024

// schemaRewriter rewrites one schema document for one profile.
type schemaRewriter struct {
	profile    SchemaProfile
	mcpHeaders bool        // keep x-mcp-header (schemaForm)
	output     bool        // an output schema: only the exact rewrites
	defs       *jsonObject // the document's $defs
	inlining   []string    // $defs being inlined, outermost first
	kept       map[string]bool
	bounds     map[*jsonObject][]string // constraints moved into descriptions (shapeText)
}

// advertiseSchema rewrites schema text for form; text that does not
// decode is returned as is (the generator wrote it, and compiled it).
func advertiseSchema(text string, form schemaForm, output bool) string {
	v, err := decodeOrdered(text)
	root, ok := v.(*jsonObject)
	if err != nil || !ok {
		return text
	}
	w := &schemaRewriter{profile: form.profile, mcpHeaders: form.mcpHeaders, output: output, kept: map[string]bool{}}
	if d, ok := root.get("$defs"); ok {
		w.defs, _ = d.(*jsonObject)
		root = root.clone()
		root.del("$defs")
	}
	out := w.node(root, 0)
	o, ok := out.(*jsonObject)
	if !ok {
		return text
	}
	o.del("$defs")
	if len(w.kept) > 0 {
		defs := newJSONObject()
		for _, k := range w.defs.keys {
			if w.kept[k] {
				defs.set(k, w.rewriteDef(k))
			}
		}
		o.set("$defs", defs)
	}
	if !w.exact() {
		o.del("additionalProperties")
	}
	b, err := o.MarshalJSON()
	if err != nil {
		return text
	}
	return string(b)
}

// keepsIdentity reports a form that keeps $schema and $anchor, and the
// anchored $defs as definitions: the complete profile of an input
// schema, for clients that read JSON Schema whole and may resolve an
// anchor or check the dialect. The other profiles' clients refuse them.
func (w *schemaRewriter) keepsIdentity() bool { return w.profile == ProfileComplete && !w.output }

// exact reports whether the rewrite must keep what the schema accepts.
func (w *schemaRewriter) exact() bool { return w.output || w.profile == ProfileComplete }

func (w *schemaRewriter) rewriteDef(name string) any {
	d, _ := w.defs.get(name)
	w.inlining = append(w.inlining, name)
	defer func() { w.inlining = w.inlining[:len(w.inlining)-1] }()
	return w.node(d, 1)
}

// maxRewriteDepth bounds the rewrite of deeply nested schemas.
const maxRewriteDepth = 64

func (w *schemaRewriter) node(v any, depth int) any {
	o, ok := v.(*jsonObject)
	if !ok || depth > maxRewriteDepth {
		return v
	}
	if r, ok := o.get("$ref"); ok {
		if name, ok := localDef(r); ok && w.defs != nil {
			if target, ok := w.defs.get(name); ok {
				return w.ref(o, name, target, depth)
			}
		}
	}
	o = o.clone()
	var notes []string
	notes = append(notes, w.annotations(o)...)
	if all, ok := o.get("allOf"); ok {
		if arms, ok := all.([]any); ok && len(arms) == 1 {
			if merged, ok := mergeInto(o, arms[0], "allOf"); ok {
				return w.node(merged, depth)
			}
		}
	}
	w.children(o, depth)
	if p, ok := o.get("pattern"); ok {
		if s, ok := p.(string); ok {
			o.set("pattern", ecmaPattern(s))
		}
	}
	if !w.exact() {
		var replaced any
		replaced, notes = w.portable(o, notes, depth == 0)
		if replaced != nil {
			return replaced
		}
	}
	addNotes(o, notes)
	return o
}

// ref inlines a $ref to a definition, unless it is recursive: the
// complete profile and output schemas keep such a ref (and the
// definition); the others, which cannot hold one, describe it.
func (w *schemaRewriter) ref(o *jsonObject, name string, target any, depth int) any {
	for _, n := range w.inlining {
		if n != name {
			continue
		}
		if w.exact() {
			w.kept[name] = true
			return o
		}
		return openMapString(o, fmt.Sprintf("An object of the same shape as the enclosing %s.", name))
	}
	if t, ok := target.(*jsonObject); ok && w.keepsIdentity() {
		if _, anchored := t.get("$anchor"); anchored {
			w.kept[name] = true
			return o
		}
	}
	merged, ok := mergeInto(o, target, "$ref")
	if !ok {
		w.kept[name] = true
		return o
	}
	w.inlining = append(w.inlining, name)
	defer func() { w.inlining = w.inlining[:len(w.inlining)-1] }()
	return w.node(merged, depth+1)
}

// mergeInto returns the schema part with o's other keywords (drop names
// the keyword that joins them), o's winning on annotations; false when
// both constrain the same keyword differently.
func mergeInto(o *jsonObject, part any, drop string) (*jsonObject, bool) {
	p, ok := part.(*jsonObject)
	if !ok {
		return nil, false
	}
	m := p.clone()
	for _, k := range o.keys {
		if k == drop {
			continue
		}
		v := o.vals[k]
		old, has := m.get(k)
		switch {
		case !has, k == "description", k == "title", k == "default", k == "examples", k == "example", k == "deprecated":
			m.set(k, v)
		case !sameJSON(old, v):
			return nil, false
		}
	}
	return m, true
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func localDef(r any) (string, bool) {
	s, ok := r.(string)
	if !ok || !strings.HasPrefix(s, "#/$defs/") {
		return "", false
	}
	name := jsonschema.UnescapeToken(strings.TrimPrefix(s, "#/$defs/"))
	return name, !strings.Contains(name, "/")
}

// annotations removes the keywords that assert nothing, returning what
// the description should say of them.
func (w *schemaRewriter) annotations(o *jsonObject) []string {
	var notes []string
	if d, ok := o.get("deprecated"); ok && d == true {
		notes = append(notes, "Deprecated.")
	}
	if ex := firstExample(o); ex != "" {
		notes = append(notes, "Example: "+ex+".")
	}
	for _, k := range annotationKeys {
		if !(w.keepsIdentity() && (k == "$schema" || k == "$anchor")) {
			o.del(k)
		}
	}
	for _, k := range append([]string(nil), o.keys...) {
		if strings.HasPrefix(k, "x-") && !(k == mcpHeaderKey && w.mcpHeaders) {
			o.del(k)
		}
	}
	return notes
}

// maxExampleText bounds an example moved into a description.
const maxExampleText = 120

func firstExample(o *jsonObject) string {
	var ex any
	if list, ok := o.get("examples"); ok {
		if l, ok := list.([]any); ok && len(l) > 0 {
			ex = l[0]
		}
	} else if e, ok := o.get("example"); ok {
		ex = e
	} else {
		return ""
	}
	b, err := marshalNoEscape(ex)
	if err != nil || len(b) > maxExampleText || string(b) == "null" {
		return ""
	}
	return string(b)
}

// children rewrites every subschema of o in place.
func (w *schemaRewriter) children(o *jsonObject, depth int) {
	for _, k := range []string{"items", "not", "contains", "if", "then", "else", "propertyNames", "additionalProperties"} {
		if v, ok := o.get(k); ok {
			o.set(k, w.node(v, depth+1))
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if v, ok := o.get(k); ok {
			if arms, ok := v.([]any); ok {
				out := make([]any, len(arms))
				for i, a := range arms {
					out[i] = w.node(a, depth+1)
				}
				o.set(k, out)
			}
		}
	}
	for _, k := range []string{"properties", "patternProperties", "dependentSchemas"} {
		if v, ok := o.get(k); ok {
			if props, ok := v.(*jsonObject); ok {
				out := newJSONObject()
				required := stringList(o.vals["required"])
				for _, name := range props.keys {
					if !w.exact() && k == "properties" && isEmptyClosed(props.vals[name]) && !contains(required, name) {
						// Only {} is valid: nothing to give, and the
						// portable form cannot say "closed" (Gemini).
						continue
					}
					out.set(name, w.node(props.vals[name], depth+1))
				}
				o.set(k, out)
			}
		}
	}
}

// addNotes appends sentences to o's description.
func addNotes(o *jsonObject, notes []string) {
	if len(notes) == 0 {
		return
	}
	desc, _ := o.get("description")
	s, _ := desc.(string)
	var parts []string
	for _, n := range notes {
		if n != "" {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return
	}
	if s = strings.TrimSpace(s); s != "" {
		if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
			s += "."
		}
		parts = append([]string{s}, parts...)
	}
	o.set("description", strings.Join(parts, " "))
}

// ecmaPattern rewrites a pattern Go's regexp reads so that an ECMAScript
// engine in unicode mode (Ajv's, Zod's) reads it the same way: there an
// escaped character that is not a syntax character is an error ("\:"),
// while Go reads it as the character itself.
func ecmaPattern(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			i++
			if isASCIIPunct(n) && !strings.ContainsRune(`^$\.*+?()[]{}|/`, rune(n)) && !(n == '-' && inClass) {
				b.WriteByte(n)
				continue
			}
			b.WriteByte(c)
			b.WriteByte(n)
		case c == '[':
			inClass = true
			b.WriteByte(c)
		case c == ']':
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return c < 0x80 && !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') && c > ' '
}

// shortDescription keeps a tool description within the common limit, cut
// at the last paragraph or sentence that fits.
func shortDescription(d string) string {
	if len(d) <= maxToolDescription {
		return d
	}
	cut := d[:maxToolDescription-1]
	for _, sep := range []string{"\n\n", ". ", "\n"} {
		if i := strings.LastIndex(cut, sep); i > maxToolDescription/2 {
			return strings.TrimSpace(cut[:i+1])
		}
	}
	for len(cut) > 0 && cut[len(cut)-1]&0xC0 == 0x80 {
		cut = cut[:len(cut)-1]
	}
	if len(cut) > 0 && cut[len(cut)-1] >= 0xC0 {
		cut = cut[:len(cut)-1]
	}
	return strings.TrimSpace(cut) + "…"
}

// isEmptyClosed reports an object schema that admits only {}.
func isEmptyClosed(v any) bool {
	o, ok := v.(*jsonObject)
	if !ok || o.vals["type"] != "object" || o.vals["additionalProperties"] != false {
		return false
	}
	p, _ := o.vals["properties"].(*jsonObject)
	return p == nil || len(p.keys) == 0
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
