package load

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeSpecs writes files (name → text) into a temporary folder and
// returns the path of the first name given, the entry.
func writeSpecs(t *testing.T, entry string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, entry)
}

// problemLines renders problems with the folder of path cut off, so that
// expectations read "spec.yaml:25:19: ...".
func problemLines(path string, probs []string) []string {
	dir := filepath.Dir(path) + string(filepath.Separator)
	out := make([]string, len(probs))
	for i, p := range probs {
		out[i] = strings.ReplaceAll(p, dir, "")
	}
	return out
}

func loadLines(t *testing.T, path string) (*Document, []string) {
	t.Helper()
	doc, probs := loadOK(t, path)
	var lines []string
	for _, p := range probs {
		lines = append(lines, p.String())
	}
	return doc, problemLines(path, lines)
}

func wantLines(t *testing.T, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
}

// Warning texts, as the user reads them.
const (
	wRequiredTrue  = `warning: property %q has "required: true", which JSON Schema does not know (a Swagger 2.0 habit); read as required in its parent object; list it there instead: required: [%s]`
	wRequiredFalse = `warning: property %q has "required: false", which JSON Schema does not know; ignored, since a property is optional unless its parent lists it under required; remove it`
	wExamplesMap   = `warning: "examples" of a schema is a map of named examples; JSON Schema wants a list of values; read as the list of the example values; write examples: [value, ...] instead`
	wPropsAllOf    = `warning: "properties" is a $ref to %s, not a map of properties; read as the schema found there (allOf: [{$ref: %s}]); write that instead`
	wSiblingRef    = `warning: "$ref: %s" is written among the properties, where every key is a property name; read as the schema found there, combined with the properties (allOf: [{$ref: %s}]); move it to an allOf beside properties`
	wSchemaReq     = `warning: a schema that is not a property has "required: %s"; JSON Schema's "required" is a list of property names; ignored; to require a property list it in its parent's required, to require a parameter or body set required on it, not on its schema`
	wPropsEach     = `warning: "properties" is a $ref to %s, not a map of properties; read as the properties found there, one $ref each; list them under properties instead`
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// tolerantYAML has each defect once, next to look-alikes that are valid:
// required on a parameter and a body, examples maps of a parameter and a
// media type, data in an example, a property named "required".
const tolerantYAML = `openapi: 3.1.0
info: {title: T, version: "1"}
paths:
  /pets:
    post:
      operationId: addPet
      parameters:
        - name: q
          in: query
          required: true
          schema: {type: string}
          examples:
            one: {value: a}
      requestBody:
        required: true
        content:
          application/json:
            examples:
              full: {value: {name: Rex, required: true}}
            schema:
              type: object
              properties:
                name:
                  type: string
                  required: true
                  examples:
                    rex: {value: Rex}
                    fido: {summary: A dog, value: Fido}
                required:
                  type: boolean
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  $ref: "#/components/schemas/Pet"
components:
  schemas:
    Pet:
      type: object
      properties:
        id: {type: integer, required: true}
        owner:
          $ref: "#/components/schemas/Owner"
          required: false
        note:
          type: string
          examples: {a: x, b: {value: y}, c: {externalValue: "https://e.x/c"}}
    Owner:
      type: object
      properties:
        name:
          type: string
          examples:
            - Ann
`

func TestTolerantYAML(t *testing.T) {
	path := writeSpecs(t, "spec.yaml", map[string]string{"spec.yaml": tolerantYAML})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{
		"spec.yaml:25:19: " + sprintf(wRequiredTrue, "name", "name"),
		"spec.yaml:26:19: " + wExamplesMap,
		"spec.yaml:38:17: " + sprintf(wPropsAllOf, "#/components/schemas/Pet", "#/components/schemas/Pet"),
		"spec.yaml:45:29: " + sprintf(wRequiredTrue, "id", "id"),
		"spec.yaml:48:11: " + sprintf(wRequiredFalse, "owner"),
		"spec.yaml:51:11: " + wExamplesMap,
	})
	op := findOp(t, d, "POST", "/pets")
	if q := findParam(op, "q", "query"); q == nil || !q.Required {
		t.Errorf("parameter q = %+v", q)
	}
	body := op.RequestBody.Schema
	if !reflect.DeepEqual(body.Required, []string{"name"}) || body.Properties["required"].Type != "boolean" {
		t.Errorf("body required = %v, properties = %v", body.Required, body.PropertyOrder)
	}
	if ex := body.Properties["name"].Examples; !reflect.DeepEqual(ex, []any{"Fido", "Rex"}) {
		t.Errorf("name examples = %#v", ex)
	}
	resp := op.Responses[0].Schema
	if len(resp.AllOf) != 1 || resp.AllOf[0].Ref != "Pet" || len(resp.Properties) != 0 {
		t.Errorf("response schema = %+v", resp)
	}
	pet := d.Schemas["Pet"]
	if !reflect.DeepEqual(pet.Required, []string{"id"}) {
		t.Errorf("Pet required = %v", pet.Required)
	}
	if ex := pet.Properties["note"].Examples; !reflect.DeepEqual(ex, []any{"x", "y"}) {
		t.Errorf("note examples = %#v", ex)
	}
	if ex := d.Schemas["Owner"].Properties["name"].Examples; !reflect.DeepEqual(ex, []any{"Ann"}) {
		t.Errorf("a list of examples, as 3.1 wants it, was touched: %#v", ex)
	}
}

