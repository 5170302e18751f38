package emit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// CallTestsFile is the generated test with each tool's call cases; it is
// left out when ir.Server.NoCallTests is set.
const CallTestsFile = "oa2mcp_calls_test.go"

// callCase holds the arguments of one tool's generated calls, as JSON.
// Normal is empty when no valid input could be synthesised (a pattern
// without example, say): then only the invalid case runs.
type callCase struct {
	tool                      string
	normal, boundary, invalid string
	// lenient: the tool aggregates several calls or shapes its output, so
	// a stub upstream answering {} may legitimately make it fail; only a
	// protocol-level answer is checked for the normal cases.
	lenient bool
}

// callTestsFile renders oa2mcp_calls_test.go: for every tool, a normal
// and a boundary input (both must succeed against a stub upstream and
// reach it), an invalid input (must fail without reaching it) and the
// normal input against an upstream answering 500 (must fail).
func callTestsFile(srv *ir.Server) *jen.File {
	f := newFile(srv, srv.Package)
	f.ImportName("net/http/httptest", "httptest")
	f.Comment("oa2mcpCallCases lists each tool's generated inputs as JSON; rerun them with")
	f.Comment("go test after every change of a description or schema.")
	var rows []jen.Code
	for _, t := range srv.Tools {
		c := synthCase(t)
		rows = append(rows, jen.Values(jen.Id(t.GoName), jsonLit(c.normal), jsonLit(c.boundary), jsonLit(c.invalid), jen.Lit(c.lenient)))
	}
	f.Var().Id("oa2mcpCallCases").Op("=").Index().Struct(
		jen.Id("spec").Op("*").Id("toolSpec"),
		jen.List(jen.Id("normal"), jen.Id("boundary"), jen.Id("invalid")).String(),
		jen.Id("lenient").Bool(),
	).Custom(multi, rows...)
	f.Line()
	f.Comment("oa2mcpTestCredentials answers Options.Getenv for the credential variables,")
	f.Comment("so calls carry credentials without touching the real environment.")
	var creds []jen.Code
	for _, s := range srv.Security {
		for _, env := range []string{s.EnvVar, s.PasswordEnv} {
			if env != "" {
				creds = append(creds, jen.Lit(env).Op(":").Lit("oa2mcp-test-credential"))
			}
		}
	}
	f.Var().Id("oa2mcpTestCredentials").Op("=").Map(jen.String()).String().Custom(multi, creds...)
	f.Line()
	callTestFuncs(f)
	return f
}

func jsonLit(s string) jen.Code {
	if s == "" {
		return jen.Lit("")
	}
	return rawString(s)
}

