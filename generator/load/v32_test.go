package load

import (
	"maps"
	"net/url"
	"reflect"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// spec32 uses what OpenAPI 3.2 adds: $self (and a $ref through it to a
// document beside the entry), tag summary/parent/kind, QUERY,
// additionalOperations (with keys that cannot stand as they are),
// itemSchema, a querystring parameter and a media type $ref.
const spec32 = `openapi: 3.2.0
$self: https://api.example.com/v1/openapi.yaml
info: {title: T, version: "1"}
tags:
  - {name: pets, summary: Pets, kind: nav}
  - {name: cats, summary: Cats, description: Felines., parent: pets}
paths:
  /pets:
    get:
      responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "https://api.example.com/v1/common.yaml#/Tag"}}}}}
    query:
      operationId: queryPets
      responses:
        "200":
          description: ok
          content:
            application/jsonl:
              itemSchema: {$ref: "https://api.example.com/v1/openapi.yaml#/components/schemas/Pet"}
            application/atom+xml: {schema: {type: string}}
    additionalOperations:
      PURGE: {responses: {"204": {description: ok}}}
      COPY:
        parameters:
          - name: filter
            in: querystring
            required: true
            content:
              application/x-www-form-urlencoded:
                schema:
                  type: object
                  required: [since]
                  properties:
                    since: {type: string, description: First day.}
                    tag: {type: string}
                encoding:
                  tag: {style: form, explode: false}
        responses: {"200": {description: ok, content: {application/json: {$ref: "#/components/mediaTypes/PetJSON"}}}}
      post: {responses: {"200": {description: was misfiled}}}
      GET: {responses: {"200": {description: repeats get}}}
      "BAD METHOD": {responses: {"200": {description: x}}}
components:
  mediaTypes:
    PetJSON:
      schema: {$ref: "#/components/schemas/Pet"}
  schemas:
    Pet: {type: object, properties: {name: {type: string}}}
`

func TestOpenAPI32(t *testing.T) {
	path := writeSpecs(t, "spec.yaml", map[string]string{
		"spec.yaml":   spec32,
		"common.yaml": "Tag: {type: string, enum: [a, b]}\n",
	})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{
		`spec.yaml:38:7: warning: additionalOperations key "post" names a method that has its own field; read as POST; move it to the post field`,
		`spec.yaml:39:7: warning: additionalOperations key "GET" repeats the get operation of this path; it is ignored; remove one of the two`,
		`spec.yaml:40:7: warning: additionalOperations key "BAD METHOD" is not an HTTP method name; the operation is ignored; use the method name exactly as sent, e.g. COPY`,
	})
	if d.Self != "https://api.example.com/v1/openapi.yaml" {
		t.Errorf("Self = %q", d.Self)
	}
	var methods []string
	for _, o := range d.Operations {
		methods = append(methods, o.Method+"@"+posText(o.Pos))
	}
	if want := []string{"GET@spec.yaml:9:5", "POST@spec.yaml:38:7", "QUERY@spec.yaml:11:5", "COPY@spec.yaml:22:7", "PURGE@spec.yaml:21:7"}; !reflect.DeepEqual(methods, want) {
		t.Errorf("operations = %v, want %v", methods, want)
	}
	if tag := findOp(t, d, "GET", "/pets").Responses[0].Schema; tag.Ref != "Tag" || len(d.Schemas["Tag"].Enum) != 2 {
		t.Errorf("$ref through $self to common.yaml = %+v", tag)
	}
	q := findOp(t, d, "QUERY", "/pets").Responses[0]
	if !q.Sequential || q.MediaType != "application/jsonl" || q.Schema.Type != "array" || q.Schema.Items.Ref != "Pet" {
		t.Errorf("QUERY response = %+v, schema %+v", q, q.Schema)
	}
	cp := findOp(t, d, "COPY", "/pets")
	since, tag := findParam(cp, "since", "query"), findParam(cp, "tag", "query")
	if since == nil || !since.Required || since.Description != "First day." || !since.Explode || posText(since.Pos) != "spec.yaml:24:13" {
		t.Errorf("since = %+v", since)
	}
	if tag == nil || tag.Required || tag.Explode || tag.Style != "form" {
		t.Errorf("tag = %+v", tag)
	}
	if r := cp.Responses[0]; r.MediaType != "application/json" || r.Schema == nil || r.Schema.Ref != "Pet" {
		t.Errorf("media type $ref: response = %+v", r)
	}
	wantTags := []*Tag{{Name: "pets", Summary: "Pets", Kind: "nav"}, {Name: "cats", Summary: "Cats", Description: "Felines.", Parent: "pets"}}
	if !reflect.DeepEqual(d.TagDetails, wantTags) {
		t.Errorf("tags = %+v", d.TagDetails)
	}
	if d.Tags["pets"] != "Pets" || d.Tags["cats"] != "Felines." {
		t.Errorf("tag descriptions = %v", d.Tags)
	}
}

