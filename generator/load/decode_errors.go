package load

import (
	"regexp"
	"strings"
	"sync"
	"unicode"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Decode errors come from kin-openapi's YAML and JSON decoders, which
// speak of the Go types they fill ("cannot construct !!bool `true` into
// []string", "cannot unmarshal string into Go struct field
// Schema.properties of type openapi3.Schema"). These functions say the
// same in the words of the document: which key, what it must hold, what
// it holds.

var (
	constructRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("^cannot (?:construct|unmarshal) (!!\\w+)(?: `([^`]*)`)? (?:into|as a) (.+)$")
	})
	jsonTypeRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:json: )?cannot unmarshal (\w+) into Go (?:struct field (\S+) of type|value of type) (.+)$`)
	})
	notFoundRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type (.+)$`) })
	goTypeRe   = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\*?(?:openapi[23]|yaml|json)\.\w+|\[\](?:interface \{\}|[\w.*]+)|map\[[^\]]+\](?:interface \{\}|[\w.*]+)|interface \{\}`)
	})
)

// decodeProblem is one decode error in the document's words.
type decodeProblem struct {
	msg, fix string
	// pointer is the JSON pointer of the offending value in its file,
	// when the decoder said it.
	pointer string
}

const defaultDecodeFix = "fix this value so that it has the type OpenAPI expects"

// describeDecodeError rewords one decoder message.
func describeDecodeError(text string) decodeProblem {
	text = strings.TrimSpace(strings.TrimPrefix(text, "yaml: "))
	if m := constructRe().FindStringSubmatch(text); m != nil {
		goType, ptr := m[3], ""
		if i := strings.LastIndex(goType, " in /"); i >= 0 {
			goType, ptr = goType[:i], goType[i+len(" in "):]
		}
		goType = strings.TrimSuffix(goType, " (TextUnmarshaler)")
		return wrongKind(lastToken(ptr), typeWords(goType), tagWords(m[1], m[2]), ptr)
	}
	if m := jsonTypeRe().FindStringSubmatch(text); m != nil {
		field := m[2]
		if i := strings.LastIndexByte(field, '.'); i >= 0 {
			field = field[i+1:]
		}
		return wrongKind(field, typeWords(m[3]), jsonKindWords(m[1]), "")
	}
	if m := notFoundRe().FindStringSubmatch(text); m != nil {
		return decodeProblem{msg: "unknown field " + quote(m[1]), fix: "remove it, or prefix it with x- to make it an extension"}
	}
	return decodeProblem{msg: scrubGoTypes(text), fix: defaultDecodeFix}
}

// wrongKind words a value of the wrong kind under key.
func wrongKind(key, want, found, ptr string) decodeProblem {
	p := decodeProblem{fix: defaultDecodeFix, pointer: ptr}
	if key == "" {
		p.msg = "expected " + want + ", found " + found
		return p
	}
	p.msg = quote(key) + " must be " + want + ", not " + found
	if key == "required" && want == "a list of strings" {
		p.msg = quote(key) + " must be a list of property names, not " + found
		p.fix = `list required properties by name in the "required" of the object that has them`
	}
	return p
}

// lastToken is the last key of a JSON pointer.
func lastToken(ptr string) string {
	toks := pointerTokens(ptr)
	if len(toks) == 0 {
		return ""
	}
	return toks[len(toks)-1]
}

// tagWords names a YAML node by its tag and (shortened) value.
func tagWords(tag, value string) string {
	switch tag {
	case "!!bool":
		return value
	case "!!str":
		return "the text " + quote(value)
	case "!!int", "!!float":
		return "the number " + value
	case "!!map":
		return "a mapping"
	case "!!seq":
		return "a list"
	case "!!null":
		return "null"
	}
	return "a value of another kind"
}

// jsonKindWords names the JSON value kinds encoding/json reports.
func jsonKindWords(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "object":
		return "a mapping"
	case "array":
		return "a list"
	}
	return "a value of another kind"
}

// typeWords names what a Go type of the OpenAPI model holds.
func typeWords(goType string) string {
	t := strings.TrimLeft(strings.TrimSpace(goType), "*")
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"), strings.HasPrefix(t, "float"):
		return "a number"
	case t == "interface {}", t == "any":
		return "a value"
	case t == "[]string":
		return "a list of strings"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return modelWords(t[i+1:])
	}
	return "a value of another kind"
}

// modelNames are the kin-openapi model types whose name alone does not
// say what they hold.
var modelNames = map[string]string{
	"Schema":               "a schema (a mapping)",
	"SchemaRef":            "a schema (a mapping)",
	"SchemaRefs":           "a list of schemas",
	"Types":                "a type name or a list of them",
	"ExclusiveBound":       "a number (or true or false in OpenAPI 3.0)",
	"AdditionalProperties": "a schema, or true or false",
	"Paths":                "a mapping of paths",
	"Responses":            "a mapping of responses by status",
	"ResponseBodies":       "a mapping of responses by name",
	"Callbacks":            "a mapping of callbacks",
	"Content":              "a mapping of media types",
	"Examples":             "a mapping of examples",
	"Headers":              "a mapping of headers",
	"Links":                "a mapping of links",
	"Schemas":              "a mapping of schemas",
	"SecuritySchemes":      "a mapping of security schemes",
	"RequestBodies":        "a mapping of request bodies",
	"ParametersMap":        "a mapping of parameters",
	"Encodings":            "a mapping of encodings",
	"Parameters":           "a list of parameters",
	"Tags":                 "a list of tags",
	"Servers":              "a list of servers",
	"SecurityRequirements": "a list of security requirements",
}

// modelWords names a kin-openapi model type: "RequestBodyRef" is a
// request body object.
func modelWords(name string) string {
	if w, ok := modelNames[name]; ok {
		return w
	}
	return oa2mcpimpl.WithArticle(strings.ToLower(splitCamel(strings.TrimSuffix(name, "Ref"))) + " object")
}

// splitCamel turns "RequestBody" into "Request Body".
func splitCamel(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// scrubGoTypes replaces any Go type name left in a message by words.
func scrubGoTypes(msg string) string {
	return goTypeRe().ReplaceAllStringFunc(msg, typeWords)
}
