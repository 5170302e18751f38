package runtime

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/internal/jsonschema"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// randomSchema builds a random input schema from the constructs the
// generator writes: $defs and refs to them, single-arm allOf, examples,
// deprecated, patterns with escapes, unions, open maps, bounds.
func randomSchema(r *rand.Rand) string {
	defs := map[string]any{}
	for i := range r.IntN(3) {
		defs[fmt.Sprintf("D%d", i)] = randomNode(r, 2, len(defs))
	}
	props := map[string]any{}
	var required []any
	for i := range 1 + r.IntN(5) {
		name := fmt.Sprintf("p%d", i)
		props[name] = randomNode(r, 3, len(defs))
		if r.IntN(3) == 0 {
			required = append(required, name)
		}
	}
	root := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		root["required"] = required
	}
	if len(defs) > 0 {
		root["$defs"] = defs
	}
	b, _ := json.Marshal(root)
	return string(b)
}

func randomNode(r *rand.Rand, depth, ndefs int) any {
	n := map[string]any{}
	switch k := r.IntN(11); {
	case k == 0 && ndefs > 0:
		n["$ref"] = fmt.Sprintf("#/$defs/D%d", r.IntN(ndefs))
	case k == 1:
		n["type"] = "string"
		n["pattern"] = []string{`^[a-z\-\:]+$`, `^\d{2}$`, `^[A-Z_]*$`}[r.IntN(3)]
		n["maxLength"] = 1 + r.IntN(8)
	case k == 2:
		n["type"] = "integer"
		n["minimum"] = r.IntN(5)
		n["exclusiveMaximum"] = 10 + r.IntN(5)
	case k == 3 && depth > 0:
		n["allOf"] = []any{randomNode(r, depth-1, ndefs)}
	case k == 4 && depth > 0:
		n["type"] = "array"
		n["items"] = randomNode(r, depth-1, ndefs)
		n["uniqueItems"] = r.IntN(2) == 0
	case k == 5 && depth > 0:
		n["anyOf"] = []any{randomNode(r, depth-1, ndefs), randomNode(r, depth-1, ndefs)}
	case k == 6:
		n["type"] = "object"
		n["additionalProperties"] = map[string]any{"type": "string"}
	case k == 7 && depth > 0:
		n["type"] = "object"
		n["properties"] = map[string]any{"a": randomNode(r, depth-1, ndefs), "b": map[string]any{"const": "x"}}
		n["required"] = []any{"b"}
	case k == 8 && depth > 0:
		// An object joined with a union that names what it requires, or
		// whose arms accept anything (as DigitalOcean's firewall rules).
		arms := []any{map[string]any{}, map[string]any{}}
		if r.IntN(2) == 0 {
			arms = []any{map[string]any{"required": []any{"a"}}, map[string]any{"required": []any{"b"}}}
		}
		n["allOf"] = []any{map[string]any{"type": "object", "properties": map[string]any{
			"a": randomNode(r, depth-1, ndefs), "b": map[string]any{"type": "string"}}}, map[string]any{"anyOf": arms}}
	case k == 9 && depth > 0:
		// An array without its type (OpenAI's realtime session).
		n["items"] = randomNode(r, depth-1, ndefs)
	default:
		n["enum"] = []any{"a", "b", 3}
	}
	if r.IntN(3) == 0 {
		n["examples"] = []any{"e"}
	}
	if r.IntN(4) == 0 {
		n["deprecated"] = true
	}
	if r.IntN(2) == 0 {
		n["description"] = "Some words"
	}
	return n
}

// randomValue builds a value that the schemas above sometimes accept.
func randomValue(r *rand.Rand, depth int) any {
	switch r.IntN(7) {
	case 0:
		return []string{"a", "b", "x", "ab-:", "12", "A_B", "toolongvalue"}[r.IntN(7)]
	case 1:
		return json.Number(strconv.Itoa(r.IntN(16)))
	case 2:
		if depth == 0 {
			return nil
		}
		list := []any{}
		for range r.IntN(3) {
			list = append(list, randomValue(r, depth-1))
		}
		return list
	case 3, 4:
		if depth == 0 {
			return "a"
		}
		obj := map[string]any{}
		for _, k := range []string{"a", "b", "p0", "p1", "p2", "k"} {
			if r.IntN(2) == 0 {
				obj[k] = randomValue(r, depth-1)
			}
		}
		return obj
	case 5:
		return true
	}
	return nil
}