// tolerantJSON is the same kind of document as JSON, where the properties
// $ref points at a map of properties.
const tolerantJSON = `{
  "openapi": "3.0.3",
  "info": {"title": "T", "version": "1"},
  "paths": {
    "/pets": {
      "post": {
        "requestBody": {
          "content": {
            "application/json": {
              "schema": {
                "type": "object",
                "properties": {
                  "$ref": "#/components/schemas/Pet/properties"
                }
              }
            }
          }
        },
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}}
      }
    },
    "/q": {"get": {"responses": {"200": {"description": "ok"}}}}
  },
  "components": {
    "schemas": {
      "Pet": {
        "type": "object",
        "properties": {
          "id": {"type": "integer", "required": true},
          "tag": {"type": "string", "examples": {"x": {"value": "dog"}}}
        }
      }
    }
  }
}
`

func TestTolerantJSON(t *testing.T) {
	path := writeSpecs(t, "spec.json", map[string]string{"spec.json": tolerantJSON})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{
		"spec.json:12:17: " + sprintf(wPropsEach, "#/components/schemas/Pet/properties"),
		"spec.json:29:37: " + sprintf(wRequiredTrue, "id", "id"),
		"spec.json:30:37: " + wExamplesMap,
	})
	// The repair of the three-line properties object keeps its lines, so
	// what follows is placed where it is written.
	if got := posText(findOp(t, d, "GET", "/q").Pos); got != "spec.json:22:12" {
		t.Errorf("GET /q at %s", got)
	}
	body := findOp(t, d, "POST", "/pets").RequestBody.Schema
	if !reflect.DeepEqual(body.PropertyOrder, []string{"id", "tag"}) || body.Properties["id"].Ref == "" {
		t.Errorf("body = %+v", body)
	}
	if pet := d.Schemas["Pet"]; pet == nil || !reflect.DeepEqual(pet.Required, []string{"id"}) {
		t.Errorf("Pet = %+v", pet)
	}
}

