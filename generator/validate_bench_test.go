package generator_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	google "github.com/google/jsonschema-go/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// BenchmarkValidateToolInput compares, per tool call, the runtime's own
// JSON Schema validator with two libraries on realistic tool inputs:
// github.com/santhosh-tekuri/jsonschema/v6 (which the runtime module may
// not depend on) and github.com/google/jsonschema-go (already a
// dependency of the MCP Go SDK, so the runtime could use it). Each
// compiles the schema once and validates an argument map already decoded
// the way it expects (json.Number for ours and santhosh, float64 for
// google), as a server does after decoding a call's arguments.
//
// Run: go test ./generator -run '^$' -bench ValidateToolInput -benchmem
func BenchmarkValidateToolInput(b *testing.B) {
	for _, c := range validateBenchCases(b) {
		ours := compileOurs(b, c)
		b.Run(c.name+"/oa2mcp", func(b *testing.B) { benchValidate(b, ours, c.args, oa2mcpimpl.DecodeJSON) })
		sant := compileSanthosh(b, c)
		b.Run(c.name+"/santhosh", func(b *testing.B) { benchValidate(b, sant, c.args, santhoshDecode) })
		goog := compileGoogle(b, c)
		b.Run(c.name+"/google", func(b *testing.B) { benchValidate(b, goog, c.args, googleDecode) })
	}
}

// validateBenchCase is a tool input schema with valid arguments and
// invalid ones that every validator must refuse (proof that it validates
// at all).
type validateBenchCase struct {
	name, schema, args string
	invalid            []string
	// formatOnly are invalid only by an asserted format, which
	// google/jsonschema-go does not check; multipleOfOnly only by a
	// multipleOf it is timed without (see compileGoogle).
	formatOnly, multipleOfOnly []string
}

func validateBenchCases(b *testing.B) []validateBenchCase {
	return []validateBenchCase{
		{
			name:   "petstore_manage_user",
			schema: toolInputSchema(b, "../examples/petstore/oa2mcp_tools.go", "petstore_manage_user"),
			args:   `{"action":"create","username":"theUser","firstName":"John","lastName":"James","email":"john@email.com","password":"12345","phone":"12345","id":10,"userStatus":1}`,
			invalid: []string{`{"action":"create","id":"10"}`, `{"action":"remove"}`, `{"action":"create","nickname":"x"}`,
				`{"action":"create_many","body":[{"username":7}]}`},
		},
		{
			name:   "aftersales_create_ticket",
			schema: toolInputSchema(b, "../examples/aftersales/oa2mcp_tools.go", "aftersales_create_ticket"),
			args:   `{"order_id":"O-100002","reason":"defect","refund_method":"original_payment","description":"Left ear cup crackles at high volume.","idempotency_key":"3f2c1a9e-6b1d-4c47-9f0e-2d4b8a7c5e11"}`,
			invalid: []string{`{"order_id":"O-12","reason":"defect"}`, `{"order_id":"O-100002","reason":"bored"}`,
				`{"order_id":"O-100002"}`, `{"order_id":"O-100002","reason":"defect","idempotency_key":""}`},
		},
		{name: "large_create_order", schema: largeSchema, args: largeArgs, invalid: []string{
			mustReplace(b, largeArgs, `"quantity": 2`, `"quantity": 0`),
			mustReplace(b, largeArgs, `"country": "DE"`, `"country": "Germany"`),
			mustReplace(b, largeArgs, `"gift_note": null`, `"gift_note": 5`),
		}, multipleOfOnly: []string{
			mustReplace(b, largeArgs, `"unit_price": 19.99`, `"unit_price": 19.999`),
		}, formatOnly: []string{
			mustReplace(b, largeArgs, `"placed_at": "2026-01-31T09:30:00+01:00"`, `"placed_at": "2026-01-31 09:30"`),
			mustReplace(b, largeArgs, `"customer_email": "anna.schmidt@example.com"`, `"customer_email": "anna.schmidt"`),
		}},
	}
}

func (c validateBenchCase) allInvalid() []string {
	return append(append(append([]string(nil), c.invalid...), c.formatOnly...), c.multipleOfOnly...)
}

// mustReplace replaces the first old in s, which must be there.
func mustReplace(b *testing.B, s, old, repl string) string {
	if !strings.Contains(s, old) {
		b.Fatalf("%s not in the arguments", old)
	}
	return strings.Replace(s, old, repl, 1)
}

// toolInputSchema reads the InputSchema of the named tool from a
// generated oa2mcp_tools.go, so the benchmark follows what the generator
// emits.
func toolInputSchema(b *testing.B, path, tool string) string {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	var found string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		fields := map[string]string{}
		for _, e := range lit.Elts {
			kv, ok1 := e.(*ast.KeyValueExpr)
			if !ok1 {
				continue
			}
			key, ok2 := kv.Key.(*ast.Ident)
			val, ok3 := kv.Value.(*ast.BasicLit)
			if ok2 && ok3 && val.Kind == token.STRING {
				fields[key.Name], _ = strconv.Unquote(val.Value)
			}
		}
		if fields["Name"] == tool {
			found = fields["InputSchema"]
		}
		return found == ""
	})
	if found == "" {
		b.Fatalf("%s: no input schema for %s", path, tool)
	}
	return found
}

