package mapping

import (
	"fmt"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// Description limits keep tools/list small: the model reads every byte of
// every tool on every turn.
const (
	maxToolDescription = 900
	maxSpecProse       = 500
	maxListedFields    = 6
	maxListedParams    = 6
)

// maxSummaryDepth bounds typeSummary on recursive schemas (an array of
// itself, allOf cycles).
const maxSummaryDepth = 4

// typeSummary names a schema's type for prose: "integer (int64)",
// "array of string", "Pet object".
func typeSummary(s *load.Schema, w *schemaWriter) string {
	return summaryAt(s, w, 0)
}

// summaryAt is typeSummary at a nesting depth.
func summaryAt(s *load.Schema, w *schemaWriter, depth int) string {
	if s == nil || depth > maxSummaryDepth {
		return "value"
	}
	if s.Ref != "" {
		r := w.resolve(s)
		if r != nil && (r.Type == "object" || isObjectLike(r, w)) {
			return s.Ref + " object"
		}
		return summaryAt(r, w, depth+1)
	}
	t := s.Type
	switch {
	case t == "" && isObjectLike(s, w):
		t = "object"
	case t == "" && len(s.Types) > 0:
		t = strings.Join(s.Types, " or ")
	case t == "" && len(s.AllOf) > 0:
		return summaryAt(s.AllOf[0], w, depth+1)
	case t == "" && len(s.OneOf)+len(s.AnyOf) > 0:
		t = alternatives(append(s.OneOf[:len(s.OneOf):len(s.OneOf)], s.AnyOf...), w, depth+1)
	case t == "":
		t = "value"
	case t == "array" && s.Items != nil:
		t = "array of " + summaryAt(s.Items, w, depth+1)
	}
	if s.Format != "" {
		t += ", " + s.Format
	}
	return t
}

// isObjectLike reports a schema without a type that is an object all the
// same: it has properties, or an allOf that makes one.
func isObjectLike(s *load.Schema, w *schemaWriter) bool {
	if len(s.Properties) > 0 {
		return true
	}
	if len(s.AllOf) == 0 {
		return false
	}
	props, _, _, ok := (&inputBuilder{w: w}).objectShape(s)
	return ok && len(props) > 0
}

// alternatives names the arms of a oneOf or anyOf: "Cat object or Dog
// object", at most three of them.
func alternatives(arms []*load.Schema, w *schemaWriter, depth int) string {
	var names []string
	seen := map[string]bool{}
	for _, a := range arms {
		n := summaryAt(a, w, depth)
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) > 3 {
		names = append(names[:3:3], "other values")
	}
	return strings.Join(names, " or ")
}

// synthDescription writes a property description when the spec has none,
// from the name, type and constraints, so every property explains itself.
func synthDescription(name string, s *load.Schema, w *schemaWriter) string {
	words := strings.ToLower(humanize(SnakeCase(name)))
	if words == "" {
		words = name
	}
	desc := fmt.Sprintf("The %s, as %s.", words, runtime.WithArticle(typeSummary(s, w)))
	if values := itemEnum(s, w); values != "" {
		// One sentence, so that the values survive when compression keeps
		// only the first sentence and drops the items' enum.
		return fmt.Sprintf("The %s, as %s, each one of: %s.", words, runtime.WithArticle(typeSummary(s, w)), values)
	}
	if r := w.resolve(s); r != nil {
		if f := formatHint(r.Format); f != "" {
			desc += " " + f
		}
		if len(r.Enum) > 0 && len(r.Enum) <= 12 {
			desc += " One of: " + enumList(r.Enum) + "."
		}
	}
	return desc
}

// itemEnum lists the values the items of an array schema may take, when
// they are few enough to read; "" otherwise.
func itemEnum(s *load.Schema, w *schemaWriter) string {
	r := w.resolve(s)
	if r == nil || r.Type != "array" {
		return ""
	}
	items := w.resolve(r.Items)
	if items == nil || len(items.Enum) == 0 || len(items.Enum) > 12 {
		return ""
	}
	return enumList(items.Enum)
}

// synthDescriptionText describes a property known only by name and type.
func synthDescriptionText(name, typ string) string {
	return fmt.Sprintf("The %s, as %s.", strings.ToLower(humanize(SnakeCase(name))), runtime.WithArticle(typ))
}

// formatHint explains common formats with an example value.
func formatHint(format string) string {
	switch format {
	case "date":
		return "Use YYYY-MM-DD, e.g. 2026-07-28."
	case "date-time":
		return "Use RFC 3339, e.g. 2026-07-28T09:30:00Z."
	case "email":
		return "An e-mail address, e.g. jane@example.com."
	case "uuid":
		return "A UUID, e.g. 3fa85f64-5717-4562-b3fc-2c963f66afa6."
	case "uri", "url":
		return "An absolute URI, e.g. https://example.com/x."
	}
	return ""
}

func enumList(values []any) string {
	parts := make([]string, 0, len(values))
	for _, v := range values {
		if v == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("%v", v))
	}
	return strings.Join(parts, ", ")
}