// TestOpenAPI32FieldsIn31 checks that QUERY and additionalOperations in
// an older document are read, with a warning about the version.
func TestOpenAPI32FieldsIn31(t *testing.T) {
	path := writeSpecs(t, "spec.yaml", map[string]string{"spec.yaml": `openapi: 3.1.0
info: {title: T, version: "1"}
paths:
  /a:
    query: {responses: {"200": {description: ok}}}
    additionalOperations:
      LOCK: {responses: {"200": {description: ok}}}
`})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{
		`spec.yaml:5:5: warning: the QUERY method (field query) is OpenAPI 3.2, not 3.1.0; read as 3.2; declare openapi: 3.2.0, where it is defined`,
		`spec.yaml:6:5: warning: additionalOperations is OpenAPI 3.2, not 3.1.0; read as 3.2; declare openapi: 3.2.0, where it is defined`,
	})
	if len(d.Operations) != 2 || d.Operations[0].Method != "QUERY" || d.Operations[1].Method != "LOCK" {
		t.Errorf("operations = %+v", d.Operations)
	}
}

// TestOpenAPI32Stream checks an event stream's itemSchema in a request
// and a response, and that a schema wins over an itemSchema.
func TestOpenAPI32Stream(t *testing.T) {
	path := writeSpecs(t, "spec.json", map[string]string{"spec.json": `{"openapi": "3.2.0", "info": {"title": "T", "version": "1"},
"paths": {"/e": {"post": {
  "requestBody": {"content": {"application/x-ndjson": {"itemSchema": {"type": "integer"}}}},
  "responses": {"200": {"description": "ok", "content": {"text/event-stream": {
    "schema": {"type": "string"}, "itemSchema": {"type": "object"}}}}}}}}}
`})
	d, _ := loadLines(t, path)
	o := findOp(t, d, "POST", "/e")
	if b := o.RequestBody; !b.Sequential || b.Schema.Type != "array" || b.Schema.Items.Type != "integer" {
		t.Errorf("body = %+v", b)
	}
	if r := o.Responses[0]; r.Sequential || r.Schema.Type != "string" {
		t.Errorf("response = %+v", r)
	}
}

func TestSelfRelative(t *testing.T) {
	tests := []struct{ ref, want string }{
		{"https://x.org/api/openapi.yaml#/components/schemas/A", "#/components/schemas/A"},
		{"https://x.org/api/openapi.yaml", "#"},
		{"https://x.org/api/common/pet.yaml#/Pet", "common/pet.yaml#/Pet"},
		{"https://x.org/other/pet.yaml#/Pet", ""},
		{"https://y.org/api/openapi.yaml#/A", ""},
		{"#/components/schemas/A", ""},
	}
	self := mustURL(t, "https://x.org/api/openapi.yaml")
	for _, tt := range tests {
		if got, _ := selfRelative(self, tt.ref); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestChooseMediaType checks the preference among media types:
// application/json, any +json, forms for bodies, then a stream with an
// item schema, then the first.
func TestChooseMediaType(t *testing.T) {
	item := &openapi3.MediaType{ItemSchema: &openapi3.SchemaRef{Value: &openapi3.Schema{}}}
	plain := &openapi3.MediaType{}
	tests := []struct {
		content openapi3.Content
		body    bool
		want    string
	}{
		{openapi3.Content{"application/geo+json": plain, "application/json": plain}, false, "application/json"},
		{openapi3.Content{"application/ld+json": plain, "application/xml": plain}, false, "application/ld+json"},
		{openapi3.Content{"Application/JSON; charset=utf-8": plain, "application/atom+xml": plain}, false, "Application/JSON; charset=utf-8"},
		{openapi3.Content{"multipart/form-data": plain, "application/x-www-form-urlencoded; charset=utf-8": plain}, true, "application/x-www-form-urlencoded; charset=utf-8"},
		{openapi3.Content{"application/atom+xml": plain, "text/event-stream": item}, false, "text/event-stream"},
		{openapi3.Content{"application/atom+xml": plain, "text/event-stream": plain}, false, "application/atom+xml"},
	}
	for _, tt := range tests {
		if got := chooseMediaType(tt.content, tt.body); got != tt.want {
			t.Errorf("%v: got %q, want %q", slices.Sorted(maps.Keys(tt.content)), got, tt.want)
		}
	}
}