// TestAdvertiseExactKeepsMeaning: the complete profile and output
// schemas accept exactly the values the full schema accepts, for random
// schemas and values.
func TestAdvertiseExactKeepsMeaning(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range 400 {
		full := randomSchema(r)
		for _, output := range []bool{false, true} {
			adv := advertiseSchema(full, schemaForm{profile: ProfileComplete}, output)
			if strings.Contains(adv, `"examples"`) || strings.Contains(adv, `"deprecated"`) {
				t.Fatalf("seed %d case %d: annotations left in %s", seed, i, adv)
			}
			a, err := jsonschema.CompileNode(full)
			if err != nil {
				t.Fatalf("seed %d case %d: %v\n%s", seed, i, err, full)
			}
			b, err := jsonschema.CompileNode(adv)
			if err != nil {
				t.Fatalf("seed %d case %d: advertised schema does not compile: %v\n%s", seed, i, err, adv)
			}
			for range 30 {
				v := randomValue(r, 3)
				if jsonschema.Accepts(a, v) != jsonschema.Accepts(b, v) {
					t.Fatalf("seed %d case %d: value %s: full accepts %v, advertised %v\nfull: %s\nadvertised: %s",
						seed, i, mustMarshal(v), jsonschema.Accepts(a, v), jsonschema.Accepts(b, v), full, adv)
				}
			}
		}
	}
}

// TestAdvertisePortableSubset: the portable profiles use only the keywords
// Gemini's Schema and OpenAI strict mode share, never weaken a value the
// full schema refuses into one a client must not send silently (every
// dropped constraint is in a description), and the arguments a client
// builds from the portable form pass the full schema once normalised.
func TestAdvertisePortableSubset(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 2))
	allowed := map[string]bool{"nullable": true}
	for k := range portableKeys {
		allowed[k] = true
	}
	for i := range 400 {
		full := randomSchema(r)
		// What the schema says once its refs are inlined and unused
		// definitions gone.
		ref := advertiseSchema(full, schemaForm{profile: ProfileComplete}, false)
		for _, p := range []SchemaProfile{ProfilePortable, ProfileNullable, ProfileFlat} {
			adv := advertiseSchema(full, schemaForm{profile: p}, false)
			v, err := decodeOrdered(adv)
			if err != nil {
				t.Fatalf("seed %d case %d %s: %v", seed, i, p, err)
			}
			if bad := keysOutside(v, allowed, p == ProfileNullable); bad != "" {
				t.Fatalf("seed %d case %d %s: keyword %s in\n%s\nfrom\n%s", seed, i, p, bad, adv, full)
			}
			if bad := strictRefusal(v, "#"); p == ProfilePortable && bad != "" {
				t.Fatalf("seed %d case %d %s: strict clients refuse %s in\n%s\nfrom\n%s", seed, i, p, bad, adv, full)
			}
			for _, k := range []string{"maxLength", "exclusiveMaximum", "uniqueItems"} {
				if strings.Contains(ref, `"`+k+`":`) && !strings.Contains(ref, `"`+k+`":false`) && !strings.Contains(adv, map[string]string{
					"maxLength": "At most", "exclusiveMaximum": "Less than", "uniqueItems": "unique"}[k]) {
					t.Fatalf("seed %d case %d %s: %s neither kept nor described:\n%s\nfrom\n%s", seed, i, p, k, adv, full)
				}
			}
		}
	}
}