// callTestFuncs renders the test driver. Each tool gets its own server
// (serving only that tool, so start-up stays cheap on big APIs), its own
// stub upstream and in-memory MCP session; tools run concurrently, which
// overlaps the runtime's retry back-off on the failure case.
func callTestFuncs(f *jen.File) {
	t := jen.Id("t")
	f.Comment("TestOA2MCPCallCases runs every tool's generated calls through an MCP client")
	f.Comment("over the in-memory transport against a stub upstream.")
	f.Func().Id("TestOA2MCPCallCases").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Id("sem").Op(":=").Make(jen.Chan().Struct(), jen.Lit(32)),
		jen.Var().Id("wg").Qual("sync", "WaitGroup"),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("oa2mcpCallCases")).Block(
			jen.Id("wg").Dot("Add").Call(jen.Lit(1)),
			jen.Id("sem").Op("<-").Struct().Values(),
			jen.Go().Func().Params().Block(
				jen.Defer().Func().Params().Block(jen.Op("<-").Id("sem"), jen.Id("wg").Dot("Done").Call()).Call(),
				jen.Id("oa2mcpRunTool").Call(t.Clone(), jen.Id("c").Dot("spec"), jen.Id("c").Dot("normal"), jen.Id("c").Dot("boundary"), jen.Id("c").Dot("invalid"), jen.Id("c").Dot("lenient")),
			).Call(),
		),
		jen.Id("wg").Dot("Wait").Call(),
	)
	f.Line()
	f.Comment("oa2mcpRunTool runs one tool's cases. It runs on its own goroutine, so it")
	f.Comment("reports with t.Errorf only.")
	f.Func().Id("oa2mcpRunTool").Params(
		jen.Id("t").Op("*").Qual("testing", "T"), jen.Id("spec").Op("*").Id("toolSpec"),
		jen.List(jen.Id("normal"), jen.Id("boundary"), jen.Id("invalid")).String(), jen.Id("lenient").Bool(),
	).Block(
		jen.Var().List(jen.Id("status"), jen.Id("calls")).Qual("sync/atomic", "Int64"),
		jen.Id("hs").Op(":=").Qual("net/http/httptest", "NewServer").Call(jen.Qual("net/http", "HandlerFunc").Call(
			jen.Func().Params(jen.Id("w").Qual("net/http", "ResponseWriter"), jen.Id("r").Op("*").Qual("net/http", "Request")).Block(
				jen.Id("calls").Dot("Add").Call(jen.Lit(1)),
				jen.Id("code").Op(":=").Int().Call(jen.Id("status").Dot("Load").Call()),
				jen.Id("w").Dot("Header").Call().Dot("Set").Call(jen.Lit("Content-Type"), jen.Lit("application/json")),
				jen.Id("w").Dot("WriteHeader").Call(jen.Id("code")),
				jen.If(jen.Id("code").Op(">=").Lit(400)).Block(
					jen.Qual("io", "WriteString").Call(jen.Id("w"), jen.Lit(`{"message":"simulated upstream failure"}`)),
					jen.Return(),
				),
				jen.Qual("io", "WriteString").Call(jen.Id("w"), jen.Lit(`{}`)),
			))),
		jen.Defer().Id("hs").Dot("Close").Call(),
		jen.Id("def").Op(":=").Id("serverDefinition"),
		jen.Id("def").Dot("Tools").Op("=").Index().Op("*").Id("toolSpec").Values(jen.Id("spec")),
		jen.List(jen.Id("srv"), jen.Err()).Op(":=").Id("newServer").Call(jen.Op("&").Id("def"), jen.Id("Options").Values(jen.Dict{
			jen.Id("BaseURL"): jen.Id("hs").Dot("URL"),
			jen.Id("Getenv"):  jen.Func().Params(jen.Id("k").String()).String().Block(jen.Return(jen.Id("oa2mcpTestCredentials").Index(jen.Id("k")))),
		})),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			t.Clone().Dot("Errorf").Call(jen.Lit("%s: %v"), jen.Id("spec").Dot("Name"), jen.Err()),
			jen.Return(),
		),
		jen.List(jen.Id("ctx"), jen.Id("cancel")).Op(":=").Qual("context", "WithTimeout").Call(jen.Qual("context", "Background").Call(), jen.Lit(60).Op("*").Qual("time", "Second")),
		jen.Defer().Id("cancel").Call(),
		jen.List(jen.Id("ct"), jen.Id("st")).Op(":=").Qual(mcpPath, "NewInMemoryTransports").Call(),
		jen.List(jen.Id("ss"), jen.Err()).Op(":=").Id("srv").Dot("MCPServer").Call().Dot("Connect").Call(jen.Id("ctx"), jen.Id("st"), jen.Nil()),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			t.Clone().Dot("Errorf").Call(jen.Lit("%s: %v"), jen.Id("spec").Dot("Name"), jen.Err()),
			jen.Return(),
		),
		jen.Defer().Id("ss").Dot("Close").Call(),
		jen.Id("client").Op(":=").Qual(mcpPath, "NewClient").Call(jen.Op("&").Qual(mcpPath, "Implementation").Values(jen.Dict{
			jen.Id("Name"): jen.Lit("oa2mcp-call-cases"), jen.Id("Version"): jen.Lit("1"),
		}), jen.Nil()),
		jen.List(jen.Id("cs"), jen.Err()).Op(":=").Id("client").Dot("Connect").Call(jen.Id("ctx"), jen.Id("ct"), jen.Nil()),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			t.Clone().Dot("Errorf").Call(jen.Lit("%s: %v"), jen.Id("spec").Dot("Name"), jen.Err()),
			jen.Return(),
		),
		jen.Defer().Id("cs").Dot("Close").Call(),
		jen.Id("call").Op(":=").Func().Params(jen.Id("kind"), jen.Id("args").String(), jen.Id("code").Int(), jen.List(jen.Id("wantError"), jen.Id("wantUpstream")).Bool()).Block(
			jen.Id("status").Dot("Store").Call(jen.Int64().Call(jen.Id("code"))),
			jen.Id("calls").Dot("Store").Call(jen.Lit(0)),
			jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("cs").Dot("CallTool").Call(jen.Id("ctx"), jen.Op("&").Qual(mcpPath, "CallToolParams").Values(jen.Dict{
				jen.Id("Name"): jen.Id("spec").Dot("Name"), jen.Id("Arguments"): jen.Qual("encoding/json", "RawMessage").Call(jen.Id("args")),
			})),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				t.Clone().Dot("Errorf").Call(jen.Lit("%s %s: protocol error %v for arguments %s"), jen.Id("spec").Dot("Name"), jen.Id("kind"), jen.Err(), jen.Id("args")),
				jen.Return(),
			),
			jen.If(jen.Id("lenient").Op("&&").Id("kind").Op("!=").Lit("invalid")).Block(jen.Return()),
			jen.If(jen.Id("res").Dot("IsError").Op("!=").Id("wantError")).Block(
				t.Clone().Dot("Errorf").Call(jen.Lit("%s %s: isError=%v, want %v, for arguments %s: %s"), jen.Id("spec").Dot("Name"), jen.Id("kind"), jen.Id("res").Dot("IsError"), jen.Id("wantError"), jen.Id("args"), jen.Id("oa2mcpText").Call(jen.Id("res"))),
			),
			jen.If(jen.Id("reached").Op(":=").Id("calls").Dot("Load").Call().Op(">").Lit(0), jen.Id("reached").Op("!=").Id("wantUpstream")).Block(
				t.Clone().Dot("Errorf").Call(jen.Lit("%s %s: upstream reached=%v, want %v, for arguments %s"), jen.Id("spec").Dot("Name"), jen.Id("kind"), jen.Id("reached"), jen.Id("wantUpstream"), jen.Id("args")),
			),
		),
		jen.Id("call").Call(jen.Lit("invalid"), jen.Id("invalid"), jen.Lit(200), jen.True(), jen.False()),
		jen.If(jen.Id("normal").Op("==").Lit("")).Block(
			jen.Comment("No valid input could be synthesised from the schema."),
			jen.Return(),
		),
		jen.Id("call").Call(jen.Lit("normal"), jen.Id("normal"), jen.Lit(200), jen.False(), jen.True()),
		jen.Id("call").Call(jen.Lit("boundary"), jen.Id("boundary"), jen.Lit(200), jen.False(), jen.True()),
		jen.Id("call").Call(jen.Lit("upstream failure"), jen.Id("normal"), jen.Lit(500), jen.True(), jen.True()),
	)
	f.Line()
	f.Comment("oa2mcpText joins a result's text content.")
	f.Func().Id("oa2mcpText").Params(jen.Id("res").Op("*").Qual(mcpPath, "CallToolResult")).String().Block(
		jen.Var().Id("b").Qual("strings", "Builder"),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("res").Dot("Content")).Block(
			jen.If(jen.List(jen.Id("tc"), jen.Id("ok")).Op(":=").Id("c").Assert(jen.Op("*").Qual(mcpPath, "TextContent")), jen.Id("ok")).Block(
				jen.Id("b").Dot("WriteString").Call(jen.Id("tc").Dot("Text")),
			),
		),
		jen.Return(jen.Id("b").Dot("String").Call()),
	)
}