// TestTolerantPropertiesRefForms covers the other ways to write a
// properties $ref: inside a flow mapping (read as allOf), a block mapping
// whose $ref line has no room for the dash, a map of properties in
// another file (DigitalOcean), a flow mapping after a block key, and a
// parent that has an allOf already, which cannot be repaired and stays an
// error at the $ref.
func TestTolerantPropertiesRefForms(t *testing.T) {
	path := writeSpecs(t, "spec.yaml", map[string]string{
		"spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
paths:
  /a:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {type: object, properties: {$ref: "#/components/schemas/A"}}
  /b:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                properties:
                 $ref: "#/components/schemas/A"
  /c:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                properties:
                  $ref: "attrs.yaml#/ids"
  /d:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties: {$ref: "#/components/schemas/A/properties"}
components:
  schemas:
    A: {type: object, properties: {x: {type: string}}}
`,
		"attrs.yaml": "ids:\n  droplet_ids: {type: array, items: {type: integer}}\n  tag: {type: string}\n",
	})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{
		"spec.yaml:11:38: " + sprintf(wPropsAllOf, "#/components/schemas/A", "#/components/schemas/A"),
		"spec.yaml:20:17: " + sprintf(wPropsAllOf, "#/components/schemas/A", "#/components/schemas/A"),
		"spec.yaml:30:17: " + sprintf(wPropsEach, "attrs.yaml#/ids"),
		"spec.yaml:41:17: " + sprintf(wPropsEach, "#/components/schemas/A/properties"),
	})
	if d := findOp(t, d, "GET", "/d").Responses[0].Schema; d.Properties["x"] == nil || d.Properties["x"].Ref == "" {
		t.Errorf("/d: schema = %+v", d)
	}
	for _, p := range []string{"/a", "/b"} {
		if s := findOp(t, d, "GET", p).Responses[0].Schema; len(s.AllOf) != 1 || s.AllOf[0].Ref != "A" {
			t.Errorf("%s: schema = %+v", p, s)
		}
	}
	c := findOp(t, d, "GET", "/c").Responses[0].Schema
	if !reflect.DeepEqual(c.PropertyOrder, []string{"droplet_ids", "tag"}) {
		t.Errorf("/c: schema = %+v", c)
	}

	// Beside an allOf the schema has already, the $ref joins it.
	beside := writeSpecs(t, "spec.yaml", map[string]string{"spec.yaml": `openapi: 3.0.3
info: {title: T, version: "1"}
paths: {/a: {get: {responses: {"200": {description: ok, content: {application/json: {schema: {$ref: "#/components/schemas/A"}}}}}}}}
components:
  schemas:
    A:
      allOf: [{type: object}]
      properties:
        $ref: "#/components/schemas/B"
    B: {type: object}
`})
	d, got = loadLines(t, beside)
	wantLines(t, got, []string{"spec.yaml:9:9: " + sprintf(wSiblingRef, "#/components/schemas/B", "#/components/schemas/B")})
	if a := d.Schemas["A"]; len(a.AllOf) != 2 || a.AllOf[1].Ref != "B" || len(a.Properties) != 0 {
		t.Errorf("A = %+v", a)
	}
}

// TestTolerantFragmentRoot checks examples maps at the root of files
// other files refer to: a schema file's is repaired, a parameter file's
// is valid and left alone.
func TestTolerantFragmentRoot(t *testing.T) {
	path := writeSpecs(t, "spec.yaml", map[string]string{
		"spec.yaml": `openapi: 3.1.0
info: {title: T, version: "1"}
paths:
  /a:
    get:
      parameters:
        - $ref: "limit.yaml"
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: "pet.yaml"}
`,
		"pet.yaml":   "type: string\nexamples:\n  a: {value: Rex}\n",
		"limit.yaml": "name: limit\nin: query\nschema: {type: integer}\nexamples:\n  small: {value: 5}\n",
	})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{"pet.yaml:2:1: " + wExamplesMap})
	if ex := d.Schemas["pet"].Examples; !reflect.DeepEqual(ex, []any{"Rex"}) {
		t.Errorf("pet examples = %#v", ex)
	}
}

// TestTolerantSwagger checks the repairs in a Swagger 2.0 document.
func TestTolerantSwagger(t *testing.T) {
	path := writeSpecs(t, "spec.yaml", map[string]string{"spec.yaml": `swagger: "2.0"
info: {title: T, version: "1"}
paths:
  /pets:
    get:
      parameters:
        - {name: q, in: query, type: string, required: true}
      responses:
        "200":
          description: ok
          schema: {$ref: "#/definitions/Pet"}
definitions:
  Pet:
    type: object
    properties:
      id:
        type: integer
        required: true
`})
	d, got := loadLines(t, path)
	wantLines(t, got, []string{"spec.yaml:18:9: " + sprintf(wRequiredTrue, "id", "id")})
	if pet := d.Schemas["Pet"]; pet == nil || !reflect.DeepEqual(pet.Required, []string{"id"}) {
		t.Errorf("Pet = %+v", pet)
	}
	if q := findParam(findOp(t, d, "GET", "/pets"), "q", "query"); q == nil || !q.Required {
		t.Errorf("q = %+v", q)
	}
}

// TestTolerantUnrepairable checks that what the rules do not cover stays
// an error at the value, worded without Go types.
func TestTolerantUnrepairable(t *testing.T) {
	for _, name := range []string{"spec.yaml", "spec.json"} {
		text := `openapi: 3.1.0
info: {title: T, version: "1"}
paths: {}
components:
  schemas:
    Name:
      type: string
      required: name
    Tags:
      type: array
      items: {type: string, minLength: many}
`
		if strings.HasSuffix(name, ".json") {
			text = `{"openapi": "3.1.0", "info": {"title": "T", "version": "1"}, "paths": {},
"components": {"schemas": {
  "Name": {"type": "string",
    "required": "name"},
  "Tags": {"type": "array", "items": {"type": "string", "minLength": "many"}}}}}
`
		}
		path := writeSpecs(t, name, map[string]string{name: text})
		doc, probs := Load(t.Context(), path, Options{})
		if doc != nil {
			t.Fatalf("%s: loaded", name)
		}
		var lines []string
		for _, p := range probs {
			lines = append(lines, p.String())
		}
		want := []string{
			`spec.yaml:8:7: "required" must be a list of property names, not the text "name"; list required properties by name in the "required" of the object that has them`,
			`spec.yaml:11:29: "minLength" must be a number, not the text "many"; fix this value so that it has the type OpenAPI expects`,
		}
		if name == "spec.json" {
			want = []string{
				`spec.json:4:5: "required" must be a list of property names, not the text "name"; list required properties by name in the "required" of the object that has them`,
				`spec.json:5:57: "minLength" must be a number, not the text "many"; fix this value so that it has the type OpenAPI expects`,
			}
		}
		wantLines(t, problemLines(path, lines), want)
	}
}

// TestExampleValues checks the conversion of a named-examples map.
func TestExampleValues(t *testing.T) {
	got := exampleValues(map[string]any{
		"b": map[string]any{"summary": "s", "value": 2},
		"a": 1,
		"c": map[string]any{"externalValue": "https://x"},
		"d": map[string]any{"dataValue": map[string]any{"k": "v"}},
		"e": map[string]any{"value": 5, "other": true},
	})
	want := []any{1, 2, map[string]any{"k": "v"}, map[string]any{"value": 5, "other": true}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v", got)
	}
}