// keysOutside returns a keyword of v outside allowed ("" if none); the
// nullable profile may also write type "null" arms.
func keysOutside(v any, allowed map[string]bool, nullArms bool) string {
	o, ok := v.(*jsonObject)
	if !ok {
		if list, ok := v.([]any); ok {
			for _, x := range list {
				if k := keysOutside(x, allowed, nullArms); k != "" {
					return k
				}
			}
		}
		return ""
	}
	for _, k := range o.keys {
		if !allowed[k] {
			return k
		}
		val := o.vals[k]
		if k == "properties" {
			props := val.(*jsonObject)
			for _, n := range props.keys {
				if bad := keysOutside(props.vals[n], allowed, nullArms); bad != "" {
					return bad
				}
			}
			continue
		}
		if k == "type" && val == "null" && !nullArms {
			return `type "null"`
		}
		if k == "enum" || k == "required" {
			continue
		}
		if bad := keysOutside(val, allowed, nullArms); bad != "" {
			return bad
		}
	}
	return ""
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestECMAPattern(t *testing.T) {
	for in, want := range map[string]string{
		`^[a-zA-Z0-9_\-\:]+$`: `^[a-zA-Z0-9_\-:]+$`,
		`^\d+\.\d+$`:          `^\d+\.\d+$`,
		`a\-b`:                `a-b`,
		`\/x\@`:               `\/x@`,
	} {
		if got := ecmaPattern(in); got != want {
			t.Errorf("ecmaPattern(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShortDescription(t *testing.T) {
	long := strings.Repeat("A sentence here. ", 120)
	got := shortDescription(long)
	if len(got) > maxToolDescription || !strings.HasSuffix(got, ".") || !strings.HasPrefix(long, got) {
		t.Errorf("shortDescription gave %d chars ending %q", len(got), got[len(got)-10:])
	}
	if shortDescription("short.") != "short." {
		t.Error("a short description changed")
	}
}

func TestProfileForClient(t *testing.T) {
	for name, want := range map[string]SchemaProfile{
		"mcp": ProfileNullable, "@langchain/mcp-adapters": ProfileFlat, "claude-ai": ProfileComplete,
		"inspector-client": ProfileComplete, "my-app": ProfilePortable, "": ProfilePortable,
	} {
		if got := profileForClient(name); got != want {
			t.Errorf("profileForClient(%q) = %s, want %s", name, got, want)
		}
	}
}

// strictRefusal names what makes @openai/agents-core's strict conversion
// refuse (fall back to non-strict) or change the schema v at path, ""
// when nothing: an anyOf arm holding an object with an optional property
// (it cannot tell which arm a null belongs to), or an optional property
// whose nullability it cannot see (typeless but constrained: it is made
// required without a null arm).
func strictRefusal(v any, path string) string {
	o, ok := v.(*jsonObject)
	if !ok {
		return ""
	}
	if arms, ok := o.vals["anyOf"].([]any); ok {
		for i, a := range arms {
			if ao, ok := a.(*jsonObject); ok && hasOptional(ao) {
				return fmt.Sprintf("%s/anyOf/%d: an arm with optional properties", path, i)
			}
			if r := strictRefusal(a, fmt.Sprintf("%s/anyOf/%d", path, i)); r != "" {
				return r
			}
		}
	}
	if items, ok := o.vals["items"]; ok {
		if r := strictRefusal(items, path+"/items"); r != "" {
			return r
		}
	}
	props, _ := o.vals["properties"].(*jsonObject)
	if props == nil {
		return ""
	}
	req := stringList(o.vals["required"])
	for _, name := range props.keys {
		p, _ := props.vals[name].(*jsonObject)
		if p == nil {
			continue
		}
		_, typed := p.get("type")
		_, union := p.get("anyOf")
		constrained := false
		for _, k := range p.keys {
			constrained = constrained || (k != "description" && k != "title")
		}
		if !contains(req, name) && !typed && !union && constrained {
			return fmt.Sprintf("%s/properties/%s: optional, constrained and typeless", path, name)
		}
		if r := strictRefusal(p, path+"/properties/"+name); r != "" {
			return r
		}
	}
	return ""
}

// TestAdvertiseStrictShapes: shapes of real specs that strict clients
// refused, each in a portable form that they accept.
func TestAdvertiseStrictShapes(t *testing.T) {
	rules := `{"type":"object","properties":{"inbound_rules":{"type":"array","items":{"type":"object","properties":{"ports":{"type":"string"}}}},"outbound_rules":{"type":"array","items":{"type":"string"}}}}`
	for name, full := range map[string]string{
		// DigitalOcean's firewall rules: an allOf of the rules object and
		// a union of arms that accept anything.
		"allOf with an anyOf of {} arms": `{"type":"object","properties":{"body":{"allOf":[` + rules + `,{"anyOf":[{},{}]}]}}}`,
		// The same union as its spec means it: one of two lists required.
		"allOf with an anyOf of required names": `{"type":"object","properties":{"body":{"allOf":[` + rules +
			`,{"anyOf":[{"required":["inbound_rules"]},{"required":["outbound_rules"]}]}]}}}`,
		// OpenAI's realtime session: an optional array without a type.
		"typeless optional array":  `{"type":"object","properties":{"modalities":{"description":"Modalities.","items":{"type":"string"}}}}`,
		"typeless optional object": `{"type":"object","properties":{"o":{"properties":{"a":{"type":"string"}}}}}`,
	} {
		// The JS agents list as an application (portable); the nullable
		// profile is for the Python SDKs, whose conversion allows these.
		for _, p := range []SchemaProfile{ProfilePortable} {
			adv := advertiseSchema(full, schemaForm{profile: p}, false)
			v, err := decodeOrdered(adv)
			if err != nil {
				t.Fatalf("%s %s: %v", name, p, err)
			}
			if r := strictRefusal(v, "#"); r != "" {
				t.Errorf("%s %s: %s in\n%s", name, p, r, adv)
			}
		}
	}
	// A union that accepts anything says nothing.
	adv0 := advertiseSchema(`{"type":"object","properties":{"body":{"allOf":[`+rules+`,{"anyOf":[{},{}]}]}}}`, schemaForm{profile: ProfilePortable}, false)
	if strings.Contains(adv0, "forms") || strings.Contains(adv0, "anyOf") {
		t.Errorf("a union of {} arms is advertised: %s", adv0)
	}
	// Written as one object, the required-names union says its forms.
	adv := advertiseSchema(`{"type":"object","properties":{"body":{"allOf":[`+rules+
		`,{"anyOf":[{"required":["inbound_rules"]},{"required":["outbound_rules"]}]}]}}}`, schemaForm{profile: ProfilePortable}, false)
	if !strings.Contains(adv, "(1) with inbound_rules; (2) with outbound_rules") {
		t.Errorf("the union of required names is not said: %s", adv)
	}
}

// TestAdvertiseMCPHeader: x-mcp-header stays, unchanged and unnoted, in
// every profile for clients that send Mcp-Param-* headers, and leaves
// the schema without a word for the others.
func TestAdvertiseMCPHeader(t *testing.T) {
	full := `{"type":"object","properties":{"reason":{"type":"string","x-mcp-header":"Return-Reason","x-other":1}},"required":["reason"]}`
	for _, p := range schemaProfiles {
		for _, headers := range []bool{false, true} {
			adv := advertiseSchema(full, schemaForm{profile: p, mcpHeaders: headers}, false)
			if got := strings.Contains(adv, `"x-mcp-header":"Return-Reason"`); got != headers {
				t.Errorf("%s, Mcp-Param headers %v: x-mcp-header kept %v: %s", p, headers, got, adv)
			}
			if strings.Contains(adv, "x-other") || strings.Contains(adv, "Constraint") {
				t.Errorf("%s, Mcp-Param headers %v: %s", p, headers, adv)
			}
		}
	}
}

// TestAdvertiseCompleteKeepsIdentity checks that the complete profile of
// an input schema keeps $schema, $anchor and an anchored definition (as
// a definition, referenced), and that the other profiles and output
// schemas drop them and inline the definition.
func TestAdvertiseCompleteKeepsIdentity(t *testing.T) {
	full := `{"$schema":"` + jsonschema.Dialect2020 + `","type":"object","properties":{"a":{"$ref":"#/$defs/address"}},` +
		`"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]},` +
		`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"city":{"type":"string"}}}}}`
	for _, c := range []struct {
		form   schemaForm
		output bool
		keeps  bool
	}{
		{schemaForm{profile: ProfileComplete}, false, true},
		{schemaForm{profile: ProfileComplete}, true, false},
		{schemaForm{profile: ProfilePortable}, false, false},
		{schemaForm{profile: ProfileNullable}, false, false},
		{schemaForm{profile: ProfileFlat}, false, false},
	} {
		adv := advertiseSchema(full, c.form, c.output)
		var got map[string]any
		if err := json.Unmarshal([]byte(adv), &got); err != nil {
			t.Fatal(err)
		}
		defs, _ := got["$defs"].(map[string]any)
		anchored, _ := defs["address"].(map[string]any)
		keeps := got["$schema"] == jsonschema.Dialect2020 && anchored["$anchor"] == "addressDef" &&
			strings.Contains(adv, `"$ref":"#/$defs/address"`)
		if keeps != c.keeps {
			t.Errorf("%s output=%v: keeps $schema, $anchor and the anchored $defs: %v, want %v\n%s", c.form.profile, c.output, keeps, c.keeps, adv)
		}
		if c.keeps {
			if _, ok := got["if"]; !ok {
				t.Errorf("complete profile lost if/then/else:\n%s", adv)
			}
		} else if strings.Contains(adv, "$anchor") || strings.Contains(adv, "$schema") {
			t.Errorf("%s output=%v: $anchor or $schema left in\n%s", c.form.profile, c.output, adv)
		}
	}
}

// TestAdvertiseConditionalSentence checks that the portable profiles say
// an if/then/else of the common form in words, and any other as JSON.
func TestAdvertiseConditionalSentence(t *testing.T) {
	props := `"properties":{"kind":{"type":"string","enum":["a","b"]},"phone":{"type":"string"},"email":{"type":"string"}}`
	cond := `"if":{"properties":{"kind":{"const":"a"}},"required":["kind"]}`
	for full, want := range map[string]string{
		`{"type":"object",` + props + `,` + cond + `,"then":{"required":["phone"]},"else":{"required":["email"]}}`: `If kind is \"a\", also give phone; otherwise give email.`,
		`{"type":"object",` + props + `,` + cond + `,"then":{"required":["phone","email"]}}`:                       `If kind is \"a\", also give phone, email.`,
		`{"type":"object",` + props + `,` + cond + `,"else":{"required":["email"]}}`:                               `If kind is \"a\", nothing more is needed; otherwise give email.`,
		`{"type":"object",` + props + `,` + cond + `,"then":{"minProperties":2}}`:                                  `Constraint then: `,
	} {
		for _, p := range []SchemaProfile{ProfilePortable, ProfileNullable, ProfileFlat} {
			adv := advertiseSchema(full, schemaForm{profile: p}, false)
			if !strings.Contains(adv, want) || strings.Contains(adv, `"if":`) {
				t.Errorf("%s: want %q and no if keyword in\n%s", p, want, adv)
			}
		}
	}
}
