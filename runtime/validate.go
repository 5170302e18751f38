package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"net/mail"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The validator covers the JSON Schema 2020-12 subset that oa2mcp emits. The
// SDK's raw AddTool does no validation, and the SDK's own validator decodes
// and re-encodes every call, so schemas are compiled once here into a tree
// of schemaNodes and values are checked against the decoded arguments.

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

	properties map[string]*schemaNode
	propNames  []string // sorted, for messages
	required   []string
	additional *schemaNode // nil: anything allowed

	items       *schemaNode
	prefixItems []*schemaNode

	enum     []any
	constVal any
	hasConst bool

	pattern    *regexp.Regexp
	patternSrc string
	format     string

	minimum, maximum, exclMin, exclMax *float64
	multipleOf                         *big.Rat

	minLength, maxLength, minItems, maxItems, minProps, maxProps int // -1: unset
	uniqueItems                                                  bool

	ref                 *schemaNode
	allOf, anyOf, oneOf []*schemaNode
	not                 *schemaNode

	defaultVal any
	hasDefault bool
	example    any
	hasExample bool
}

// violation is one failed rule at one argument path.
type violation struct {
	path string
	msg  string
}

// schemaCompiler resolves local $refs while compiling one root schema.
type schemaCompiler struct {
	root map[string]any
	refs map[string]*schemaNode
}

// compileSchema decodes and compiles a tool's input schema.
func compileSchema(text string) (*schemaNode, error) {
	if strings.TrimSpace(text) == "" {
		text = `{"type":"object"}`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("input schema is not valid JSON: %w", err)
	}
	root, _ := raw.(map[string]any)
	c := &schemaCompiler{root: root, refs: map[string]*schemaNode{}}
	return c.compile(raw)
}

func (c *schemaCompiler) compile(raw any) (*schemaNode, error) {
	switch v := raw.(type) {
	case bool:
		return &schemaNode{alwaysFalse: !v, minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}, nil
	case map[string]any:
		n := &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
		if err := c.fill(n, v); err != nil {
			return nil, err
		}
		return n, nil
	default:
		return nil, fmt.Errorf("schema must be an object or boolean, got %T", raw)
	}
}

func (c *schemaCompiler) fill(n *schemaNode, m map[string]any) error {
	n.types = parseTypes(m["type"])
	if err := c.fillRef(n, m); err != nil {
		return err
	}
	if err := c.fillObject(n, m); err != nil {
		return err
	}
	if err := c.fillArray(n, m); err != nil {
		return err
	}
	fillScalar(n, m)
	return c.fillComposition(n, m)
}

func parseTypes(t any) uint8 {
	var bits uint8
	add := func(s string) {
		for _, tn := range jsonTypeNames {
			if tn.name == s {
				bits |= tn.bit
			}
		}
	}
	switch v := t.(type) {
	case string:
		add(v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				add(s)
			}
		}
	}
	return bits
}

func (c *schemaCompiler) fillRef(n *schemaNode, m map[string]any) error {
	ref, ok := m["$ref"].(string)
	if !ok {
		return nil
	}
	target, err := c.resolveRef(ref)
	if err != nil {
		return err
	}
	n.ref = target
	return nil
}

// resolveRef compiles a local reference once; the node is registered
// before it is filled, so recursive schemas terminate.
func (c *schemaCompiler) resolveRef(ref string) (*schemaNode, error) {
	if n, ok := c.refs[ref]; ok {
		return n, nil
	}
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("unsupported non-local $ref %q", ref)
	}
	var cur any = c.root
	if ref != "#" {
		for _, tok := range strings.Split(ref[2:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			if t, err := url.PathUnescape(tok); err == nil {
				tok = t
			}
			m, ok := cur.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("unresolvable $ref %q", ref)
			}
			if cur, ok = m[tok]; !ok {
				return nil, fmt.Errorf("unresolvable $ref %q", ref)
			}
		}
	}
	n := &schemaNode{minLength: -1, maxLength: -1, minItems: -1, maxItems: -1, minProps: -1, maxProps: -1}
	c.refs[ref] = n
	switch v := cur.(type) {
	case bool:
		n.alwaysFalse = !v
	case map[string]any:
		if err := c.fill(n, v); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("$ref %q does not point at a schema", ref)
	}
	return n, nil
}