// synthCase synthesises one tool's inputs from its input schema.
func synthCase(t ir.Tool) callCase {
	c := callCase{tool: t.Name, lenient: len(t.Steps) > 0 || len(t.Actions) > 0 || t.Call.Method == "" || t.OutputSchema != ""}
	root, ok := decodeSchema(t.InputSchema)
	if !ok {
		c.invalid = "[]"
		return c
	}
	s := &synth{defs: mapOf(root["$defs"])}
	normal, ok := s.object(root, false, 0, true)
	ok = ok && s.ensureBody(t.Call.Body, root, normal, false)
	if ok {
		c.normal = encodeArgs(normal)
		boundary, ok := s.object(root, true, 0, true)
		if ok && s.ensureBody(t.Call.Body, root, boundary, true) {
			c.boundary = encodeArgs(boundary)
		} else {
			c.boundary = c.normal
		}
	}
	c.invalid = encodeArgs(s.invalid(root, normal))
	return c
}

// ensureBody adds one flattened body field when the body is required
// and args has none: the runtime refuses to send an empty required body.
func (s *synth) ensureBody(b *ir.Body, root, args map[string]any, boundary bool) bool {
	if b == nil || !b.Required || len(b.Fields) == 0 {
		return true
	}
	for _, f := range b.Fields {
		if _, ok := args[f.Arg]; ok {
			return true
		}
	}
	props := mapOf(root["properties"])
	for _, f := range b.Fields {
		if p := mapOf(props[f.Arg]); p != nil {
			if v, ok := s.value(p, boundary, 1); ok {
				args[f.Arg] = v
				return true
			}
		}
	}
	return false
}

