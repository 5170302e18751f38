package jsonschema

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

// The validator enforces JSON Schema draft 2020-12 on decoded tool
// arguments and results. The SDK's raw AddTool does no validation, and the
// SDK's own validator decodes and re-encodes every call, so schemas are
// compiled once here into a tree of Nodes and values are checked
// against the decoded arguments. A valid value allocates nothing: a quiet
// first pass decides, and only a failing value is walked again to write
// messages that name the argument path, the rule and what was received.
//
// Compilation is strict: every keyword is either enforced exactly (the
// official JSON Schema Test Suite proves it, see suite_test.go),
// an annotation that asserts nothing, or refused with an *UnsupportedError.
// A keyword is never skipped silently.

const (
	maxViolations   = 10 // violations reported per call
	maxSchemaDepth  = 64 // bounds $ref recursion and nesting per call
	maxEnumListed   = 12 // enum values listed in a message
	maxShownValueSz = 80 // bytes of a rejected value echoed back
)

// JSON type bits of Node.types.
const (
	jtNull uint8 = 1 << iota
	jtBoolean
	jtInteger
	jtNumber
	jtString
	jtArray
	jtObject
)

var jsonTypeNames = []struct {
	bit  uint8
	name string
}{
	{jtNull, "null"}, {jtBoolean, "boolean"}, {jtInteger, "integer"}, {jtNumber, "number"},
	{jtString, "string"}, {jtArray, "array"}, {jtObject, "object"},
}

// Node is one compiled schema.
type Node struct {
	alwaysFalse bool // the boolean schema false
	types       uint8

	properties    map[string]*Node
	propNames     []string // sorted, for messages
	required      []string
	additional    *Node // nil: anything allowed
	patternProps  []patternProp
	propertyNames *Node
	depRequired   []dependency // sorted by property
	depSchemas    []dependency // sorted by property

	items       *Node
	prefixItems []*Node
	contains    *Node

	enum     []any
	constVal any
	hasConst bool

	pattern    *regexp.Regexp
	patternSrc string
	format     string // an asserted format; others are annotations

	minimum, maximum, exclMin, exclMax *numBound
	multipleOf                         *numBound

	// -1: unset.
	minLength, maxLength, minItems, maxItems, minProps, maxProps, minContains, maxContains int
	uniqueItems                                                                            bool

	ref                  *Node
	allOf, anyOf, oneOf  []*Node
	not                  *Node
	ifNode, then, elseOf *Node

	defaultVal any
	hasDefault bool
	example    any
	hasExample bool
}

// patternProp is one patternProperties entry.
type patternProp struct {
	re   *regexp.Regexp
	node *Node
}

// dependency is one dependentRequired or dependentSchemas entry: when prop
// is present, names must be too, or the object must match node.
type dependency struct {
	prop  string
	names []string
	node  *Node
}

// numBound is a number from a schema, kept exactly: comparisons use the
// float and fall back to the exact value only on a tie, and multipleOf
// uses the decimal form when it fits in an int64.
type numBound struct {
	text  string
	f     float64
	exact *big.Rat
	dec   decimal
}

func newNode() *Node {
	return &Node{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minProps: -1, maxProps: -1, minContains: -1, maxContains: -1}
}

// violation is one failed rule at one argument path.
type violation struct {
	path string
	msg  string
}

// CompileNode decodes and compiles a schema, strictly: it fails on any
// keyword the validator cannot enforce.
func CompileNode(text string) (*Node, error) {
	n, _, err := compileSchemaFormats(text)
	return n, err
}

// compileSchemaFormats compiles text and also returns the formats it
// carries that the validator does not assert, sorted.
func compileSchemaFormats(text string) (*Node, []FormatUse, error) {
	if strings.TrimSpace(text) == "" {
		text = `{"type":"object"}`
	}
	raw, err := DecodeJSON(text)
	if err != nil {
		return nil, nil, fmt.Errorf("schema is not valid JSON: %w", err)
	}
	return compileValueFormats(raw)
}