// validateFunc validates one decoded value.
type validateFunc func(v any) error

func benchValidate(b *testing.B, validate validateFunc, args string, decode func(string) (any, error)) {
	v, err := decode(args)
	if err != nil {
		b.Fatal(err)
	}
	if err := validate(v); err != nil {
		b.Fatalf("valid arguments refused: %v", err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if validate(v) != nil {
			b.Fatal("refused")
		}
	}
}

// checkInvalid makes sure a validator refuses every invalid argument set.
func checkInvalid(b *testing.B, who string, invalid []string, c validateBenchCase, validate validateFunc, decode func(string) (any, error)) {
	for i, bad := range invalid {
		v, err := decode(bad)
		if err != nil {
			b.Fatal(err)
		}
		if validate(v) == nil {
			b.Fatalf("%s accepts invalid %s arguments (case %d)", who, c.name, i)
		}
	}
}

func compileOurs(b *testing.B, c validateBenchCase) validateFunc {
	s, err := oa2mcpimpl.CompileSchema(c.schema)
	if err != nil {
		b.Fatal(err)
	}
	checkInvalid(b, "oa2mcp", c.allInvalid(), c, s.Validate, oa2mcpimpl.DecodeJSON)
	return s.Validate
}

func santhoshDecode(text string) (any, error) { return santhosh.UnmarshalJSON(strings.NewReader(text)) }

func compileSanthosh(b *testing.B, c validateBenchCase) validateFunc {
	doc, err := santhoshDecode(c.schema)
	if err != nil {
		b.Fatal(err)
	}
	comp := santhosh.NewCompiler()
	comp.DefaultDraft(santhosh.Draft2020)
	comp.AssertFormat() // as the runtime does
	if err := comp.AddResource("schema.json", doc); err != nil {
		b.Fatal(err)
	}
	s, err := comp.Compile("schema.json")
	if err != nil {
		b.Fatal(err)
	}
	checkInvalid(b, "santhosh", c.allInvalid(), c, s.Validate, santhoshDecode)
	return s.Validate
}

func googleDecode(text string) (any, error) {
	var v any
	err := json.Unmarshal([]byte(text), &v)
	return v, err
}

// compileGoogle compiles for google/jsonschema-go. It takes numbers as
// float64 (a json.Number passes its "string" type check), and so checks
// multipleOf on the binary float: it refuses 19.99 as a multiple of 0.01.
// The large schema is timed without its multipleOf keywords; the check
// below fails once the library gets it right.
func compileGoogle(b *testing.B, c validateBenchCase) validateFunc {
	validate := googleValidator(b, c.schema)
	if v, _ := googleDecode(c.args); validate(v) != nil {
		if !strings.Contains(c.schema, `"multipleOf": 0.01, `) || !strings.Contains(validate(v).Error(), "multipleOf") {
			b.Fatalf("google refuses valid %s arguments: %v", c.name, validate(v))
		}
		validate = googleValidator(b, strings.ReplaceAll(c.schema, `"multipleOf": 0.01, `, ""))
	}
	checkInvalid(b, "google", c.invalid, c, validate, googleDecode)
	return validate
}

func googleValidator(b *testing.B, schema string) validateFunc {
	var s google.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		b.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		b.Fatal(err)
	}
	return r.Validate
}