func (c *schemaCompiler) fillObject(n *schemaNode, m map[string]any) error {
	if props, ok := m["properties"].(map[string]any); ok {
		n.properties = make(map[string]*schemaNode, len(props))
		for name, ps := range props {
			sub, err := c.compile(ps)
			if err != nil {
				return fmt.Errorf("property %q: %w", name, err)
			}
			n.properties[name] = sub
			n.propNames = append(n.propNames, name)
		}
		sort.Strings(n.propNames)
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				n.required = append(n.required, s)
			}
		}
	}
	if ap, ok := m["additionalProperties"]; ok {
		sub, err := c.compile(ap)
		if err != nil {
			return fmt.Errorf("additionalProperties: %w", err)
		}
		n.additional = sub
	}
	n.minProps = intKeyword(m, "minProperties")
	n.maxProps = intKeyword(m, "maxProperties")
	return nil
}

func (c *schemaCompiler) fillArray(n *schemaNode, m map[string]any) error {
	if it, ok := m["items"]; ok {
		sub, err := c.compile(it)
		if err != nil {
			return fmt.Errorf("items: %w", err)
		}
		n.items = sub
	}
	if pi, ok := m["prefixItems"].([]any); ok {
		for i, s := range pi {
			sub, err := c.compile(s)
			if err != nil {
				return fmt.Errorf("prefixItems[%d]: %w", i, err)
			}
			n.prefixItems = append(n.prefixItems, sub)
		}
	}
	n.minItems = intKeyword(m, "minItems")
	n.maxItems = intKeyword(m, "maxItems")
	n.uniqueItems, _ = m["uniqueItems"].(bool)
	return nil
}

func fillScalar(n *schemaNode, m map[string]any) {
	if e, ok := m["enum"].([]any); ok {
		n.enum = e
	}
	n.constVal, n.hasConst = m["const"]
	if p, ok := m["pattern"].(string); ok {
		// A pattern Go's RE2 cannot compile (lookarounds, backrefs) is
		// skipped: the upstream still enforces it.
		if re, err := regexp.Compile(p); err == nil {
			n.pattern, n.patternSrc = re, p
		}
	}
	n.format, _ = m["format"].(string)
	n.minimum = floatKeyword(m, "minimum")
	n.maximum = floatKeyword(m, "maximum")
	n.exclMin = floatKeyword(m, "exclusiveMinimum")
	n.exclMax = floatKeyword(m, "exclusiveMaximum")
	if mo, ok := m["multipleOf"].(json.Number); ok {
		if r, ok := new(big.Rat).SetString(mo.String()); ok && r.Sign() > 0 {
			n.multipleOf = r
		}
	}
	n.minLength = intKeyword(m, "minLength")
	n.maxLength = intKeyword(m, "maxLength")
	n.defaultVal, n.hasDefault = m["default"]
	if ex, ok := m["examples"].([]any); ok && len(ex) > 0 {
		n.example, n.hasExample = ex[0], true
	} else if ex, ok := m["example"]; ok {
		n.example, n.hasExample = ex, true
	}
}

func (c *schemaCompiler) fillComposition(n *schemaNode, m map[string]any) error {
	list := func(key string) ([]*schemaNode, error) {
		arr, _ := m[key].([]any)
		var out []*schemaNode
		for i, s := range arr {
			sub, err := c.compile(s)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: %w", key, i, err)
			}
			out = append(out, sub)
		}
		return out, nil
	}
	var err error
	if n.allOf, err = list("allOf"); err != nil {
		return err
	}
	if n.anyOf, err = list("anyOf"); err != nil {
		return err
	}
	if n.oneOf, err = list("oneOf"); err != nil {
		return err
	}
	if s, ok := m["not"]; ok {
		if n.not, err = c.compile(s); err != nil {
			return fmt.Errorf("not: %w", err)
		}
	}
	return nil
}

func intKeyword(m map[string]any, key string) int {
	if v, ok := m[key].(json.Number); ok {
		if i, err := strconv.Atoi(v.String()); err == nil && i >= 0 {
			return i
		}
	}
	return -1
}

func floatKeyword(m map[string]any, key string) *float64 {
	if v, ok := m[key].(json.Number); ok {
		if f, err := v.Float64(); err == nil {
			return &f
		}
	}
	return nil
}

// validator collects violations for one call.
type validator struct {
	out   []violation
	extra int // violations beyond maxViolations
}

func (v *validator) add(path, format string, args ...any) {
	if len(v.out) >= maxViolations {
		v.extra++
		return
	}
	v.out = append(v.out, violation{path: path, msg: fmt.Sprintf(format, args...)})
}