// compileValueFormats compiles a decoded schema.
func compileValueFormats(raw any) (*Node, []FormatUse, error) {
	c := &schemaCompiler{root: raw, nodes: map[string]*Node{}}
	root := c.compileAt(raw, "")
	c.resolveRefs()
	if err := c.err(); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(c.formats, func(a, b FormatUse) int {
		return cmp.Or(cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Format, b.Format))
	})
	return root, c.formats, nil
}

// schemaCompiler compiles one root schema. Every subschema is registered
// under its JSON pointer, so a local $ref is a lookup; problems are
// collected so that one error lists them all.
type schemaCompiler struct {
	root        any
	rootID      string // the root's $id, without fragment
	nodes       map[string]*Node
	pending     []pendingRef
	unsupported []UnsupportedKeyword
	invalid     []string
	formats     []FormatUse
	// lazyDefs compiles a definition only when a reference reaches it.
	lazyDefs bool
}

type pendingRef struct {
	node    *Node
	ref, at string
}

// compileAt compiles the schema raw found at pointer at, once.
func (c *schemaCompiler) compileAt(raw any, at string) *Node {
	if n, ok := c.nodes[at]; ok {
		return n
	}
	n := newNode()
	c.nodes[at] = n // before filling, so cycles terminate
	switch v := raw.(type) {
	case bool:
		n.alwaysFalse = !v
	case map[string]any:
		for _, key := range textkit.SortedKeys(v) {
			c.keyword(n, key, v[key], at)
		}
	default:
		c.bad(at, "", "a schema must be an object or a boolean, got %s", DescribeValue(raw))
	}
	return n
}

// bad records an invalid keyword value (or an invalid schema when key is
// empty).
func (c *schemaCompiler) bad(at, key, format string, args ...any) {
	where := "at " + pointerText(at)
	if key != "" {
		where = fmt.Sprintf("%q %s", key, where)
	}
	c.invalid = append(c.invalid, where+": "+fmt.Sprintf(format, args...))
}

// unsupportedAt records a keyword the validator cannot enforce.
func (c *schemaCompiler) unsupportedAt(at, key, reason string) {
	c.unsupported = append(c.unsupported, UnsupportedKeyword{Pointer: at, Keyword: key, Reason: reason})
}

// err reports unsupported keywords first: an unresolvable reference may
// only be the consequence of one (a nested $id moves the base).
func (c *schemaCompiler) err() error {
	if len(c.unsupported) > 0 {
		slices.SortFunc(c.unsupported, func(a, b UnsupportedKeyword) int {
			return cmp.Or(cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Keyword, b.Keyword), cmp.Compare(a.Reason, b.Reason))
		})
		return &UnsupportedError{Keywords: slices.Compact(c.unsupported)}
	}
	if len(c.invalid) > 0 {
		sort.Strings(c.invalid)
		return errors.New("invalid schema: " + strings.Join(c.invalid, "; "))
	}
	return nil
}

// annotationKeywords assert nothing; the validator may ignore them (it
// reads default and examples for hints).
var annotationKeywords = map[string]bool{
	"title": true, "description": true, "examples": true, "example": true, "default": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "$comment": true,
	"contentMediaType": true, "contentEncoding": true, "contentSchema": true,
}

// anchorName is the form of a 2020-12 $anchor.
var anchorName = regexp.MustCompile(`^[A-Za-z_][-A-Za-z0-9._]*$`)

// Dialect2020 is the only $schema the validator accepts: another dialect
// or a custom meta-schema changes what keywords mean.
const Dialect2020 = "https://json-schema.org/draft/2020-12/schema"

// keyword compiles one keyword of the schema at pointer at into n.
func (c *schemaCompiler) keyword(n *Node, key string, val any, at string) {
	switch key {
	case "type":
		n.types = c.types(val, at)
	case "enum":
		if arr, ok := val.([]any); ok {
			n.enum = arr
		} else {
			c.bad(at, key, "must be an array")
		}
	case "const":
		n.constVal, n.hasConst = val, true
	case "pattern":
		n.pattern, n.patternSrc = c.regex(val, at, key), fmt.Sprint(val)
	case "format":
		c.format(n, val, at)
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf":
		c.numberKeyword(n, key, val, at)
	case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
		*n.countField(key) = c.count(val, at, key)
	case "uniqueItems":
		b, ok := val.(bool)
		if !ok {
			c.bad(at, key, "must be a boolean")
		}
		n.uniqueItems = b
	case "required":
		n.required = c.names(val, at, key)
	default:
		c.applicator(n, key, val, at)
	}
}

