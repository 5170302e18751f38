package runtime

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The validator enforces JSON Schema draft 2020-12 on decoded tool
// arguments and results. The SDK's raw AddTool does no validation, and the
// SDK's own validator decodes and re-encodes every call, so schemas are
// compiled once here into a tree of schemaNodes and values are checked
// against the decoded arguments. A valid value allocates nothing: a quiet
// first pass decides, and only a failing value is walked again to write
// messages that name the argument path, the rule and what was received.
//
// Compilation is strict: every keyword is either enforced exactly (the
// official JSON Schema Test Suite proves it, see jsonschema_suite_test.go),
// an annotation that asserts nothing, or refused with an *UnsupportedError.
// A keyword is never skipped silently.

const (
	maxViolations   = 10 // violations reported per call
	maxSchemaDepth  = 64 // bounds $ref recursion and nesting per call
	maxEnumListed   = 12 // enum values listed in a message
	maxShownValueSz = 80 // bytes of a rejected value echoed back
)

// JSON type bits of schemaNode.types.
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

// schemaNode is one compiled schema.
type schemaNode struct {
	alwaysFalse bool // the boolean schema false
	types       uint8

	properties    map[string]*schemaNode
	propNames     []string // sorted, for messages
	required      []string
	additional    *schemaNode // nil: anything allowed
	patternProps  []patternProp
	propertyNames *schemaNode
	depRequired   []dependency // sorted by property
	depSchemas    []dependency // sorted by property

	items       *schemaNode
	prefixItems []*schemaNode
	contains    *schemaNode

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

	ref                  *schemaNode
	allOf, anyOf, oneOf  []*schemaNode
	not                  *schemaNode
	ifNode, then, elseOf *schemaNode

	defaultVal any
	hasDefault bool
	example    any
	hasExample bool
}

// patternProp is one patternProperties entry.
type patternProp struct {
	re   *regexp.Regexp
	node *schemaNode
}

// dependency is one dependentRequired or dependentSchemas entry: when prop
// is present, names must be too, or the object must match node.
type dependency struct {
	prop  string
	names []string
	node  *schemaNode
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

func newNode() *schemaNode {
	return &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1,
		minProps: -1, maxProps: -1, minContains: -1, maxContains: -1}
}

// violation is one failed rule at one argument path.
type violation struct {
	path string
	msg  string
}

// compileSchema decodes and compiles a schema, strictly: it fails on any
// keyword the validator cannot enforce.
func compileSchema(text string) (*schemaNode, error) {
	n, _, err := compileSchemaFormats(text)
	return n, err
}