func (v *validator) failed() bool { return len(v.out) > 0 }

// check validates value against n; path names the value for messages.
func (v *validator) check(n *schemaNode, value any, path string, depth int) {
	if depth > maxSchemaDepth {
		v.add(path, "is nested too deeply (more than %d levels)", maxSchemaDepth)
		return
	}
	if n.alwaysFalse {
		v.add(path, "is not allowed here")
		return
	}
	if n.ref != nil {
		v.check(n.ref, value, path, depth+1)
	}
	if n.types != 0 && !typeMatches(n.types, value) {
		v.add(path, "must be %s; got %s", typeList(n.types), describeValue(value))
		return
	}
	if n.hasConst && !jsonEqual(value, n.constVal) {
		v.add(path, "must be exactly %s; got %s", showValue(n.constVal), showValue(value))
	}
	if n.enum != nil && !enumContains(n.enum, value) {
		v.add(path, "must be one of %s; got %s", enumList(n.enum), showValue(value))
	}
	switch x := value.(type) {
	case string:
		v.checkString(n, x, path)
	case json.Number:
		v.checkNumber(n, x, path)
	case []any:
		v.checkArray(n, x, path, depth)
	case map[string]any:
		v.checkObject(n, x, path, depth)
	}
	v.checkComposition(n, value, path, depth)
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
		return types&jtNumber != 0 || (types&jtInteger != 0 && x == float64(int64(x)))
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
	switch typeName {
	case "integer", "array", "object":
		return "an " + typeName
	case "null":
		return "null"
	}
	return "a " + typeName
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
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
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
	}
	return a == b
}

func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	ra, ok1 := new(big.Rat).SetString(a.String())
	rb, ok2 := new(big.Rat).SetString(b.String())
	return ok1 && ok2 && ra.Cmp(rb) == 0
}

func (v *validator) checkString(n *schemaNode, s, path string) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			v.add(path, "must be at least %d characters long; got %d", n.minLength, l)
		}
		if n.maxLength >= 0 && l > n.maxLength {
			v.add(path, "must be at most %d characters long; got %d", n.maxLength, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		v.add(path, "must match the pattern %s; got %s", n.patternSrc, showValue(s))
	}
	if n.format != "" {
		if want := checkFormat(n.format, s); want != "" {
			v.add(path, "must be %s; got %s", want, showValue(s))
		}
	}
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// checkFormat returns a description of the expected format when s does not
// have it, or "" when it does or the format is not asserted.
func checkFormat(format, s string) string {
	switch format {
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "a date formatted YYYY-MM-DD, e.g. 2026-01-31"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, strings.ToUpper(s)); err != nil {
			return "an RFC 3339 date-time, e.g. 2026-01-31T09:30:00Z"
		}
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return "an email address, e.g. user@example.com"
		}
	case "uuid":
		if !uuidRE.MatchString(s) {
			return "a UUID, e.g. 123e4567-e89b-12d3-a456-426614174000"
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return "an absolute URI, e.g. https://example.com/path"
		}
	}
	return ""
}