// toolDescription writes the description a model chooses the tool by:
// what it does (from the spec's summary and description, or derived from
// the operation), what the important inputs are, what it returns, and
// its side effects. It never describes the tool by URL or HTTP verb.
func toolDescription(op *load.Operation, notes []paramNote, w *schemaWriter) string {
	var parts []string
	summary := sentence(plainText(op.Summary))
	prose := plainText(op.Description)
	switch {
	case summary != "" && prose != "" && !strings.HasPrefix(prose, strings.TrimSuffix(summary, ".")):
		parts = append(parts, summary, clip(sentence(prose), maxSpecProse))
	case prose != "":
		parts = append(parts, clip(sentence(prose), maxSpecProse))
	case summary != "":
		parts = append(parts, summary)
	default:
		parts = append(parts, derivedPurpose(op))
	}
	if p := paramSentence(notes); p != "" {
		parts = append(parts, p)
	}
	parts = append(parts, returnsSentence(op, w))
	parts = append(parts, effectSentence(op.Method))
	if op.Deprecated {
		parts = append(parts, "Deprecated: prefer another tool for this task where one exists.")
	}
	return clip(strings.Join(nonEmpty(parts), " "), maxToolDescription)
}

// derivedPurpose says what an undocumented operation does from its
// method and path, in task words ("Delete a pet by its pet id.").
func derivedPurpose(op *load.Operation) string {
	resource, params := resourceWords(op.Path)
	by := ""
	if len(params) > 0 {
		by = " by its " + strings.Join(params, " and ")
	}
	one := len(params) > 0 && strings.HasSuffix(strings.TrimRight(op.Path, "/"), "}")
	// A path ending in a parameter names one item: "delete an
	// appointment by its id", not "delete appointments by its id".
	item := resource
	if one {
		item = runtime.WithArticle(singular(resource))
	}
	switch op.Method {
	case "GET":
		if !one {
			return sentence("list or read " + resource + by)
		}
		return sentence("get " + item + by)
	case "QUERY":
		return sentence("search " + resource + by)
	case "POST":
		return sentence("create or submit " + resource + by)
	case "PUT":
		return sentence("replace " + item + by)
	case "PATCH":
		return sentence("update " + item + by)
	case "DELETE":
		return sentence("delete " + item + by)
	}
	return sentence(strings.ToLower(op.Method) + " " + resource + by)
}

// singular turns the last word of a resource name to the singular
// ("pet categories" → "pet category"), by the runtime's rule.
func singular(words string) string {
	i := strings.LastIndexByte(words, ' ') + 1
	return words[:i] + runtime.Singular(words[i:])
}

// resourceWords returns the last literal path segments as words and the
// path parameter names as words.
func resourceWords(path string) (string, []string) {
	var lits, params []string
	for _, seg := range strings.Split(path, "/") {
		switch {
		case seg == "":
		case strings.HasPrefix(seg, "{"):
			params = append(params, strings.ToLower(humanize(SnakeCase(seg))))
		default:
			lits = append(lits, strings.ToLower(humanize(SnakeCase(seg))))
		}
	}
	if len(lits) > 2 {
		lits = lits[len(lits)-2:]
	}
	if len(lits) == 0 {
		return "the API root resource", params
	}
	return strings.Join(lits, " "), params
}

func paramSentence(notes []paramNote) string {
	// Only required inputs are named: the schema describes every input,
	// and listing the optional ones again costs context on every turn.
	var req []string
	for _, n := range notes {
		if n.required {
			req = append(req, n.name+" ("+n.summary+")")
		}
	}
	if len(req) == 0 {
		return ""
	}
	return "Requires " + joinList(capList(req, maxListedParams)) + "."
}

func capList(items []string, max int) []string {
	if len(items) <= max {
		return items
	}
	return append(items[:max:max], fmt.Sprintf("%d more", len(items)-max))
}