// largeSchema is a large tool input in the generator's style: flat
// arguments, $defs, nested objects and arrays, patterns, formats,
// nullable values as anyOf, bounds and enums.
const largeSchema = `{
  "$defs": {
    "Address": {
      "additionalProperties": false,
      "properties": {
        "city": {"maxLength": 80, "minLength": 1, "type": "string"},
        "country": {"description": "ISO 3166-1 alpha-2", "pattern": "^[A-Z]{2}$", "type": "string"},
        "line1": {"maxLength": 120, "minLength": 1, "type": "string"},
        "line2": {"anyOf": [{"maxLength": 120, "type": "string"}, {"type": "null"}]},
        "postal_code": {"pattern": "^[A-Za-z0-9 -]{3,10}$", "type": "string"},
        "region": {"type": "string"}
      },
      "required": ["line1", "city", "postal_code", "country"],
      "type": "object"
    },
    "LineItem": {
      "additionalProperties": false,
      "properties": {
        "discount_code": {"anyOf": [{"pattern": "^[A-Z0-9]{4,12}$", "type": "string"}, {"type": "null"}]},
        "options": {"additionalProperties": {"maxLength": 40, "type": "string"}, "maxProperties": 8, "type": "object"},
        "quantity": {"maximum": 99, "minimum": 1, "type": "integer"},
        "sku": {"pattern": "^[A-Z]{3}-[0-9]{4,6}$", "type": "string"},
        "unit_price": {"exclusiveMinimum": 0, "multipleOf": 0.01, "type": "number"}
      },
      "required": ["sku", "quantity"],
      "type": "object"
    }
  },
  "additionalProperties": false,
  "properties": {
    "billing_address": {"$ref": "#/$defs/Address", "description": "Where the invoice goes."},
    "channel": {"enum": ["web", "mobile", "phone", "store", "marketplace"], "type": "string"},
    "coupon_codes": {"items": {"pattern": "^[A-Z0-9]{4,12}$", "type": "string"}, "maxItems": 5, "type": "array", "uniqueItems": true},
    "currency": {"enum": ["EUR", "USD", "GBP", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "JPY"], "type": "string"},
    "customer_email": {"format": "email", "type": "string"},
    "customer_id": {"format": "uuid", "type": "string"},
    "customer_name": {"maxLength": 200, "minLength": 1, "type": "string"},
    "customer_phone": {"pattern": "^\\+?[0-9 ()-]{6,20}$", "type": "string"},
    "delivery_after": {"format": "date", "type": "string"},
    "delivery_before": {"format": "date", "type": "string"},
    "delivery_window": {"enum": ["morning", "afternoon", "evening", "any"], "type": "string"},
    "external_reference": {"maxLength": 64, "type": "string"},
    "gift": {"type": "boolean"},
    "gift_note": {"anyOf": [{"maxLength": 500, "type": "string"}, {"type": "null"}]},
    "idempotency_key": {"maxLength": 64, "minLength": 1, "pattern": "^[A-Za-z0-9_-]+$", "type": "string"},
    "items": {"items": {"$ref": "#/$defs/LineItem"}, "maxItems": 100, "minItems": 1, "type": "array"},
    "loyalty_points": {"minimum": 0, "type": "integer"},
    "metadata": {"additionalProperties": {"maxLength": 500, "type": "string"}, "maxProperties": 20, "type": "object"},
    "notes": {"maxLength": 2000, "type": "string"},
    "placed_at": {"format": "date-time", "type": "string"},
    "priority": {"maximum": 5, "minimum": 1, "type": "integer"},
    "return_url": {"format": "uri", "type": "string"},
    "sales_rep": {"anyOf": [{"pattern": "^[a-z]{2,8}$", "type": "string"}, {"type": "null"}]},
    "shipping_address": {"$ref": "#/$defs/Address"},
    "shipping_method": {"enum": ["standard", "express", "overnight", "pickup", "freight"], "type": "string"},
    "signature_required": {"type": "boolean"},
    "tags": {"items": {"maxLength": 30, "type": "string"}, "maxItems": 10, "type": "array", "uniqueItems": true},
    "tax_exempt": {"type": "boolean"},
    "tax_id": {"anyOf": [{"pattern": "^[A-Z]{2}[0-9A-Z]{2,12}$", "type": "string"}, {"type": "null"}]},
    "tip": {"minimum": 0, "multipleOf": 0.01, "type": "number"},
    "warehouse": {"enum": ["BER-1", "HAM-2", "MUC-1", "FRA-3"], "type": "string"}
  },
  "required": ["customer_id", "customer_email", "items", "shipping_address", "currency"],
  "type": "object"
}`

const largeArgs = `{
  "billing_address": {"city": "Berlin", "country": "DE", "line1": "Unter den Linden 1", "line2": null, "postal_code": "10117"},
  "channel": "web", "coupon_codes": ["SPRING24", "FREESHIP"], "currency": "EUR",
  "customer_email": "anna.schmidt@example.com", "customer_id": "3f2c1a9e-6b1d-4c47-9f0e-2d4b8a7c5e11",
  "customer_name": "Anna Schmidt", "customer_phone": "+49 30 1234567",
  "delivery_after": "2026-02-02", "delivery_before": "2026-02-06", "delivery_window": "morning",
  "gift": false, "gift_note": null, "idempotency_key": "order-2026-01-31-0001",
  "items": [
    {"sku": "TSH-10023", "quantity": 2, "unit_price": 19.99, "options": {"size": "M", "colour": "navy"}},
    {"sku": "MUG-2001", "quantity": 1, "unit_price": 12.5, "discount_code": null},
    {"sku": "CAP-77001", "quantity": 3, "unit_price": 9.95, "discount_code": "CAPS3FOR2"}
  ],
  "metadata": {"campaign": "newsletter-jan", "source": "email"},
  "placed_at": "2026-01-31T09:30:00+01:00", "priority": 2, "return_url": "https://shop.example.com/orders/confirm?id=123",
  "sales_rep": null, "shipping_address": {"city": "Hamburg", "country": "DE", "line1": "Jungfernstieg 7", "postal_code": "20354"},
  "shipping_method": "express", "signature_required": true, "tags": ["b2c", "priority"], "tip": 2.5, "warehouse": "BER-1"
}`
