package mapping

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// Description limits keep tools/list small: the model reads every byte of
// every tool on every turn.
const (
	maxToolDescription = 900
	maxSpecProse       = 500
	maxListedFields    = 6
	maxListedParams    = 6
)

// typeSummary names a schema's type for prose: "integer (int64)",
// "array of string", "Pet object".
func typeSummary(s *load.Schema, w *schemaWriter) string {
	if s == nil {
		return "value"
	}
	if s.Ref != "" {
		r := w.resolve(s)
		if r != nil && (r.Type == "object" || len(r.Properties) > 0) {
			return s.Ref + " object"
		}
		return typeSummary(r, w)
	}
	t := s.Type
	switch {
	case t == "" && len(s.Properties) > 0:
		t = "object"
	case t == "" && len(s.Types) > 0:
		t = strings.Join(s.Types, " or ")
	case t == "":
		t = "value"
	case t == "array" && s.Items != nil:
		t = "array of " + typeSummary(s.Items, w)
	}
	if s.Format != "" {
		t += ", " + s.Format
	}
	return t
}

// synthDescription writes a property description when the spec has none,
// from the name, type and constraints, so every property explains itself.
func synthDescription(name string, s *load.Schema, w *schemaWriter) string {
	words := strings.ToLower(humanize(snakeCase(name)))
	if words == "" {
		words = name
	}
	desc := fmt.Sprintf("The %s, as %s.", words, withArticle(typeSummary(s, w)))
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

// synthDescriptionText describes a property known only by name and type.
func synthDescriptionText(name, typ string) string {
	return fmt.Sprintf("The %s, as %s.", strings.ToLower(humanize(snakeCase(name))), withArticle(typ))
}

func withArticle(s string) string {
	if s == "" {
		return s
	}
	// "u" is left out on purpose: "a User", "a uuid" read right more often.
	switch s[0] {
	case 'a', 'e', 'i', 'o', 'A', 'E', 'I', 'O':
		return "an " + s
	}
	return "a " + s
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
	switch op.Method {
	case "GET":
		if len(params) == 0 || !strings.HasSuffix(strings.TrimRight(op.Path, "/"), "}") {
			return sentence("list or read " + resource + by)
		}
		return sentence("get a " + resource + by)
	case "POST":
		return sentence("create or submit " + resource + by)
	case "PUT":
		return sentence("replace " + resource + by)
	case "PATCH":
		return sentence("update " + resource + by)
	case "DELETE":
		return sentence("delete " + resource + by)
	}
	return sentence(strings.ToLower(op.Method) + " " + resource + by)
}

// resourceWords returns the last literal path segments as words and the
// path parameter names as words.
func resourceWords(path string) (string, []string) {
	var lits, params []string
	for _, seg := range strings.Split(path, "/") {
		switch {
		case seg == "":
		case strings.HasPrefix(seg, "{"):
			params = append(params, strings.ToLower(humanize(snakeCase(seg))))
		default:
			lits = append(lits, strings.ToLower(humanize(snakeCase(seg))))
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

// returnsSentence summarises the success response: its description and
// the top-level fields of its schema.
func returnsSentence(op *load.Operation, w *schemaWriter) string {
	for _, r := range op.Responses {
		if !strings.HasPrefix(r.Status, "2") {
			continue
		}
		if r.Schema == nil {
			if r.Status == "204" {
				return "Returns no content on success."
			}
			if d := plainText(r.Description); d != "" {
				return "On success: " + clip(sentence(d), 200)
			}
			return ""
		}
		return "Returns " + shapeWords(r.Schema, w) + "."
	}
	return ""
}

// shapeWords names a response shape: "a Pet object with fields id, name,
// status" or "an array of Pet objects".
func shapeWords(s *load.Schema, w *schemaWriter) string {
	r := w.resolve(s)
	if r == nil {
		return "a JSON value"
	}
	if r.Type == "array" && r.Items != nil {
		return "a list of " + strings.TrimSuffix(typeSummary(r.Items, w), " object") + " items"
	}
	if len(r.Properties) == 0 {
		return withArticle(typeSummary(s, w))
	}
	names := append([]string(nil), r.PropertyOrder...)
	sort.Strings(names)
	more := ""
	if len(names) > maxListedFields {
		more = fmt.Sprintf(" and %d more", len(names)-maxListedFields)
		names = names[:maxListedFields]
	}
	return withArticle(typeSummary(s, w)) + " with fields " + strings.Join(names, ", ") + more
}

func effectSentence(method string) string {
	switch method {
	case "GET", "HEAD":
		return "Read-only: changes nothing."
	case "DELETE":
		return "Destructive: the deletion cannot be undone, so confirm with the user first."
	case "PUT":
		return "Overwrites the stored resource with the values given."
	}
	return "Changes data on the service."
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