// returnsSentence says what the tool returns on success: the shape of a
// JSON body (any +json type counts), a stream collected into a list, a
// body of another media type, or the response's own description. It
// always starts "Returns" or "On success", which discovery relies on.
func returnsSentence(op *load.Operation, w *schemaWriter) string {
	r := successResponse(op)
	if r == nil {
		return ""
	}
	desc := clip(sentence(plainText(r.Description)), 200)
	switch {
	case r.Schema == nil && r.Status == "204":
		return "Returns no content on success."
	case r.Schema == nil && !describedBySchema(r.MediaType):
		return "Returns " + mediaWords(r.MediaType) + "."
	case r.Schema == nil && desc != "":
		return "On success: " + desc
	case r.Schema == nil:
		return ""
	case r.Sequential:
		return "Returns " + streamWords(r, w) + "."
	case !describedBySchema(r.MediaType):
		return "Returns " + mediaWords(r.MediaType) + "."
	}
	shape := shapeWords(r.Schema, w)
	if shape == "a value" && desc != "" {
		return "On success: " + desc
	}
	return "Returns " + shape + "."
}

// successResponse is the first 2xx response.
func successResponse(op *load.Operation) *load.Response {
	for _, r := range op.Responses {
		if strings.HasPrefix(r.Status, "2") {
			return r
		}
	}
	return nil
}

// streamWords names a sequential body (OpenAPI 3.2 itemSchema), which the
// tool returns as the list of the items that arrived.
func streamWords(r *load.Response, w *schemaWriter) string {
	item := "value"
	if res := w.resolve(r.Schema); res != nil && res.Items != nil {
		item = strings.TrimSuffix(typeSummary(res.Items, w), " object")
	}
	return "a stream of " + item + " items (" + r.MediaType + "), as the list of those that arrived"
}

// describedBySchema reports a body best described by its schema: JSON,
// or a wildcard ("*/*", which some generators write for JSON), or none
// declared.
func describedBySchema(mt string) bool {
	return mt == "" || runtime.IsJSONMedia(mt) || strings.Contains(mt, "*")
}

// mediaWords names a non-JSON body by its media type.
func mediaWords(mt string) string {
	base := runtime.MediaBase(mt)
	switch {
	case strings.HasPrefix(base, "text/"), strings.HasSuffix(base, "+xml"), base == "application/xml":
		return "text (" + base + ")"
	case strings.HasPrefix(base, "image/"):
		return "an image (" + base + ")"
	case strings.HasPrefix(base, "audio/"):
		return "audio (" + base + ")"
	case strings.HasPrefix(base, "multipart/"):
		return "several parts (" + base + "), each as its own content item, in order"
	}
	return "a file (" + base + ")"
}

// shapeWords names a response shape: "a Pet object with fields id, name,
// status", "a list of Pet items", "a Cat object or Dog object". An allOf
// counts as the object it makes.
func shapeWords(s *load.Schema, w *schemaWriter) string {
	r := w.resolve(s)
	if r == nil {
		return "a JSON value"
	}
	if r.Type == "array" && r.Items != nil {
		return "a list of " + strings.TrimSuffix(typeSummary(r.Items, w), " object") + " items"
	}
	_, names, _, ok := (&inputBuilder{w: w}).objectShape(r)
	if !ok {
		names = r.PropertyOrder // with additionalProperties, say
	}
	if len(names) == 0 {
		return runtime.WithArticle(typeSummary(s, w))
	}
	more := ""
	if len(names) > maxListedFields {
		more = fmt.Sprintf(" and %d more", len(names)-maxListedFields)
		names = names[:maxListedFields]
	}
	return runtime.WithArticle(typeSummary(s, w)) + " with fields " + strings.Join(names, ", ") + more
}

// effectSentence says what a call changes, from the method's semantics:
// GET, HEAD, OPTIONS, QUERY and TRACE are safe; a method OpenAPI does not
// define (a 3.2 additional operation) may do anything.
func effectSentence(method string) string {
	switch method {
	case "GET", "HEAD", "OPTIONS", "QUERY", "TRACE":
		return "Read-only: changes nothing."
	case "DELETE":
		return "Destructive: the deletion cannot be undone, so confirm with the user first."
	case "PUT":
		return "Overwrites the stored resource with the values given."
	case "POST", "PATCH":
		return "Changes data on the service."
	}
	return "Its effect is not declared (a " + method + " request): it may change or remove data, so confirm with the user first."
}

func nonEmpty(list []string) []string {
	out := list[:0]
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
