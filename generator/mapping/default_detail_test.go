package mapping

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// detailDoc is a document whose default tools must keep detail: $ref
// items of array parameters, +json responses, a JSON body with a charset.
func detailDoc() *load.Document {
	areas := make([]any, 400)
	for i := range areas {
		areas[i] = "A" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
	}
	feature := &load.Schema{Type: "object", PropertyOrder: []string{"geometry", "type"},
		Properties: map[string]*load.Schema{"geometry": {Type: "object"}, "type": {Type: "string"}}}
	return &load.Document{
		Title: "Alerts",
		Schemas: map[string]*load.Schema{
			"Urgency": {Type: "string", Enum: []any{"Immediate", "Expected", "Past"}},
			"Area":    {Type: "string", Enum: areas},
			"Zone":    {Type: "string", Pattern: "^[A-Z]{2}Z[0-9]{3}$"},
			"Feature": feature,
			"Alerts": {AllOf: []*load.Schema{{Ref: "Feature"}, {Type: "object", PropertyOrder: []string{"title"},
				Properties: map[string]*load.Schema{"title": {Type: "string"}}}}},
		},
		Operations: []*load.Operation{
			{ID: "listAlerts", Method: "GET", Path: "/alerts", Parameters: []*load.Parameter{
				{Name: "area", In: "query", Style: "form", Explode: true, Schema: &load.Schema{Type: "array", Items: &load.Schema{Ref: "Area"}}},
				{Name: "urgency", In: "query", Style: "form", Explode: true, Schema: &load.Schema{Type: "array", Items: &load.Schema{Ref: "Urgency"}}},
				{Name: "zone", In: "query", Style: "form", Explode: true, Schema: &load.Schema{Type: "array", Items: &load.Schema{Ref: "Zone"}}},
				{Name: "level", In: "query", Style: "form", Explode: true, Schema: &load.Schema{Ref: "Urgency"}},
			}, Responses: []*load.Response{{Status: "200", MediaType: "application/geo+json", Schema: &load.Schema{Ref: "Alerts"}}}},
			{ID: "fileReport", Method: "POST", Path: "/reports", RequestBody: &load.RequestBody{
				Required: true, MediaType: "application/json; charset=utf-8",
				Schema: &load.Schema{Type: "object", PropertyOrder: []string{"kind"}, Required: []string{"kind"},
					Properties: map[string]*load.Schema{"kind": {Type: "string"}}},
			}},
		},
	}
}