// applicator compiles the keywords that hold subschemas, references and
// annotations.
func (c *schemaCompiler) applicator(n *Node, key string, val any, at string) {
	sub := at + "/" + EscapeToken(key)
	switch key {
	case "properties":
		c.properties(n, val, at)
	case "patternProperties":
		c.patternProperties(n, val, at)
	case "additionalProperties":
		n.additional = c.compileAt(val, sub)
	case "propertyNames":
		n.propertyNames = c.compileAt(val, sub)
	case "dependentRequired", "dependentSchemas":
		c.dependencies(n, key, val, at)
	case "items":
		n.items = c.compileAt(val, sub)
	case "contains":
		n.contains = c.compileAt(val, sub)
	case "not":
		n.not = c.compileAt(val, sub)
	case "if":
		n.ifNode = c.compileAt(val, sub)
	case "then":
		n.then = c.compileAt(val, sub)
	case "else":
		n.elseOf = c.compileAt(val, sub)
	case "prefixItems":
		n.prefixItems = c.list(val, at, key)
	case "allOf":
		n.allOf = c.list(val, at, key)
	case "anyOf":
		n.anyOf = c.list(val, at, key)
	case "oneOf":
		n.oneOf = c.list(val, at, key)
	case "$ref":
		c.refKeyword(n, val, at)
	case "$defs":
		if !c.lazyDefs {
			c.defs(val, at)
		}
	default:
		c.other(n, key, val, at)
	}
}

// other handles the identifiers, annotations and unknown keywords.
func (c *schemaCompiler) other(n *Node, key string, val any, at string) {
	switch {
	case key == "$schema":
		if s, _ := val.(string); strings.TrimSuffix(s, "#") != Dialect2020 {
			c.unsupportedAt(at, key, fmt.Sprintf("only %s is supported, got %s", Dialect2020, ShowValue(val)))
		}
	case key == "$id":
		// A root $id only names the document; local references still
		// resolve against the root. A nested one starts a new resource.
		id, ok := val.(string)
		switch {
		case at != "":
			c.unsupportedAt(at, key, "only the root may have an $id")
		case !ok:
			c.bad(at, key, "must be a string")
		default:
			c.rootID = strings.TrimSuffix(id, "#")
		}
	case key == "$anchor":
		// An anchor only names its schema; a $ref by anchor ("#name")
		// is refused where it appears (refKeyword), so accepting the name
		// changes no verdict.
		if s, ok := val.(string); !ok || !anchorName.MatchString(s) {
			c.bad(at, key, "must be a name: a letter or _, then letters, digits, -, _ or .")
		}
	case annotationKeywords[key]:
		c.annotation(n, key, val)
	case strings.HasPrefix(key, "x-"):
		// Extensions (e.g. x-mcp-header) are oa2mcp's own annotations.
	default:
		c.unsupportedAt(at, key, "")
	}
}

func (c *schemaCompiler) annotation(n *Node, key string, val any) {
	switch key {
	case "default":
		n.defaultVal, n.hasDefault = val, true
	case "examples":
		if ex, ok := val.([]any); ok && len(ex) > 0 {
			n.example, n.hasExample = ex[0], true
		}
	case "example":
		if !n.hasExample {
			n.example, n.hasExample = val, true
		}
	}
}