func decodeSchema(text string) (map[string]any, bool) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{"type": "object"}, true
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil || root == nil {
		return nil, false
	}
	return root, true
}

func encodeArgs(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// synth builds values that satisfy a schema: examples, defaults, enums
// and formats first, then the smallest value the type and bounds allow.
// In boundary mode lengths, sizes and numbers sit on their bounds.
type synth struct {
	defs map[string]any
}

const maxSynthDepth = 8

// resolve follows $ref and merges allOf into one schema.
func (s *synth) resolve(m map[string]any) map[string]any {
	for i := 0; i < 16; i++ {
		ref, _ := m["$ref"].(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		if !ok {
			break
		}
		next := mapOf(s.defs[name])
		if next == nil {
			return map[string]any{"not": map[string]any{}}
		}
		m = next
	}
	arms, _ := m["allOf"].([]any)
	if len(arms) == 0 {
		return m
	}
	merged := map[string]any{}
	for k, v := range m {
		if k != "allOf" {
			merged[k] = v
		}
	}
	props, required := map[string]any{}, []any{}
	for k, v := range mapOf(merged["properties"]) {
		props[k] = v
	}
	required = append(required, asList(merged["required"])...)
	for _, a := range arms {
		r := s.resolve(mapOf(a))
		for k, v := range r {
			switch k {
			case "properties":
				for pk, pv := range mapOf(v) {
					props[pk] = pv
				}
			case "required":
				required = append(required, asList(v)...)
			default:
				if _, ok := merged[k]; !ok {
					merged[k] = v
				}
			}
		}
	}
	if len(props) > 0 {
		merged["properties"] = props
	}
	if len(required) > 0 {
		merged["required"] = required
	}
	return merged
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// value synthesises a value for schema m.
func (s *synth) value(raw map[string]any, boundary bool, depth int) (any, bool) {
	if depth > maxSynthDepth || raw == nil {
		return nil, false
	}
	m := s.resolve(raw)
	if _, ok := m["not"]; ok {
		return nil, false
	}
	if v, ok := m["const"]; ok {
		return v, true
	}
	if enum := asList(m["enum"]); len(enum) > 0 {
		for _, v := range enum {
			if v != nil {
				return v, true
			}
		}
	}
	if !boundary {
		if v, ok := m["default"]; ok && v != nil && s.fits(m, v) {
			return v, true
		}
		for _, ex := range asList(m["examples"]) {
			if s.fits(m, ex) {
				return ex, true
			}
		}
	}
	if v, ok, handled := s.union(m, boundary, depth); handled {
		return v, ok
	}
	switch typeOf(m) {
	case "string":
		return stringValue(m, boundary)
	case "integer", "number":
		return numberValue(m, boundary, typeOf(m) == "integer")
	case "boolean":
		return true, true
	case "array":
		return s.array(m, boundary, depth)
	case "object":
		return s.object(m, boundary, depth, false)
	case "null":
		return nil, true
	}
	return "example", true
}

// union picks the first anyOf/oneOf arm that yields a value. oneOf arms
// must have types no other arm has, so the value matches exactly one.
func (s *synth) union(m map[string]any, boundary bool, depth int) (any, bool, bool) {
	for _, key := range []string{"anyOf", "oneOf"} {
		arms := asList(m[key])
		if len(arms) == 0 {
			continue
		}
		counts := map[string]int{}
		for _, a := range arms {
			counts[typeOf(s.resolve(mapOf(a)))]++
		}
		own := typeOf(m) != ""
		if own && key == "oneOf" && len(arms) > 1 {
			// Untyped arms of a typed schema: no way to be sure a value
			// matches exactly one of them.
			return nil, false, true
		}
		for _, a := range arms {
			am := s.resolve(mapOf(a))
			if own {
				// The arms add constraints to a typed schema: merge each
				// into it, as allOf would.
				base := map[string]any{}
				for k, v := range m {
					if k != key {
						base[k] = v
					}
				}
				am = s.resolve(map[string]any{"allOf": []any{base, am}})
			} else if key == "oneOf" && (typeOf(am) == "" || counts[typeOf(am)] > 1) {
				continue
			}
			if typeOf(am) == "null" {
				continue
			}
			if v, ok := s.value(am, boundary, depth+1); ok {
				return v, true, true
			}
		}
		return nil, false, true
	}
	return nil, false, false
}

func typeOf(m map[string]any) string {
	if t, ok := m["type"].(string); ok {
		return t
	}
	if _, ok := m["properties"]; ok {
		return "object"
	}
	if _, ok := m["items"]; ok {
		return "array"
	}
	return ""
}

// fits does a light check that a spec-provided example or default obeys
// the schema's type, enum, bounds and pattern; the runtime would reject
// it otherwise.
func (s *synth) fits(m map[string]any, v any) bool {
	switch typeOf(m) {
	case "string":
		str, ok := v.(string)
		return ok && stringOK(m, str)
	case "integer", "number":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		if err != nil || (typeOf(m) == "integer" && f != math.Trunc(f)) {
			return false
		}
		lo, hi := bounds(m)
		_, mult := m["multipleOf"]
		return f >= lo && f <= hi && !mult
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	// Arrays and objects: accept only when nothing constrains them deeply.
	return false
}

// formatValues are valid examples of the formats the runtime checks and
// a few more.
var formatValues = map[string]string{
	"date": "2026-01-31", "date-time": "2026-01-31T09:30:00Z", "time": "09:30:00Z",
	"email": "user@example.com", "uuid": "123e4567-e89b-12d3-a456-426614174000",
	"uri": "https://example.com/x", "url": "https://example.com/x", "uri-reference": "https://example.com/x",
	"hostname": "example.com", "ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "byte": "aGVsbG8=",
	"duration": "P1D",
}

// stringCandidates are tried in order against patterns and lengths.
var stringCandidates = []string{"example", "a", "x1", "A", "1", "abc123", "example-1", "Example"}

func stringValue(m map[string]any, boundary bool) (any, bool) {
	minL, maxL := intKey(m, "minLength", 0), intKey(m, "maxLength", -1)
	if v, ok := formatValues[stringKey(m, "format")]; ok && stringOK(m, v) {
		return v, true
	}
	if boundary {
		switch {
		case maxL >= 0 && maxL <= 256:
			if v := strings.Repeat("x", maxL); stringOK(m, v) {
				return v, true
			}
		case minL > 0:
			if v := strings.Repeat("x", minL); stringOK(m, v) {
				return v, true
			}
		}
	}
	if v, ok := patternValue(stringKey(m, "pattern")); ok && stringOK(m, v) {
		return v, true
	}
	for _, c := range stringCandidates {
		if len(c) < minL {
			c += strings.Repeat("x", minL-len(c))
		}
		if maxL >= 0 && len(c) > maxL {
			c = c[:maxL]
		}
		if stringOK(m, c) {
			return c, true
		}
	}
	return nil, false
}

// patternValue builds the shortest plain string a simple pattern
// accepts: literals, classes (their first character), repeats at their
// minimum, the first alternative. stringOK checks the result.
func patternValue(pattern string) (string, bool) {
	if pattern == "" {
		return "", false
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	var b strings.Builder
	if !writePattern(&b, re.Simplify(), 0) || b.Len() > 512 {
		return "", false
	}
	return b.String(), true
}

func writePattern(b *strings.Builder, re *syntax.Regexp, depth int) bool {
	if depth > 32 {
		return false
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return false
		}
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture, syntax.OpPlus:
		return writePattern(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for i := 0; i < re.Min; i++ {
			if !writePattern(b, re.Sub[0], depth+1) {
				return false
			}
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !writePattern(b, sub, depth+1) {
				return false
			}
		}
	case syntax.OpAlternate:
		return writePattern(b, re.Sub[0], depth+1)
	case syntax.OpStar, syntax.OpQuest, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
	default:
		return false
	}
	return true
}

// classRune picks a readable character of a class: a letter or digit
// when the class has one, else its first character.
func classRune(ranges []rune) rune {
	for _, want := range []rune{'a', 'A', '0', 'x'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	return ranges[0]
}

func stringOK(m map[string]any, v string) bool {
	n := len([]rune(v))
	if n < intKey(m, "minLength", 0) || (intKey(m, "maxLength", -1) >= 0 && n > intKey(m, "maxLength", -1)) {
		return false
	}
	if p := stringKey(m, "pattern"); p != "" {
		re, err := regexp.Compile(p)
		if err != nil || !re.MatchString(v) {
			return false
		}
	}
	return formatOK(stringKey(m, "format"), v)
}

// formatChecks accept values of the formats the runtime asserts; a spec
// example failing them is not used.
var formatChecks = map[string]*regexp.Regexp{
	"date":      regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`),
	"date-time": regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$`),
	"email":     regexp.MustCompile(`^[^@\s<>]+@[^@\s<>]+\.[a-z]+$`),
	"uuid":      regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`),
	"uri":       regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://\S+$`),
}

func formatOK(format, v string) bool {
	re, ok := formatChecks[format]
	return !ok || re.MatchString(v)
}

// bounds returns the inclusive range a number must lie in; exclusive
// bounds are approximated by one unit (integers) or a small step.
func bounds(m map[string]any) (float64, float64) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if v, ok := numKey(m, "minimum"); ok {
		lo = v
	}
	if v, ok := numKey(m, "maximum"); ok {
		hi = v
	}
	if v, ok := numKey(m, "exclusiveMinimum"); ok && v+1 > lo {
		lo = v + 1
	}
	if v, ok := numKey(m, "exclusiveMaximum"); ok && v-1 < hi {
		hi = v - 1
	}
	return lo, hi
}

func numberValue(m map[string]any, boundary, integer bool) (any, bool) {
	lo, hi := bounds(m)
	v := 1.0
	switch {
	case boundary && !math.IsInf(hi, 1):
		v = hi
	case boundary && !math.IsInf(lo, -1):
		v = lo
	case v < lo:
		v = lo
	case v > hi:
		v = hi
	}
	if mult, ok := numKey(m, "multipleOf"); ok && mult > 0 {
		v = math.Ceil(v/mult) * mult
		if v > hi {
			v -= mult
		}
	}
	if integer {
		v = math.Ceil(v)
		if v > hi {
			return nil, false
		}
	}
	if v < lo || v > hi || math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 1e15 {
		return nil, false
	}
	return json.Number(fmt.Sprint(v)), true
}

func (s *synth) array(m map[string]any, boundary bool, depth int) (any, bool) {
	minI, maxI := intKey(m, "minItems", 0), intKey(m, "maxItems", -1)
	n := 1
	switch {
	case boundary && maxI >= 0 && maxI <= 5:
		n = maxI
	case n < minI:
		n = minI
	case maxI >= 0 && n > maxI:
		n = maxI
	}
	if n > 16 {
		return nil, false
	}
	items := mapOf(m["items"])
	if items == nil {
		items = map[string]any{}
	}
	out := make([]any, 0, n)
	if n == 0 {
		return out, true
	}
	v, ok := s.value(items, boundary, depth+1)
	if !ok {
		return nil, false
	}
	if n > 1 && m["uniqueItems"] == true {
		enum := asList(s.resolve(items)["enum"])
		if len(enum) < n {
			return nil, false
		}
		return append(out, enum[:n]...), true
	}
	for i := 0; i < n; i++ {
		out = append(out, v)
	}
	return out, true
}

// object fills the required properties (and, at the top level of the
// normal case, optional ones the spec gives a value for).
func (s *synth) object(m map[string]any, boundary bool, depth int, top bool) (map[string]any, bool) {
	m = s.resolve(m)
	props := mapOf(m["properties"])
	required := map[string]bool{}
	for _, r := range asList(m["required"]) {
		if name, ok := r.(string); ok {
			required[name] = true
		}
	}
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]any{}
	for _, n := range names {
		p := s.resolve(mapOf(props[n]))
		if !required[n] && !(top && hasGivenValue(p)) && !(top && boundary && hasBounds(p)) {
			continue
		}
		v, ok := s.value(mapOf(props[n]), boundary, depth+1)
		if !ok {
			if required[n] {
				return nil, false
			}
			continue
		}
		out[n] = v
	}
	for n := range required {
		if _, ok := props[n]; !ok {
			// Required but undeclared: nothing to synthesise from.
			return nil, false
		}
	}
	if len(out) < intKey(m, "minProperties", 0) {
		return nil, false
	}
	return out, true
}

func hasGivenValue(m map[string]any) bool {
	for _, k := range []string{"examples", "default", "enum", "const"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

func hasBounds(m map[string]any) bool {
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"} {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// invalid returns arguments the server must reject before calling the
// upstream: the normal input without its first required property, else
// with a property of the wrong type, else with an unknown property.
func (s *synth) invalid(root map[string]any, normal map[string]any) any {
	args := map[string]any{}
	for k, v := range normal {
		args[k] = v
	}
	var required []string
	for _, r := range asList(root["required"]) {
		if n, ok := r.(string); ok {
			required = append(required, n)
		}
	}
	sort.Strings(required)
	if len(required) > 0 {
		delete(args, required[0])
		return args
	}
	props := mapOf(root["properties"])
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if wrong, ok := wrongType(typeOf(s.resolve(mapOf(props[n])))); ok {
			args[n] = wrong
			return args
		}
	}
	if root["additionalProperties"] == false {
		args["oa2mcp_unknown_property"] = true
		return args
	}
	return []any{"not an object"}
}

func wrongType(t string) (any, bool) {
	switch t {
	case "string":
		return json.Number("12345"), true
	case "integer", "number", "boolean", "array", "object":
		return "not-a-" + t, true
	}
	return nil, false
}

func intKey(m map[string]any, key string, def int) int {
	if v, ok := numKey(m, key); ok {
		return int(v)
	}
	return def
}

func numKey(m map[string]any, key string) (float64, bool) {
	switch v := m[key].(type) {
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case float64:
		return v, true
	}
	return 0, false
}

func stringKey(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