func toolInput(t *testing.T, doc *load.Document, name string) (string, map[string]any) {
	t.Helper()
	srv, probs := Build(doc, Config{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	for _, tool := range srv.Tools {
		if tool.Name == name {
			var schema map[string]any
			if err := json.Unmarshal([]byte(tool.InputSchema), &schema); err != nil {
				t.Fatal(err)
			}
			return tool.Description, schema
		}
	}
	t.Fatalf("no tool %s", name)
	return "", nil
}

func prop(schema map[string]any, name string) map[string]any {
	p, _ := schema["properties"].(map[string]any)[name].(map[string]any)
	return p
}

// TestArrayItemsRefKeepSchema checks that array parameters whose items
// are $refs keep what the items are, even when the input schema is large
// enough to be compressed, and that a scalar $ref keeps its enum.
func TestArrayItemsRefKeepSchema(t *testing.T) {
	doc := detailDoc()
	if full := analyzeOp(doc, doc.Operations[0], nil, nil).in.schema(); len(mustJSON(t, full)) <= schemaBudget {
		t.Fatalf("schema too small to be compressed: %s", mustJSON(t, full))
	}
	desc, schema := toolInput(t, doc, "list_alerts")
	for name, want := range map[string]string{"area": `{"type":"string"}`, "urgency": `{"type":"string"}`, "zone": `{"pattern":"^[A-Z]{2}Z[0-9]{3}$","type":"string"}`} {
		if got := mustJSON(t, prop(schema, name)["items"]); got != want {
			t.Errorf("%s items = %s, want %s", name, got, want)
		}
	}
	if got := mustJSON(t, prop(schema, "level")["enum"]); got != `["Immediate","Expected","Past"]` {
		t.Errorf("level enum = %s", got)
	}
	if d := prop(schema, "urgency")["description"]; d != "The urgency, as an array of string, each one of: Immediate, Expected, Past." {
		t.Errorf("urgency description = %q", d)
	}
	if !strings.Contains(desc, "Returns an Alerts object with fields geometry, title, type.") {
		t.Errorf("description = %q", desc)
	}
}

// TestJSONBodyWithCharset checks that a JSON body whose media type has
// parameters is still built from its fields.
func TestJSONBodyWithCharset(t *testing.T) {
	_, schema := toolInput(t, detailDoc(), "file_report")
	if prop(schema, "kind") == nil || prop(schema, "body") != nil {
		t.Errorf("body not flattened: %s", mustJSON(t, schema))
	}
}

func TestIsJSONMedia(t *testing.T) {
	for mt, want := range map[string]bool{
		"application/json": true, "application/geo+json": true, "application/ld+json": true,
		"application/problem+json": true, "application/vnd.github.v3+json": true,
		"application/json; charset=utf-8": true, "APPLICATION/GEO+JSON": true, "text/json": true,
		"application/jsonl": false, "text/csv": false, "application/xml": false, "application/json-seq": false,
	} {
		if got := oa2mcpimpl.IsJSONMedia(mt); got != want {
			t.Errorf("oa2mcpimpl.IsJSONMedia(%q) = %v", mt, got)
		}
	}
}

// TestReturnsSentence checks what a tool says it returns, by media type
// and shape.
func TestReturnsSentence(t *testing.T) {
	doc := detailDoc()
	w := newSchemaWriter(doc, false, nil)
	obj := &load.Schema{Type: "object", PropertyOrder: []string{"id"}, Properties: map[string]*load.Schema{"id": {Type: "string"}}}
	tests := []struct {
		resp *load.Response
		want string
	}{
		{&load.Response{Status: "200", MediaType: "application/geo+json", Schema: &load.Schema{Ref: "Alerts"}}, "Returns an Alerts object with fields geometry, title, type."},
		{&load.Response{Status: "200", MediaType: "application/ld+json", Schema: &load.Schema{Ref: "Feature"}}, "Returns a Feature object with fields geometry, type."},
		{&load.Response{Status: "201", MediaType: "application/vnd.acme.report+json", Schema: obj}, "Returns an object with fields id."},
		{&load.Response{Status: "200", MediaType: "application/json", Schema: &load.Schema{OneOf: []*load.Schema{{Ref: "Feature"}, {Ref: "Alerts"}}}}, "Returns a Feature object or Alerts object."},
		{&load.Response{Status: "200", MediaType: "text/csv", Schema: &load.Schema{Type: "string"}}, "Returns text (text/csv)."},
		{&load.Response{Status: "200", MediaType: "image/png", Schema: &load.Schema{Type: "string", Format: "binary"}}, "Returns an image (image/png)."},
		{&load.Response{Status: "200", MediaType: "application/pdf"}, "Returns a file (application/pdf)."},
		{&load.Response{Status: "200", MediaType: "*/*", Schema: &load.Schema{Ref: "Feature"}}, "Returns a Feature object with fields geometry, type."},
		{&load.Response{Status: "200", MediaType: "application/jsonl", Sequential: true, Schema: &load.Schema{Type: "array", Items: &load.Schema{Ref: "Feature"}}},
			"Returns a stream of Feature items (application/jsonl), as the list of those that arrived."},
		{&load.Response{Status: "200", MediaType: "application/json", Schema: &load.Schema{}, Description: "The **current** state."}, "On success: The current state."},
		{&load.Response{Status: "200", Description: "Done"}, "On success: Done."},
		{&load.Response{Status: "204"}, "Returns no content on success."},
	}
	for _, tt := range tests {
		op := &load.Operation{Method: "GET", Path: "/x", Responses: []*load.Response{{Status: "default"}, tt.resp}}
		if got := returnsSentence(op, w); got != tt.want {
			t.Errorf("%s %s: got %q, want %q", tt.resp.Status, tt.resp.MediaType, got, tt.want)
		}
	}
}

// TestMethodWords checks what descriptions say of QUERY and of methods
// OpenAPI does not define.
func TestMethodWords(t *testing.T) {
	for method, want := range map[string]string{
		"QUERY":   "Read-only: changes nothing.",
		"OPTIONS": "Read-only: changes nothing.",
		"POST":    "Changes data on the service.",
		"PURGE":   "Its effect is not declared (a PURGE request): it may change or remove data, so confirm with the user first.",
	} {
		if got := effectSentence(method); got != want {
			t.Errorf("%s: %q", method, got)
		}
	}
	for _, tt := range []struct{ method, path, want string }{
		{"QUERY", "/products", "Search products."},
		{"GET", "/products/{sku}", "Get a product by its sku."},
		{"GET", "/categories/{id}", "Get a category by its id."},
		{"GET", "/addresses/{id}", "Get an address by its id."},
		{"GET", "/status/{id}", "Get a status by its id."},
		{"GET", "/analysis/{id}", "Get an analysis by its id."},
		{"GET", "/series/{id}", "Get a series by its id."},
		{"GET", "/users/{user}/boxes/{id}", "Get a users box by its user and id."},
		{"LINK", "/products/{sku}", "Link products by its sku."},
	} {
		if got := derivedPurpose(&load.Operation{Method: tt.method, Path: tt.path}); got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}
}

func TestFirstSentenceAbbreviations(t *testing.T) {
	for in, want := range map[string]string{
		"Stock keeping unit, e.g. ABC-1234. More text.": "Stock keeping unit, e.g. ABC-1234.",
		"One (i.e. the first). Two.":                    "One (i.e. the first).",
		"Plain. Two.":                                   "Plain.",
	} {
		if got := oa2mcpimpl.FirstSentence(in, 120); got != want {
			t.Errorf("%q: %q", in, got)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWildcardBodyIsJSON: a body declared as */* (as Kubernetes declares
// every create) with an object schema is JSON, its fields inputs of their
// own; one with a string schema stays a raw string.
func TestWildcardBodyIsJSON(t *testing.T) {
	obj := &load.Schema{Type: "object", PropertyOrder: []string{"kind", "spec"}, Required: []string{"kind"},
		Properties: map[string]*load.Schema{"kind": {Type: "string"}, "spec": {Type: "object"}}}
	doc := &load.Document{
		Title:   "Wild",
		Schemas: map[string]*load.Schema{"Thing": obj},
		Operations: []*load.Operation{
			{ID: "createThing", Method: "POST", Path: "/things", RequestBody: &load.RequestBody{
				Required: true, MediaType: "*/*", Schema: &load.Schema{Ref: "Thing"}}},
			{ID: "uploadNote", Method: "POST", Path: "/notes", RequestBody: &load.RequestBody{
				Required: true, MediaType: "*/*", Schema: &load.Schema{Type: "string"}}},
		},
	}
	srv, probs := Build(doc, Config{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	for _, tool := range srv.Tools {
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal([]byte(tool.InputSchema), &schema); err != nil {
			t.Fatal(err)
		}
		switch tool.Op.OperationID {
		case "createThing":
			if tool.Op.Body.MediaType != "application/json" || schema.Properties["kind"] == nil || schema.Properties["body"] != nil {
				t.Errorf("createThing: media type %q, inputs %v; want application/json with kind and spec", tool.Op.Body.MediaType, schema.Properties)
			}
		case "uploadNote":
			if tool.Op.Body.MediaType != "*/*" || schema.Properties["body"]["type"] != "string" {
				t.Errorf("uploadNote: media type %q, inputs %v; want a raw string body", tool.Op.Body.MediaType, schema.Properties)
			}
		}
	}
}