func (v *validator) checkNumber(n *schemaNode, num json.Number, path string) {
	if n.minimum != nil || n.maximum != nil || n.exclMin != nil || n.exclMax != nil {
		f, err := num.Float64()
		if err != nil {
			v.add(path, "must be a finite number; got %s", num)
			return
		}
		if n.minimum != nil && f < *n.minimum {
			v.add(path, "must be at least %s; got %s", fmtFloat(*n.minimum), num)
		}
		if n.maximum != nil && f > *n.maximum {
			v.add(path, "must be at most %s; got %s", fmtFloat(*n.maximum), num)
		}
		if n.exclMin != nil && f <= *n.exclMin {
			v.add(path, "must be greater than %s; got %s", fmtFloat(*n.exclMin), num)
		}
		if n.exclMax != nil && f >= *n.exclMax {
			v.add(path, "must be less than %s; got %s", fmtFloat(*n.exclMax), num)
		}
	}
	if n.multipleOf != nil {
		r, ok := new(big.Rat).SetString(num.String())
		if ok && !r.Quo(r, n.multipleOf).IsInt() {
			v.add(path, "must be a multiple of %s; got %s", n.multipleOf.RatString(), num)
		}
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func (v *validator) checkArray(n *schemaNode, arr []any, path string, depth int) {
	if n.minItems >= 0 && len(arr) < n.minItems {
		v.add(path, "must have at least %d items; got %d", n.minItems, len(arr))
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		v.add(path, "must have at most %d items; got %d", n.maxItems, len(arr))
	}
	for i, item := range arr {
		sub := n.items
		if i < len(n.prefixItems) {
			sub = n.prefixItems[i]
		}
		if sub != nil {
			v.check(sub, item, path+"["+strconv.Itoa(i)+"]", depth+1)
		}
	}
	if n.uniqueItems {
		seen := make(map[string]int, len(arr))
		for i, item := range arr {
			key := canonicalJSON(item)
			if j, dup := seen[key]; dup {
				v.add(path, "must not contain duplicates; items %d and %d are equal", j, i)
				return
			}
			seen[key] = i
		}
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
	switch x := value.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(x.String()); ok {
			buf.WriteString(r.RatString())
			return
		}
		buf.WriteString(x.String())
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

func (v *validator) checkObject(n *schemaNode, obj map[string]any, path string, depth int) {
	for _, r := range n.required {
		if _, ok := obj[r]; !ok {
			v.add(joinPath(path, r), "is required but missing%s", exampleHint(n.properties[r]))
		}
	}
	if n.minProps >= 0 && len(obj) < n.minProps {
		v.add(path, "must have at least %d properties; got %d", n.minProps, len(obj))
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		v.add(path, "must have at most %d properties; got %d", n.maxProps, len(obj))
	}
	// Iterate in a stable order so messages do not flicker between calls.
	for _, k := range sortedKeys(obj) {
		if sub, ok := n.properties[k]; ok {
			v.check(sub, obj[k], joinPath(path, k), depth+1)
			continue
		}
		if n.additional == nil {
			continue
		}
		if n.additional.alwaysFalse {
			v.add(joinPath(path, k), "is not an allowed property%s", n.allowedHint(k))
			continue
		}
		v.check(n.additional, obj[k], joinPath(path, k), depth+1)
	}
}

// allowedHint suggests the closest declared property and lists them all.
func (n *schemaNode) allowedHint(k string) string {
	if len(n.propNames) == 0 {
		return "; this tool takes no such input"
	}
	hint := ""
	if best := closestName(k, n.propNames); best != "" {
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

// closestName returns the candidate within a small edit distance of k,
// ignoring case, or "".
func closestName(k string, candidates []string) string {
	best, bestD := "", 3
	lk := strings.ToLower(k)
	for _, c := range candidates {
		if d := editDistance(lk, strings.ToLower(c)); d < bestD {
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

func (v *validator) checkComposition(n *schemaNode, value any, path string, depth int) {
	for _, s := range n.allOf {
		v.check(s, value, path, depth+1)
	}
	if len(n.anyOf) > 0 {
		if matched, best := matchCount(n.anyOf, value, path, depth, 1); matched == 0 {
			v.add(path, "does not match any of the %d allowed forms%s", len(n.anyOf), best)
		}
	}
	if len(n.oneOf) > 0 {
		matched, best := matchCount(n.oneOf, value, path, depth, 2)
		switch {
		case matched == 0:
			v.add(path, "does not match any of the %d allowed forms%s", len(n.oneOf), best)
		case matched > 1:
			v.add(path, "matches more than one of the allowed forms; make it match exactly one")
		}
	}
	if n.not != nil {
		sub := &validator{}
		sub.check(n.not, value, path, depth+1)
		if !sub.failed() {
			v.add(path, "has a form that is not allowed; got %s", showValue(value))
		}
	}
}

// matchCount counts the branches value satisfies, stopping at limit. When
// none match, best describes the closest branch's first problem.
func matchCount(branches []*schemaNode, value any, path string, depth, limit int) (int, string) {
	matched, bestN, best := 0, 1<<30, ""
	for _, b := range branches {
		sub := &validator{}
		sub.check(b, value, path, depth+1)
		if !sub.failed() {
			if matched++; matched >= limit {
				return matched, ""
			}
			continue
		}
		if n := len(sub.out) + sub.extra; n < bestN {
			bestN, best = n, fmt.Sprintf(" (closest form: %s)", sub.out[0].text())
		}
	}
	return matched, best
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
	switch n.format {
	case "date":
		return "2026-01-31", true
	case "date-time":
		return "2026-01-31T09:30:00Z", true
	case "email":
		return "user@example.com", true
	case "uuid":
		return "123e4567-e89b-12d3-a456-426614174000", true
	case "uri":
		return "https://example.com/path", true
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