// compileSchemaFormats compiles text and also returns the formats it
// carries that the validator does not assert, sorted.
func compileSchemaFormats(text string) (*schemaNode, []FormatUse, error) {
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
func compileValueFormats(raw any) (*schemaNode, []FormatUse, error) {
	c := &schemaCompiler{root: raw, nodes: map[string]*schemaNode{}}
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
	nodes       map[string]*schemaNode
	pending     []pendingRef
	unsupported []UnsupportedKeyword
	invalid     []string
	formats     []FormatUse
	// lazyDefs compiles a definition only when a reference reaches it.
	lazyDefs bool
}

type pendingRef struct {
	node    *schemaNode
	ref, at string
}

// compileAt compiles the schema raw found at pointer at, once.
func (c *schemaCompiler) compileAt(raw any, at string) *schemaNode {
	if n, ok := c.nodes[at]; ok {
		return n
	}
	n := newNode()
	c.nodes[at] = n // before filling, so cycles terminate
	switch v := raw.(type) {
	case bool:
		n.alwaysFalse = !v
	case map[string]any:
		for _, key := range sortedKeys(v) {
			c.keyword(n, key, v[key], at)
		}
	default:
		c.bad(at, "", "a schema must be an object or a boolean, got %s", describeValue(raw))
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

// dialect2020 is the only $schema the validator accepts: another dialect
// or a custom meta-schema changes what keywords mean.
const dialect2020 = "https://json-schema.org/draft/2020-12/schema"

// keyword compiles one keyword of the schema at pointer at into n.
func (c *schemaCompiler) keyword(n *schemaNode, key string, val any, at string) {
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
func (c *schemaCompiler) applicator(n *schemaNode, key string, val any, at string) {
	sub := at + "/" + escapePointer(key)
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
func (c *schemaCompiler) other(n *schemaNode, key string, val any, at string) {
	switch {
	case key == "$schema":
		if s, _ := val.(string); strings.TrimSuffix(s, "#") != dialect2020 {
			c.unsupportedAt(at, key, fmt.Sprintf("only %s is supported, got %s", dialect2020, showValue(val)))
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
	case annotationKeywords[key]:
		c.annotation(n, key, val)
	case strings.HasPrefix(key, "x-"):
		// Extensions (e.g. x-mcp-header) are oa2mcp's own annotations.
	default:
		c.unsupportedAt(at, key, "")
	}
}

func (c *schemaCompiler) annotation(n *schemaNode, key string, val any) {
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
			c.bad(at, "type", "unknown type %s", showValue(e))
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

func (n *schemaNode) countField(key string) *int {
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
	c.bad(at, key, "must be a non-negative integer, got %s", showValue(val))
	return -1
}

func (c *schemaCompiler) numberKeyword(n *schemaNode, key string, val any, at string) {
	num, ok := asNumber(val)
	var b *numBound
	if ok {
		b = newNumBound(num)
	}
	if b == nil {
		c.bad(at, key, "must be a number, got %s", showValue(val))
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

func (c *schemaCompiler) properties(n *schemaNode, val any, at string) {
	m := c.object(val, at, "properties")
	n.properties = make(map[string]*schemaNode, len(m))
	for _, name := range sortedKeys(m) {
		n.properties[name] = c.compileAt(m[name], at+"/properties/"+escapePointer(name))
		n.propNames = append(n.propNames, name)
	}
}

func (c *schemaCompiler) patternProperties(n *schemaNode, val any, at string) {
	m := c.object(val, at, "patternProperties")
	for _, src := range sortedKeys(m) {
		re := c.regex(src, at, "patternProperties")
		node := c.compileAt(m[src], at+"/patternProperties/"+escapePointer(src))
		if re != nil {
			n.patternProps = append(n.patternProps, patternProp{re: re, node: node})
		}
	}
}

func (c *schemaCompiler) dependencies(n *schemaNode, key string, val any, at string) {
	m := c.object(val, at, key)
	for _, prop := range sortedKeys(m) {
		d := dependency{prop: prop}
		if key == "dependentRequired" {
			d.names = c.names(m[prop], at, key)
			n.depRequired = append(n.depRequired, d)
			continue
		}
		d.node = c.compileAt(m[prop], at+"/dependentSchemas/"+escapePointer(prop))
		n.depSchemas = append(n.depSchemas, d)
	}
}

// list compiles a non-empty array of schemas (allOf, prefixItems, ...).
func (c *schemaCompiler) list(val any, at, key string) []*schemaNode {
	arr, ok := val.([]any)
	if !ok || len(arr) == 0 {
		c.bad(at, key, "must be a non-empty array of schemas")
		return nil
	}
	out := make([]*schemaNode, len(arr))
	for i, s := range arr {
		out[i] = c.compileAt(s, at+"/"+key+"/"+strconv.Itoa(i))
	}
	return out
}

func (c *schemaCompiler) defs(val any, at string) {
	m := c.object(val, at, "$defs")
	for _, name := range sortedKeys(m) {
		c.compileAt(m[name], at+"/$defs/"+escapePointer(name))
	}
}

func (c *schemaCompiler) format(n *schemaNode, val any, at string) {
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
func (c *schemaCompiler) refKeyword(n *schemaNode, val any, at string) {
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

// lookupPointer follows an RFC 6901 JSON pointer through decoded JSON.
func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func escapePointer(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// pointerText shows a JSON pointer in a message; the root's is empty.
func pointerText(ptr string) string {
	if ptr == "" {
		return "the root"
	}
	return ptr
}

// ECMA-262 patterns are translated to Go's RE2 syntax where the two agree
// on meaning, and refused where they do not (lookaround, backreferences)
// or where the translation would be guesswork.

// ecmaSpace is ECMA-262's \s: WhiteSpace and LineTerminator. Go's \s is
// ASCII only.
const ecmaSpace = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// ecmaToGo translates an ECMA-262 pattern (Unicode mode, as JSON Schema
// prescribes) to Go syntax.
func ecmaToGo(p string) (string, error) {
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\\':
			s, n, err := ecmaEscape(p[i:], inClass)
			if err != nil {
				return "", err
			}
			sb.WriteString(s)
			i += n
		case inClass:
			inClass = c != ']'
			if c == '[' {
				sb.WriteByte('\\') // Go would read [: as a POSIX class
			}
			sb.WriteByte(c)
			i++
		case c == '[':
			var n int
			n, inClass = ecmaClassStart(p[i:], &sb)
			i += n
		case c == '.':
			sb.WriteString(`[^\n\r\x{2028}\x{2029}]`)
			i++
		case c == '(' && strings.HasPrefix(p[i:], "(?"):
			n, err := ecmaGroup(p[i:], &sb)
			if err != nil {
				return "", err
			}
			i += n
		default:
			sb.WriteByte(c)
			i++
		}
	}
	if inClass {
		return "", errors.New("unterminated character class")
	}
	return sb.String(), nil
}

// ecmaClassStart opens a character class; ECMA's [] matches nothing and
// [^] anything, where Go would read the ] as a member.
func ecmaClassStart(p string, sb *strings.Builder) (int, bool) {
	for _, idiom := range []string{`[\s\S]`, `[\S\s]`, `[\d\D]`, `[\D\d]`, `[\w\W]`, `[\W\w]`} {
		// A class and its complement: any character, newlines included,
		// however ECMA-262 and Go define the class (Box's prompt
		// templates use [\s\S]*?).
		if strings.HasPrefix(p, idiom) {
			sb.WriteString(`[\x00-\x{10FFFF}]`)
			return len(idiom), false
		}
	}
	switch {
	case strings.HasPrefix(p, "[]"):
		sb.WriteString(`[^\x00-\x{10FFFF}]`)
		return 2, false
	case strings.HasPrefix(p, "[^]"):
		sb.WriteString(`[\x00-\x{10FFFF}]`)
		return 3, false
	case strings.HasPrefix(p, "[^"):
		sb.WriteString("[^")
		return 2, true
	}
	sb.WriteByte('[')
	return 1, true
}

// ecmaGroup translates the opening of a (?...) group.
func ecmaGroup(p string, sb *strings.Builder) (int, error) {
	switch {
	case strings.HasPrefix(p, "(?:"):
		sb.WriteString("(?:")
		return 3, nil
	case strings.HasPrefix(p, "(?="), strings.HasPrefix(p, "(?!"):
		return 0, errors.New("lookahead is not supported")
	case strings.HasPrefix(p, "(?<="), strings.HasPrefix(p, "(?<!"):
		return 0, errors.New("lookbehind is not supported")
	case strings.HasPrefix(p, "(?<"):
		sb.WriteString("(?P<")
		return 3, nil
	}
	return 0, errors.New("(? must start a group (?: or (?<name>; inline flags are not ECMA-262")
}

// ecmaEscape translates the escape at the start of p and returns the Go
// text and the bytes consumed.
func ecmaEscape(p string, inClass bool) (string, int, error) {
	if len(p) < 2 {
		return "", 0, errors.New("trailing backslash")
	}
	c := p[1]
	switch c {
	case 'd', 'D', 'w', 'W', 't', 'n', 'v', 'f', 'r':
		return p[:2], 2, nil
	case 's', 'S':
		return classEscape(c == 'S', ecmaSpace, inClass, `\S`)
	case 'b':
		if inClass {
			return `\x08`, 2, nil // backspace inside a class
		}
		return p[:2], 2, nil
	case 'B':
		if !inClass {
			return p[:2], 2, nil
		}
	case '0':
		if len(p) == 2 || !isDigit(p[2]) {
			return `\x00`, 2, nil
		}
	case 'c':
		if len(p) > 2 && isASCIILetter(p[2]) {
			return fmt.Sprintf(`\x{%x}`, p[2]%32), 3, nil
		}
	case 'x':
		if len(p) > 3 && isHex(p[2]) && isHex(p[3]) {
			return `\x{` + p[2:4] + `}`, 4, nil
		}
	case 'u':
		return unicodeEscape(p)
	case 'p', 'P':
		return propertyEscape(p, inClass)
	}
	if c < utf8.RuneSelf && c >= ' ' && !isASCIILetter(c) && !isDigit(c) {
		// Escaped ASCII punctuation is the character itself: in Go, and
		// in ECMA-262 for its syntax characters (Annex B allows the rest,
		// as real-world patterns such as [\w\-\:] assume).
		return p[:2], 2, nil
	}
	r, _ := utf8.DecodeRuneInString(p[1:])
	return "", 0, fmt.Errorf(`\%c is not a supported escape (backreferences and Go-only escapes are refused)`, r)
}

// classEscape renders a set given by its members: as a class outside
// one, as members inside one (where a negated set cannot be expressed).
func classEscape(negate bool, members string, inClass bool, name string) (string, int, error) {
	switch {
	case inClass && negate:
		return "", 0, fmt.Errorf(`%s inside a character class is not supported`, name)
	case inClass:
		return members, 2, nil
	case negate:
		return "[^" + members + "]", 2, nil
	}
	return "[" + members + "]", 2, nil
}

// unicodeEscape translates \uXXXX (joining a surrogate pair) and \u{X...}.
func unicodeEscape(p string) (string, int, error) {
	r, n := rune(-1), 0
	if strings.HasPrefix(p, `\u{`) {
		if end := strings.IndexByte(p, '}'); end > 3 {
			if v, err := strconv.ParseUint(p[3:end], 16, 32); err == nil {
				r, n = rune(v), end+1
			}
		}
	} else if v, ok := hex4(p[2:]); ok {
		r, n = v, 6
		if lo, ok := hex4(strings.TrimPrefix(p[6:], `\u`)); ok && strings.HasPrefix(p[6:], `\u`) && r >= 0xD800 && r < 0xDC00 && lo >= 0xDC00 && lo < 0xE000 {
			r, n = (r-0xD800)<<10+(lo-0xDC00)+0x10000, 12
		}
	}
	if r < 0 || r > unicode.MaxRune || r >= 0xD800 && r < 0xE000 {
		return "", 0, errors.New(`\u must name a Unicode scalar value`)
	}
	return fmt.Sprintf(`\x{%x}`, r), n, nil
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 || !isHex(s[0]) || !isHex(s[1]) || !isHex(s[2]) || !isHex(s[3]) {
		return 0, false
	}
	v, _ := strconv.ParseUint(s[:4], 16, 32)
	return rune(v), true
}

// propertyEscape translates \p{...} and \P{...}: general categories by
// any ECMA-262 name, scripts as Script=Name.
func propertyEscape(p string, inClass bool) (string, int, error) {
	end := strings.IndexByte(p, '}')
	if len(p) < 4 || p[2] != '{' || end < 0 {
		return "", 0, errors.New(`\p must be written \p{Name}`)
	}
	name, negate, n := p[3:end], p[1] == 'P', end+1
	switch name {
	case "Any":
		s, _, err := classEscape(negate, `\x00-\x{10FFFF}`, inClass, `\P{Any}`)
		return s, n, err
	case "ASCII":
		s, _, err := classEscape(negate, `\x00-\x7f`, inClass, `\P{ASCII}`)
		return s, n, err
	}
	goName, ok := ecmaPropertyName(name)
	if !ok {
		return "", 0, fmt.Errorf(`the Unicode property %q is not supported`, name)
	}
	return `\` + p[1:2] + "{" + goName + "}", n, nil
}

// ecmaPropertyName maps an ECMA-262 property name to Go's.
func ecmaPropertyName(name string) (string, bool) {
	key, value, hasKey := strings.Cut(name, "=")
	if !hasKey {
		key, value = "General_Category", name
	}
	switch key {
	case "General_Category", "gc":
		short := generalCategories[value]
		if short == "" {
			if _, ok := unicode.Categories[value]; ok && len(value) <= 2 && value != "C" {
				short = value
			}
		}
		_, ok := unicode.Categories[short]
		return short, ok
	case "Script", "sc":
		_, ok := unicode.Scripts[value]
		return value, ok
	}
	return "", false
}

// generalCategories maps ECMA-262's long names and aliases of Unicode
// general categories to the short names Go knows. "Other" (C) is left
// out: Go's C lacks the unassigned code points.
var generalCategories = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}

func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isHex(c byte) bool         { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// validator collects violations for one call. A quiet validator only
// counts failures and stops at the first: anyOf, oneOf, not, if and
// contains need to know whether a branch fails, not why.
type validator struct {
	out   []violation
	extra int // violations beyond maxViolations
	fails int
	quiet bool
}

// valuePath is one step of the path to a value: a property name or an array
// index. Paths are rendered only when a message is written, so a valid
// call builds no strings.
type valuePath struct {
	parent *valuePath
	key    string // the property name, or at the root the path prefix
	index  int    // array index; -1 for a property or the root
}

// String renders the path as "a.b[2].c". It copies into a fresh buffer
// and does not recurse, so that escape analysis can keep every valuePath
// of a call on the stack.
func (p *valuePath) String() string {
	var steps [maxSchemaDepth + 2]*valuePath
	n := 0
	for s := p; s != nil && n < len(steps); s = s.parent {
		steps[n] = s
		n++
	}
	var b []byte
	for i := n - 1; i >= 0; i-- {
		switch s := steps[i]; {
		case s.parent == nil:
			b = append(b, s.key...)
		case s.index >= 0:
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
		default:
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, s.key...)
		}
	}
	return string(b)
}

// report counts a failure and says whether to write its message; callers
// build the message's arguments only when it is wanted.
func (v *validator) report() bool {
	if v.quiet {
		v.fails++
		return false
	}
	return true
}

// add records a violation at p; beyond maxViolations it only counts.
func (v *validator) add(p *valuePath, format string, args ...any) {
	v.fails++
	if len(v.out) >= maxViolations {
		v.extra++
		return
	}
	v.out = append(v.out, violation{path: p.String(), msg: fmt.Sprintf(format, args...)})
}

func (v *validator) failed() bool { return v.fails > 0 }

// stop says a quiet validator has its answer.
func (v *validator) stop() bool { return v.quiet && v.fails > 0 }

// check validates value against n; path names the value for messages.
// A first, quiet pass decides; only a value that fails is walked again to
// write the messages, so a valid call builds no paths or strings.
func (v *validator) check(n *schemaNode, value any, path string, depth int) {
	if !v.quiet {
		probe := validator{quiet: true}
		if probe.eval(n, value, nil, depth); !probe.failed() {
			return
		}
	}
	v.eval(n, value, v.child(nil, path, -1), depth)
}

// child returns the path of a property (index -1) or an item; quiet
// validators write no messages and get nil.
func (v *validator) child(p *valuePath, key string, index int) *valuePath {
	if v.quiet {
		return nil
	}
	return &valuePath{parent: p, key: key, index: index}
}

// matches reports whether value satisfies n, without messages. A quiet
// validator evaluates it itself, its failure count set aside.
func (v *validator) matches(n *schemaNode, value any, depth int) bool {
	if v.quiet {
		saved := v.fails
		v.fails = 0
		v.eval(n, value, nil, depth+1)
		ok := v.fails == 0
		v.fails = saved
		return ok
	}
	sub := validator{quiet: true}
	sub.eval(n, value, nil, depth+1)
	return !sub.failed()
}

// eval applies n to value at path p (nil for a quiet validator); depth
// bounds recursion through $ref and nesting.
func (v *validator) eval(n *schemaNode, value any, p *valuePath, depth int) {
	if depth > maxSchemaDepth {
		if v.report() {
			v.add(p, "is nested too deeply (more than %d levels)", maxSchemaDepth)
		}
		return
	}
	if n.alwaysFalse {
		if v.report() {
			v.add(p, "is not allowed here")
		}
		return
	}
	if n.ref != nil {
		if v.eval(n.ref, value, p, depth+1); v.stop() {
			return
		}
	}
	if n.types != 0 && !typeMatches(n.types, value) {
		if v.report() {
			v.add(p, "must be %s; got %s", typeList(n.types), describeValue(value))
		}
		return
	}
	v.evalValue(n, value, p)
	if v.stop() {
		return
	}
	switch x := value.(type) {
	case string:
		v.evalString(n, x, p)
	case json.Number:
		v.evalNumber(n, x, p)
	case float64:
		v.evalNumber(n, json.Number(strconv.FormatFloat(x, 'g', -1, 64)), p)
	case []any:
		v.evalArray(n, x, p, depth)
	case map[string]any:
		v.evalObject(n, x, p, depth)
	}
	if !v.stop() {
		v.evalComposition(n, value, p, depth)
	}
}

// evalValue checks const and enum.
func (v *validator) evalValue(n *schemaNode, value any, p *valuePath) {
	if n.hasConst && !jsonEqual(value, n.constVal) && v.report() {
		v.add(p, "must be exactly %s; got %s", showValue(n.constVal), showValue(value))
	}
	if n.enum != nil && !enumContains(n.enum, value) && v.report() {
		v.add(p, "must be one of %s; got %s", enumList(n.enum), showValue(value))
	}
}

func typeMatches(types uint8, value any) bool {
	switch x := value.(type) {
	case nil:
		return types&jtNull != 0
	case bool:
		return types&jtBoolean != 0
	case json.Number:
		if types&jtNumber != 0 {
			return true
		}
		return types&jtInteger != 0 && isInteger(x)
	case float64:
		return types&jtNumber != 0 || (types&jtInteger != 0 && x == math.Trunc(x) && !math.IsInf(x, 0))
	case string:
		return types&jtString != 0
	case []any:
		return types&jtArray != 0
	case map[string]any:
		return types&jtObject != 0
	}
	return false
}

// isInteger reports whether a JSON number has no fractional part; 1.0 and
// 1e3 count, as JSON Schema says.
func isInteger(n json.Number) bool {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		return true
	}
	if d := parseDecimal(s); d.ok {
		return d.exp >= 0 || d.mant == 0
	}
	r, ok := new(big.Rat).SetString(s)
	return ok && r.IsInt()
}

func typeList(types uint8) string {
	var names []string
	for _, tn := range jsonTypeNames {
		if types&tn.bit != 0 && !(tn.bit == jtInteger && types&jtNumber != 0) {
			names = append(names, typeWithArticle(tn.name))
		}
	}
	return strings.Join(names, " or ")
}

func typeWithArticle(typeName string) string {
	if typeName == "null" {
		return "null"
	}
	return WithArticle(typeName)
}

func describeValue(value any) string {
	switch value.(type) {
	case nil:
		return "null"
	case bool:
		return showValue(value) + " (a boolean)"
	case json.Number, float64:
		return showValue(value) + " (a number)"
	case string:
		return showValue(value) + " (a string)"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", value)
}

// showValue renders a value as short JSON for messages.
func showValue(value any) string {
	b, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	if len(b) > maxShownValueSz {
		cut := maxShownValueSz
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}

func enumList(enum []any) string {
	var sb strings.Builder
	for i, e := range enum {
		if i == maxEnumListed {
			fmt.Fprintf(&sb, ", … (%d more)", len(enum)-i)
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(showValue(e))
	}
	return sb.String()
}

func enumContains(enum []any, value any) bool {
	for _, e := range enum {
		if jsonEqual(e, value) {
			return true
		}
	}
	return false
}

// jsonEqual compares decoded JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	if x, ok := asNumber(a); ok {
		y, ok := asNumber(b)
		return ok && numbersEqual(x, y)
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case string, bool, nil:
		return a == b
	}
	return false
}

// asNumber accepts both decodings of a JSON number, and the Go integers
// a schema built as a value (CompileSchemaValue) may hold.
func asNumber(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), true
	case int:
		return json.Number(strconv.Itoa(x)), true
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), true
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), true
	}
	return "", false
}

// numbersEqual compares exactly; distinct floats mean distinct values, so
// the exact comparison runs only on a tie.
func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, _ := strconv.ParseFloat(a.String(), 64)
	fb, _ := strconv.ParseFloat(b.String(), 64)
	if fa != fb {
		return false
	}
	ra, ok1 := new(big.Rat).SetString(a.String())
	rb, ok2 := new(big.Rat).SetString(b.String())
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

func (v *validator) evalString(n *schemaNode, s string, p *valuePath) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength && v.report() {
			v.add(p, "must be at least %d characters long; got %d", n.minLength, l)
		}
		if n.maxLength >= 0 && l > n.maxLength && v.report() {
			v.add(p, "must be at most %d characters long; got %d", n.maxLength, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) && v.report() {
		v.add(p, "must match the pattern %s; got %s", n.patternSrc, showValue(s))
	}
	if n.format != "" {
		if want := checkFormat(n.format, s); want != "" && v.report() {
			v.add(p, "must be %s; got %s", want, showValue(s))
		}
	}
}

func (v *validator) evalNumber(n *schemaNode, num json.Number, p *valuePath) {
	f, _ := strconv.ParseFloat(num.String(), 64)
	if n.minimum != nil && compareNumber(num, f, n.minimum) < 0 && v.report() {
		v.add(p, "must be at least %s; got %s", n.minimum.text, num)
	}
	if n.maximum != nil && compareNumber(num, f, n.maximum) > 0 && v.report() {
		v.add(p, "must be at most %s; got %s", n.maximum.text, num)
	}
	if n.exclMin != nil && compareNumber(num, f, n.exclMin) <= 0 && v.report() {
		v.add(p, "must be greater than %s; got %s", n.exclMin.text, num)
	}
	if n.exclMax != nil && compareNumber(num, f, n.exclMax) >= 0 && v.report() {
		v.add(p, "must be less than %s; got %s", n.exclMax.text, num)
	}
	if n.multipleOf != nil && !isMultiple(num, n.multipleOf) && v.report() {
		v.add(p, "must be a multiple of %s; got %s", n.multipleOf.text, num)
	}
}

// compareNumber compares a value (and its float) with a bound exactly.
// Rounding to float64 is monotonic, so unequal floats decide; only a tie
// needs exact arithmetic.
func compareNumber(num json.Number, f float64, b *numBound) int {
	switch {
	case f < b.f:
		return -1
	case f > b.f:
		return 1
	}
	if d := parseDecimal(num.String()); d.ok && b.dec.ok {
		if x, y, ok := alignDecimals(d, b.dec); ok {
			return cmp.Compare(x, y)
		}
	}
	r, ok := new(big.Rat).SetString(num.String())
	if !ok {
		return 0
	}
	return r.Cmp(b.exact)
}

// isMultiple reports whether num is an integer multiple of m, exactly:
// with int64 decimals when both fit, with big.Rat otherwise.
func isMultiple(num json.Number, m *numBound) bool {
	if d := parseDecimal(num.String()); d.ok && m.dec.ok {
		if a, b, ok := alignDecimals(d, m.dec); ok {
			return a%b == 0
		}
	}
	r, ok := new(big.Rat).SetString(num.String())
	return ok && r.Quo(r, m.exact).IsInt()
}

// decimal is mant×10^exp, when the mantissa fits in an int64.
type decimal struct {
	mant int64
	exp  int
	ok   bool
}

// parseDecimal reads a JSON number as a decimal, without allocating; ok
// is false when it has more than 18 significant digits or a huge
// exponent.
func parseDecimal(s string) decimal {
	var d decimal
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	digits, fracDigits, dot := 0, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '.' && !dot:
			dot = true
		case isDigit(c):
			if dot {
				fracDigits++
			}
			if d.mant == 0 && c == '0' {
				continue // a leading zero
			}
			if digits++; digits > 18 {
				return decimal{}
			}
			d.mant = d.mant*10 + int64(c-'0')
		case c == 'e' || c == 'E':
			e, err := strconv.Atoi(s[i+1:])
			if err != nil || e > 400 || e < -400 {
				return decimal{}
			}
			d.exp, i = e, len(s)
		default:
			return decimal{}
		}
	}
	d.exp -= fracDigits
	for d.mant != 0 && d.mant%10 == 0 { // normal form: 10.0 is 1e1
		d.mant /= 10
		d.exp++
	}
	if neg {
		d.mant = -d.mant
	}
	d.ok = true
	return d
}

// alignDecimals scales two decimals to a common exponent; ok is false on
// overflow.
func alignDecimals(a, b decimal) (int64, int64, bool) {
	e := min(a.exp, b.exp)
	x, ok1 := scale(a.mant, a.exp-e)
	y, ok2 := scale(b.mant, b.exp-e)
	return x, y, ok1 && ok2
}

func scale(m int64, by int) (int64, bool) {
	for ; by > 0; by-- {
		if m > math.MaxInt64/10 || m < math.MinInt64/10 {
			return 0, false
		}
		m *= 10
	}
	return m, true
}

func (v *validator) evalArray(n *schemaNode, arr []any, p *valuePath, depth int) {
	if n.minItems >= 0 && len(arr) < n.minItems && v.report() {
		v.add(p, "must have at least %d items; got %d", n.minItems, len(arr))
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems && v.report() {
		v.add(p, "must have at most %d items; got %d", n.maxItems, len(arr))
	}
	for i, item := range arr {
		sub := n.items
		if i < len(n.prefixItems) {
			sub = n.prefixItems[i]
		}
		if sub != nil {
			if v.eval(sub, item, v.child(p, "", i), depth+1); v.stop() {
				return
			}
		}
	}
	if n.contains != nil {
		v.evalContains(n, arr, p, depth)
	}
	if n.uniqueItems && len(arr) > 1 {
		v.evalUnique(arr, p)
	}
}

// evalContains checks contains with minContains (default 1) and
// maxContains.
func (v *validator) evalContains(n *schemaNode, arr []any, p *valuePath, depth int) {
	matched := 0
	for _, item := range arr {
		if v.matches(n.contains, item, depth) {
			matched++
		}
	}
	least := n.minContains
	if least < 0 {
		least = 1
	}
	if matched < least && v.report() {
		v.add(p, "must contain at least %d matching item(s); got %d%s", least, matched, v.containsHint(n.contains, arr, depth))
	}
	if n.maxContains >= 0 && matched > n.maxContains && v.report() {
		v.add(p, "must contain at most %d matching item(s); got %d", n.maxContains, matched)
	}
}

// containsHint says why the first item that does not match fails.
func (v *validator) containsHint(n *schemaNode, arr []any, depth int) string {
	for i, item := range arr {
		if !v.matches(n, item, depth) {
			return fmt.Sprintf(" (item %d: %s)", i, firstProblem(n, item, depth))
		}
	}
	return ""
}

// firstProblem describes why value fails n, for hints.
func firstProblem(n *schemaNode, value any, depth int) string {
	sub := validator{}
	sub.eval(n, value, sub.child(nil, "", -1), depth+1)
	if len(sub.out) == 0 {
		return "it does not match"
	}
	return sub.out[0].msg
}

// evalUnique compares small arrays pairwise, without allocating, and
// larger ones by a canonical rendering of each item.
func (v *validator) evalUnique(arr []any, p *valuePath) {
	if len(arr) <= 16 {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if jsonEqual(arr[j], arr[i]) {
					if v.report() {
						v.add(p, "must not contain duplicates; items %d and %d are equal", j, i)
					}
					return
				}
			}
		}
		return
	}
	seen := make(map[string]int, len(arr))
	for i, item := range arr {
		key := canonicalJSON(item)
		if j, dup := seen[key]; dup {
			if v.report() {
				v.add(p, "must not contain duplicates; items %d and %d are equal", j, i)
			}
			return
		}
		seen[key] = i
	}
}

// canonicalJSON renders a value with sorted keys and normalised numbers so
// equal values render equally.
func canonicalJSON(value any) string {
	var buf bytes.Buffer
	writeCanonical(&buf, value)
	return buf.String()
}

func writeCanonical(buf *bytes.Buffer, value any) {
	if num, ok := asNumber(value); ok {
		if r, ok := new(big.Rat).SetString(num.String()); ok {
			buf.WriteString(r.RatString())
			return
		}
		buf.WriteString(num.String())
		return
	}
	switch x := value.(type) {
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := sortedKeys(x)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.Quote(k))
			buf.WriteByte(':')
			writeCanonical(buf, x[k])
		}
		buf.WriteByte('}')
	default:
		b, _ := json.Marshal(x)
		buf.Write(b)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (v *validator) evalObject(n *schemaNode, obj map[string]any, p *valuePath, depth int) {
	for _, r := range n.required {
		if _, ok := obj[r]; !ok && v.report() {
			v.add(v.child(p, r, -1), "is required but missing%s", exampleHint(n.properties[r]))
		}
	}
	if n.minProps >= 0 && len(obj) < n.minProps && v.report() {
		v.add(p, "must have at least %d properties; got %d", n.minProps, len(obj))
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps && v.report() {
		v.add(p, "must have at most %d properties; got %d", n.maxProps, len(obj))
	}
	v.evalDependencies(n, obj, p, depth)
	if v.stop() || n.properties == nil && n.patternProps == nil && n.additional == nil && n.propertyNames == nil {
		return
	}
	// Visit keys in a stable order so messages do not flicker between
	// calls; the buffer keeps small objects off the heap.
	var buf [32]string
	keys := buf[:0]
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v.evalProperty(n, k, obj[k], p, depth); v.stop() {
			return
		}
	}
}

// evalProperty checks one property against properties, patternProperties,
// additionalProperties and propertyNames.
func (v *validator) evalProperty(n *schemaNode, k string, val any, p *valuePath, depth int) {
	seg := v.child(p, k, -1)
	sub, declared := n.properties[k]
	if declared {
		v.eval(sub, val, seg, depth+1)
	}
	for _, pp := range n.patternProps {
		if pp.re.MatchString(k) {
			declared = true
			v.eval(pp.node, val, seg, depth+1)
		}
	}
	if !declared && n.additional != nil {
		if n.additional.alwaysFalse {
			if v.report() {
				v.add(seg, "is not an allowed property%s", n.allowedHint(k))
			}
		} else {
			v.eval(n.additional, val, seg, depth+1)
		}
	}
	if n.propertyNames != nil {
		if !v.matches(n.propertyNames, k, depth) && v.report() {
			v.add(p, "must not have the property name %q (the name %s)", k, firstProblem(n.propertyNames, k, depth))
		}
	}
}

func (v *validator) evalDependencies(n *schemaNode, obj map[string]any, p *valuePath, depth int) {
	for _, d := range n.depRequired {
		if _, present := obj[d.prop]; !present {
			continue
		}
		for _, name := range d.names {
			if _, ok := obj[name]; !ok && v.report() {
				v.add(v.child(p, name, -1), "is required when %q is present", d.prop)
			}
		}
	}
	for _, d := range n.depSchemas {
		if _, present := obj[d.prop]; present {
			v.eval(d.node, obj, p, depth+1)
		}
	}
}

// allowedHint suggests the closest declared property and lists them all.
func (n *schemaNode) allowedHint(k string) string {
	if len(n.propNames) == 0 {
		return "; this tool takes no such input"
	}
	hint := ""
	if best := Suggest(k, n.propNames); best != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	list := n.propNames
	suffix := ""
	if len(list) > 20 {
		list, suffix = list[:20], ", …"
	}
	return fmt.Sprintf("%s; allowed properties are %s%s", hint, quoteAll(list), suffix)
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, s := range names {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// Suggest returns the candidate a misspelt word most likely meant: the
// closest by edit distance, ignoring case, within two edits and half the
// word's length; "" when none is that close. The runtime's "did you
// mean" and the generator's use this one rule.
func Suggest(word string, candidates []string) string {
	best, bestD := "", min(3, len(word)/2+1)
	lw := strings.ToLower(word)
	for _, c := range candidates {
		if d := editDistance(lw, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
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

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (v *validator) evalComposition(n *schemaNode, value any, p *valuePath, depth int) {
	for _, s := range n.allOf {
		if v.eval(s, value, p, depth+1); v.stop() {
			return
		}
	}
	if len(n.anyOf) > 0 && v.matchCount(n.anyOf, value, depth, 1) == 0 && v.report() {
		v.add(p, "does not match any of the %d allowed forms%s", len(n.anyOf), closestForm(n.anyOf, value, p, depth))
	}
	if len(n.oneOf) > 0 {
		switch v.matchCount(n.oneOf, value, depth, 2) {
		case 0:
			if v.report() {
				v.add(p, "does not match any of the %d allowed forms%s", len(n.oneOf), closestForm(n.oneOf, value, p, depth))
			}
		case 1:
		default:
			if v.report() {
				v.add(p, "matches more than one of the allowed forms; make it match exactly one")
			}
		}
	}
	if n.not != nil && v.matches(n.not, value, depth) && v.report() {
		v.add(p, "has a form that is not allowed; got %s", showValue(value))
	}
	if n.ifNode != nil {
		v.evalConditional(n, value, p, depth)
	}
}

// evalConditional applies then or else by whether value matches if.
func (v *validator) evalConditional(n *schemaNode, value any, p *valuePath, depth int) {
	branch := n.elseOf
	if v.matches(n.ifNode, value, depth) {
		branch = n.then
	}
	if branch != nil {
		v.eval(branch, value, p, depth+1)
	}
}

// matchCount counts the branches value satisfies, stopping at limit.
func (v *validator) matchCount(branches []*schemaNode, value any, depth, limit int) int {
	matched := 0
	for _, b := range branches {
		if v.matches(b, value, depth) {
			if matched++; matched >= limit {
				break
			}
		}
	}
	return matched
}

// closestForm describes the first problem of the branch with the fewest.
func closestForm(branches []*schemaNode, value any, p *valuePath, depth int) string {
	bestN, best := 1<<30, ""
	for _, b := range branches {
		sub := validator{}
		sub.eval(b, value, p, depth+1)
		if n := len(sub.out) + sub.extra; n > 0 && n < bestN {
			bestN, best = n, fmt.Sprintf(" (closest form: %s)", sub.out[0].text())
		}
	}
	return best
}

func (x violation) text() string {
	if x.path == "" {
		return "the arguments " + x.msg
	}
	return strconv.Quote(x.path) + " " + x.msg
}

// exampleHint renders " (example: V)" from a property's schema, or "".
func exampleHint(n *schemaNode) string {
	if ex, ok := exampleFor(n, 0); ok {
		return " (example: " + showValue(ex) + ")"
	}
	return ""
}

func exampleFor(n *schemaNode, depth int) (any, bool) {
	if n == nil || depth > 8 {
		return nil, false
	}
	switch {
	case n.hasExample:
		return n.example, true
	case n.hasDefault:
		return n.defaultVal, true
	case n.hasConst:
		return n.constVal, true
	case len(n.enum) > 0:
		return n.enum[0], true
	case n.ref != nil:
		return exampleFor(n.ref, depth+1)
	}
	if ex, ok := formatExamples[n.format]; ok {
		return ex, true
	}
	return nil, false
}

// validationMessage renders the violations as one isError text.
func validationMessage(v *validator) string {
	if len(v.out) == 1 && v.extra == 0 {
		return "Invalid arguments: " + v.out[0].text() + ". Fix the value and call again."
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "Invalid arguments (%d problems):", len(v.out)+v.extra)
	for _, x := range v.out {
		sb.WriteString("\n- ")
		sb.WriteString(x.text())
	}
	if v.extra > 0 {
		fmt.Fprintf(&sb, "\n- … and %d more", v.extra)
	}
	sb.WriteString("\nFix these values and call again.")
	return sb.String()
}

// applyDefaults fills missing optional top-level properties that declare a
// default, so the upstream sees the documented behaviour.
func applyDefaults(n *schemaNode, args map[string]any) {
	for _, name := range n.propNames {
		p := n.properties[name]
		if !p.hasDefault {
			continue
		}
		if _, ok := args[name]; !ok {
			args[name] = p.defaultVal
		}
	}
}

// textIn is text with root naming the value at the empty path.
func (x violation) textIn(root string) string {
	if x.path == "" {
		return root + " " + x.msg
	}
	return strconv.Quote(x.path) + " " + x.msg
}

// Formats. The validator asserts the formats below, each exactly as the
// test suite's optional/format file says; any other format is an
// annotation, as draft 2020-12 prescribes by default, and
// Schema.UnassertedFormats lists it.

// assertedFormats describes each asserted format for messages.
var assertedFormats = map[string]string{
	"date":      "a date formatted YYYY-MM-DD, e.g. 2026-01-31",
	"date-time": "an RFC 3339 date-time, e.g. 2026-01-31T09:30:00Z",
	"email":     "an email address, e.g. user@example.com",
	"uuid":      "a UUID, e.g. 123e4567-e89b-12d3-a456-426614174000",
	"uri":       "an absolute URI, e.g. https://example.com/path",
	"ipv4":      "an IPv4 address, e.g. 192.0.2.1",
	"ipv6":      "an IPv6 address, e.g. 2001:db8::1",
}

// formatExamples are the example values in assertedFormats.
var formatExamples = map[string]string{
	"date": "2026-01-31", "date-time": "2026-01-31T09:30:00Z", "email": "user@example.com",
	"uuid": "123e4567-e89b-12d3-a456-426614174000", "uri": "https://example.com/path",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1",
}

// checkFormat returns a description of the expected format when s does not
// have it, or "" when it does or the format is not asserted.
func checkFormat(format, s string) string {
	var ok bool
	switch format {
	case "date":
		ok = isDate(s)
	case "date-time":
		ok = isDateTime(s)
	case "email":
		ok = isEmail(s)
	case "uuid":
		ok = isUUID(s)
	case "uri":
		ok = isURI(s)
	case "ipv4":
		ok = isIPv4(s)
	case "ipv6":
		ok = isIPv6(s)
	default:
		return ""
	}
	if ok {
		return ""
	}
	return assertedFormats[format]
}

// digits2 reads two ASCII digits.
func digits2(s string) (int, bool) {
	if len(s) < 2 || !isDigit(s[0]) || !isDigit(s[1]) {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

// isDate checks an RFC 3339 full-date: YYYY-MM-DD with a real day.
func isDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	hi, ok1 := digits2(s[0:])
	lo, ok2 := digits2(s[2:])
	month, ok3 := digits2(s[5:])
	day, ok4 := digits2(s[8:])
	if !ok1 || !ok2 || !ok3 || !ok4 || month < 1 || month > 12 || day < 1 {
		return false
	}
	year := hi*100 + lo
	days := [13]int{0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}

// isDateTime checks an RFC 3339 date-time; T and Z may be lower case.
func isDateTime(s string) bool {
	return len(s) > 11 && (s[10] == 'T' || s[10] == 't') && isDate(s[:10]) && isFullTime(s[11:])
}

// isFullTime checks HH:MM:SS[.frac](Z|±HH:MM); second 60 is a leap second
// and must fall on 23:59 UTC.
func isFullTime(s string) bool {
	if len(s) < 9 || s[2] != ':' || s[5] != ':' {
		return false
	}
	h, ok1 := digits2(s)
	m, ok2 := digits2(s[3:])
	sec, ok3 := digits2(s[6:])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || sec > 60 {
		return false
	}
	rest := s[8:]
	if strings.HasPrefix(rest, ".") {
		i := 1
		for i < len(rest) && isDigit(rest[i]) {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	offset, ok := timeOffset(rest)
	if !ok {
		return false
	}
	if sec == 60 {
		utc := ((h*60+m-offset)%1440 + 1440) % 1440
		return utc == 23*60+59
	}
	return true
}

// timeOffset reads Z or ±HH:MM as minutes east of UTC.
func timeOffset(s string) (int, bool) {
	if s == "Z" || s == "z" {
		return 0, true
	}
	if len(s) != 6 || (s[0] != '+' && s[0] != '-') || s[3] != ':' {
		return 0, false
	}
	h, ok1 := digits2(s[1:])
	m, ok2 := digits2(s[4:])
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	if s[0] == '-' {
		return -(h*60 + m), true
	}
	return h*60 + m, true
}

// isUUID checks the RFC 4122 text form: 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			if !isHex(s[i]) {
				return false
			}
		}
	}
	return true
}

func isIPv4(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is4()
}

// isIPv6 accepts RFC 4291 text, without a zone.
func isIPv6(s string) bool {
	if !strings.Contains(s, ":") || strings.Contains(s, "%") {
		return false
	}
	_, err := netip.ParseAddr(s)
	return err == nil
}

// isEmail checks an RFC 5321 Mailbox: Local-part "@" (Domain /
// address-literal).
func isEmail(s string) bool {
	at := strings.LastIndexByte(s, '@')
	if at <= 0 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if !isDotString(local) && !isQuotedString(local) {
		return false
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		return isAddressLiteral(domain[1 : len(domain)-1])
	}
	return isDomain(domain)
}

// isDotString: Atom *("." Atom).
func isDotString(s string) bool {
	for atom := range strings.SplitSeq(s, ".") {
		if atom == "" {
			return false
		}
		for i := 0; i < len(atom); i++ {
			c := atom[i]
			if !isASCIILetter(c) && !isDigit(c) && strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) < 0 {
				return false
			}
		}
	}
	return true
}

// isQuotedString: DQUOTE *(qtextSMTP / quoted-pairSMTP) DQUOTE.
func isQuotedString(s string) bool {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i++; i >= len(s)-1 || s[i] < 32 || s[i] > 126 {
				return false
			}
		case c == '"' || c < 32 || c > 126:
			return false
		}
	}
	return true
}

// isDomain: sub-domain *("." sub-domain), each a letter or digit, then
// letters, digits and inner hyphens.
func isDomain(s string) bool {
	for label := range strings.SplitSeq(s, ".") {
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			if c := label[i]; !isASCIILetter(c) && !isDigit(c) && c != '-' {
				return false
			}
		}
	}
	return true
}

// isAddressLiteral: IPv4, "IPv6:" IPv6, or a tagged general literal.
func isAddressLiteral(s string) bool {
	if v6, ok := strings.CutPrefix(s, "IPv6:"); ok {
		return isIPv6(v6)
	}
	if tag, content, ok := strings.Cut(s, ":"); ok {
		if !isDomain(tag) || strings.Contains(tag, ".") || content == "" {
			return false
		}
		for i := 0; i < len(content); i++ {
			if c := content[i]; c < 33 || c > 126 || c == '[' || c == '\\' || c == ']' {
				return false
			}
		}
		return true
	}
	return isIPv4(s)
}

// isURI checks an RFC 3986 URI: scheme ":" hier-part [ "?" query ]
// [ "#" fragment ].
func isURI(s string) bool {
	colon := strings.IndexByte(s, ':')
	if colon <= 0 || !isScheme(s[:colon]) {
		return false
	}
	rest, fragment, hasFragment := strings.Cut(s[colon+1:], "#")
	if hasFragment && !uriChars(fragment, ":@/?") {
		return false
	}
	rest, query, hasQuery := strings.Cut(rest, "?")
	if hasQuery && !uriChars(query, ":@/?") {
		return false
	}
	if auth, ok := strings.CutPrefix(rest, "//"); ok {
		path := ""
		if slash := strings.IndexByte(auth, '/'); slash >= 0 {
			auth, path = auth[:slash], auth[slash:]
		}
		return isAuthority(auth) && uriChars(path, ":@/")
	}
	return uriChars(rest, ":@/")
}

// isScheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIILetter(c) && (i == 0 || !isDigit(c) && c != '+' && c != '-' && c != '.') {
			return false
		}
	}
	return true
}

// isAuthority: [ userinfo "@" ] host [ ":" port ].
func isAuthority(s string) bool {
	if at := strings.LastIndexByte(s, '@'); at >= 0 {
		if !uriChars(s[:at], ":") {
			return false
		}
		s = s[at+1:]
	}
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 || !isIPLiteral(s[1:end]) {
			return false
		}
		host, port = "", s[end+1:]
		if port != "" {
			if port[0] != ':' {
				return false
			}
			port = port[1:]
		}
	} else if colon := strings.IndexByte(s, ':'); colon >= 0 {
		host, port = s[:colon], s[colon+1:]
	}
	if !uriChars(host, "") {
		return false
	}
	for i := 0; i < len(port); i++ {
		if !isDigit(port[i]) {
			return false
		}
	}
	return true
}

// isIPLiteral: IPv6address / IPvFuture.
func isIPLiteral(s string) bool {
	if len(s) > 0 && (s[0] == 'v' || s[0] == 'V') {
		ver, rest, ok := strings.Cut(s[1:], ".")
		if !ok || ver == "" || rest == "" || strings.IndexFunc(ver, func(r rune) bool { return r > 127 || !isHex(byte(r)) }) >= 0 {
			return false
		}
		return !strings.Contains(rest, "%") && uriChars(rest, ":")
	}
	return isIPv6(s)
}

// uriChars reports whether s holds only unreserved characters,
// sub-delims, percent-encoded octets and the extra characters.
func uriChars(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
			i += 2
		case isASCIILetter(c) || isDigit(c) || strings.IndexByte("-._~!$&'()*+,;=", c) >= 0:
		case c < utf8.RuneSelf && strings.IndexByte(extra, c) >= 0:
		default:
			return false
		}
	}
	return true
}