func (c *schemaCompiler) types(val any, at string) uint8 {
	var names []any
	switch v := val.(type) {
	case string:
		names = []any{v}
	case []any:
		names = v
	default:
		c.bad(at, "type", "must be a type name or an array of them")
		return 0
	}
	var bits uint8
	for _, e := range names {
		bit := typeBit(e)
		if bit == 0 {
			c.bad(at, "type", "unknown type %s", ShowValue(e))
		}
		bits |= bit
	}
	if bits == 0 && len(names) == 0 {
		c.bad(at, "type", "must name at least one type")
	}
	return bits
}

func typeBit(name any) uint8 {
	for _, tn := range jsonTypeNames {
		if tn.name == name {
			return tn.bit
		}
	}
	return 0
}

func (n *Node) countField(key string) *int {
	switch key {
	case "minLength":
		return &n.minLength
	case "maxLength":
		return &n.maxLength
	case "minItems":
		return &n.minItems
	case "maxItems":
		return &n.maxItems
	case "minProperties":
		return &n.minProps
	case "maxProperties":
		return &n.maxProps
	case "minContains":
		return &n.minContains
	}
	return &n.maxContains
}

// count reads a non-negative integer keyword; 2.0 counts as 2. Counts
// beyond any real string, array or object are capped.
func (c *schemaCompiler) count(val any, at, key string) int {
	num, ok := asNumber(val)
	if ok {
		f, err := num.Float64()
		if (err == nil || math.IsInf(f, 1)) && f >= 0 && f == math.Trunc(f) {
			return int(min(f, math.MaxInt32))
		}
	}
	c.bad(at, key, "must be a non-negative integer, got %s", ShowValue(val))
	return -1
}

func (c *schemaCompiler) numberKeyword(n *Node, key string, val any, at string) {
	num, ok := asNumber(val)
	var b *numBound
	if ok {
		b = newNumBound(num)
	}
	if b == nil {
		c.bad(at, key, "must be a number, got %s", ShowValue(val))
		return
	}
	if key == "multipleOf" && b.exact.Sign() <= 0 {
		c.bad(at, key, "must be greater than 0, got %s", num)
		return
	}
	switch key {
	case "minimum":
		n.minimum = b
	case "maximum":
		n.maximum = b
	case "exclusiveMinimum":
		n.exclMin = b
	case "exclusiveMaximum":
		n.exclMax = b
	default:
		n.multipleOf = b
	}
}

func newNumBound(num json.Number) *numBound {
	r, ok := new(big.Rat).SetString(num.String())
	if !ok {
		return nil
	}
	f, _ := strconv.ParseFloat(num.String(), 64)
	return &numBound{text: num.String(), f: f, exact: r, dec: parseDecimal(num.String())}
}

// names reads an array of strings (required, dependentRequired).
func (c *schemaCompiler) names(val any, at, key string) []string {
	arr, ok := val.([]any)
	if !ok {
		c.bad(at, key, "must be an array of strings")
		return nil
	}
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			c.bad(at, key, "must be an array of strings")
			return nil
		}
		out = append(out, s)
	}
	return out
}

// object reads a keyword whose value maps names to something.
func (c *schemaCompiler) object(val any, at, key string) map[string]any {
	m, ok := val.(map[string]any)
	if !ok {
		c.bad(at, key, "must be an object")
	}
	return m
}

func (c *schemaCompiler) properties(n *Node, val any, at string) {
	m := c.object(val, at, "properties")
	n.properties = make(map[string]*Node, len(m))
	for _, name := range textkit.SortedKeys(m) {
		n.properties[name] = c.compileAt(m[name], at+"/properties/"+EscapeToken(name))
		n.propNames = append(n.propNames, name)
	}
}

func (c *schemaCompiler) patternProperties(n *Node, val any, at string) {
	m := c.object(val, at, "patternProperties")
	for _, src := range textkit.SortedKeys(m) {
		re := c.regex(src, at, "patternProperties")
		node := c.compileAt(m[src], at+"/patternProperties/"+EscapeToken(src))
		if re != nil {
			n.patternProps = append(n.patternProps, patternProp{re: re, node: node})
		}
	}
}

func (c *schemaCompiler) dependencies(n *Node, key string, val any, at string) {
	m := c.object(val, at, key)
	for _, prop := range textkit.SortedKeys(m) {
		d := dependency{prop: prop}
		if key == "dependentRequired" {
			d.names = c.names(m[prop], at, key)
			n.depRequired = append(n.depRequired, d)
			continue
		}
		d.node = c.compileAt(m[prop], at+"/dependentSchemas/"+EscapeToken(prop))
		n.depSchemas = append(n.depSchemas, d)
	}
}

// list compiles a non-empty array of schemas (allOf, prefixItems, ...).
func (c *schemaCompiler) list(val any, at, key string) []*Node {
	arr, ok := val.([]any)
	if !ok || len(arr) == 0 {
		c.bad(at, key, "must be a non-empty array of schemas")
		return nil
	}
	out := make([]*Node, len(arr))
	for i, s := range arr {
		out[i] = c.compileAt(s, at+"/"+key+"/"+strconv.Itoa(i))
	}
	return out
}

func (c *schemaCompiler) defs(val any, at string) {
	m := c.object(val, at, "$defs")
	for _, name := range textkit.SortedKeys(m) {
		c.compileAt(m[name], at+"/$defs/"+EscapeToken(name))
	}
}

func (c *schemaCompiler) format(n *Node, val any, at string) {
	f, ok := val.(string)
	if !ok {
		c.bad(at, "format", "must be a string")
		return
	}
	if _, asserted := assertedFormats[f]; asserted {
		n.format = f
		return
	}
	c.formats = append(c.formats, FormatUse{Pointer: at, Format: f})
}

// regex compiles an ECMA-262 pattern (pattern, patternProperties) or
// records why the runtime cannot match it.
func (c *schemaCompiler) regex(val any, at, key string) *regexp.Regexp {
	src, ok := val.(string)
	if !ok {
		c.bad(at, key, "must be a string")
		return nil
	}
	goSrc, err := ecmaToGo(src)
	var re *regexp.Regexp
	if err == nil {
		re, err = regexp.Compile(goSrc)
	}
	if err != nil {
		c.unsupportedAt(at, key, fmt.Sprintf("Go cannot match the pattern %q: %v", src, err))
		return nil
	}
	return re
}

// refKeyword records a local $ref, resolved once the tree is compiled.
func (c *schemaCompiler) refKeyword(n *Node, val any, at string) {
	if ref, ok := val.(string); ok {
		c.pending = append(c.pending, pendingRef{node: n, ref: ref, at: at})
	} else {
		c.bad(at, "$ref", "must be a string")
	}
}

// localFragment returns the JSON-pointer fragment of a reference into this
// document: "#/..." or "#", alone or after the root's $id.
func (c *schemaCompiler) localFragment(ref string) (string, bool) {
	if c.rootID != "" && (ref == c.rootID || strings.HasPrefix(ref, c.rootID+"#")) {
		ref = "#" + strings.TrimPrefix(ref[len(c.rootID):], "#")
	}
	return ref, ref == "#" || strings.HasPrefix(ref, "#/")
}

// resolveRefs links every $ref to its target, once all of the root's
// keywords (its $id among them) are read. A target not compiled yet (one
// inside a keyword that is not a schema) is compiled on the spot, which
// may queue more references.
func (c *schemaCompiler) resolveRefs() {
	for len(c.pending) > 0 {
		p := c.pending[0]
		c.pending = c.pending[1:]
		frag, ok := c.localFragment(p.ref)
		if !ok {
			c.unsupportedAt(p.at, "$ref", fmt.Sprintf("only local JSON-pointer references (#/...) are supported, got %q", p.ref))
			continue
		}
		ptr, err := url.PathUnescape(frag[1:])
		if err != nil {
			c.bad(p.at, "$ref", "%q is not a valid URI fragment", p.ref)
			continue
		}
		if target, ok := c.nodes[ptr]; ok {
			p.node.ref = target
			continue
		}
		raw, ok := lookupPointer(c.root, ptr)
		if !ok {
			c.bad(p.at, "$ref", "%q does not resolve", p.ref)
			continue
		}
		p.node.ref = c.compileAt(raw, ptr)
	}
}
