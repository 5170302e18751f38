package generator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	santhosh "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
)

// TestConditionalBodiesKeepTheirChecks generates random OpenAPI 3.1
// request bodies that use if/then/else, $anchor and allOf/anyOf of
// required lists, generates each one's server, and calls its tool with
// random valid and invalid arguments through a real HTTP upstream on
// 127.0.0.1. Invariants, for any such body: the body is flattened (no
// "body" input), the input schema keeps if/then/else, $schema and the
// anchored definition, and the server refuses a call exactly when an
// independent validator (santhosh-tekuri/jsonschema, draft 2020-12)
// refuses the arguments against the body schema as the spec wrote it. A
// failure prints the seed, the body schema and the arguments, minimised.
func TestConditionalBodiesKeepTheirChecks(t *testing.T) {
	upstream := okUpstream(t)
	var v verdicts
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2020))
		body := randomConditionalBody(rng)
		rt, tool, schema := conditionalServer(t, seed, body, upstream.URL, nil, "")
		checkConditionalSchema(t, seed, body, schema)
		v.agree(t, 25, func() map[string]any { return randomBodyArgs(rng, body) },
			func(a map[string]any) bool { return serverAccepts(rt, tool, a) }, referenceValidator(t, body),
			fmt.Sprintf("seed %d", seed), "body schema: "+mustJSON(body))
		rt.Close()
	}
	if v.accepted < 50 || v.refused < 50 {
		t.Fatalf("the random arguments did not exercise both verdicts: %d accepted, %d refused", v.accepted, v.refused)
	}
	t.Logf("40 bodies, %d calls accepted and %d refused, each as the reference validator decided", v.accepted, v.refused)
}

// verdicts counts the calls of a differential test: the server against
// an independent validator.
type verdicts struct{ accepted, refused int }

// agree makes n calls with the arguments args draws and fails, naming
// where and showing the minimised arguments and detail, as soon as
// accepts (the server) decides otherwise than ref.
func (v *verdicts) agree(t *testing.T, n int, args func() map[string]any, accepts, ref func(map[string]any) bool, where, detail string) {
	t.Helper()
	for range n {
		a := args()
		want := ref(a)
		if got := accepts(a); got != want {
			min := minimiseArgs(a, func(m map[string]any) bool { return accepts(m) != ref(m) })
			t.Fatalf("%s: the server %s %s, the reference validator %s it\n%s", where, verdict(got), mustJSON(min), verdict(want), detail)
		}
		if want {
			v.accepted++
		} else {
			v.refused++
		}
	}
}

func verdict(ok bool) string {
	if ok {
		return "accepts"
	}
	return "refuses"
}

// conditionalProps are the body's properties: name -> JSON type; "kind"
// is an enum the if tests.
var conditionalProps = map[string]string{"name": "string", "count": "integer", "phone": "string", "email": "string", "kind": "string"}

// randomConditionalBody is a body schema with an anchored address
// definition, a random required list, up to two allOf parts of anyOf
// required lists, and (mostly) an if/then/else on "kind".
func randomConditionalBody(rng *rand.Rand) map[string]any {
	props := map[string]any{"address": map[string]any{"$ref": "#/$defs/address"}, "kind": map[string]any{"type": "string", "enum": []any{"a", "b"}}}
	names := []string{"address"}
	for n, typ := range conditionalProps {
		if n != "kind" {
			props[n] = map[string]any{"type": typ}
		}
		names = append(names, n)
	}
	slices.Sort(names)
	pick := func(max int) []any {
		var out []any
		for _, i := range rng.Perm(len(names))[:1+rng.IntN(max)] {
			out = append(out, names[i])
		}
		return out
	}
	body := map[string]any{
		"type": "object", "properties": props, "additionalProperties": false,
		"$defs": map[string]any{"address": map[string]any{"$anchor": "addressDef", "type": "object",
			"properties": map[string]any{"city": map[string]any{"type": "string"}}}},
	}
	if rng.IntN(2) == 0 {
		body["required"] = pick(2)
	}
	var all []any
	for i := rng.IntN(3); i > 0; i-- {
		var arms []any
		for j := 1 + rng.IntN(3); j > 0; j-- {
			arms = append(arms, map[string]any{"required": pick(2)})
		}
		all = append(all, map[string]any{"anyOf": arms})
	}
	if len(all) > 0 {
		body["allOf"] = all
	}
	if rng.IntN(5) > 0 {
		body["if"] = map[string]any{"properties": map[string]any{"kind": map[string]any{"const": "a"}}, "required": []any{"kind"}}
		body["then"] = map[string]any{"required": pick(2)}
		if rng.IntN(3) > 0 {
			body["else"] = map[string]any{"required": pick(2)}
		}
	}
	return body
}

// conditionalServer writes a 3.1 spec with body as the request body of
// one POST (its $defs as components), generates it and starts its server.
// With an override file the spec also has GET /things/{id} (getThing) and
// the file's first tool is the one returned. A collide name gives the
// POST a query parameter of that name, so the body field of that name is
// renamed by the collision rule.
func conditionalServer(t *testing.T, seed uint64, body map[string]any, upstream string, ovFile []byte, collide string) (*runtime.Server, string, map[string]any) {
	t.Helper()
	schema := map[string]any{}
	for k, v := range body {
		if k != "$defs" {
			schema[k] = v
		}
	}
	text := strings.ReplaceAll(mustJSON(schema), "#/$defs/", "#/components/schemas/")
	spec := fmt.Sprintf(`{"openapi":"3.1.0","info":{"title":"Conditional","version":"1"},"servers":[{"url":%q}],
"paths":{"/things":{"post":{"operationId":"createThing","summary":"Create a thing",%s
"requestBody":{"required":true,"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Thing"}}}},
"responses":{"200":{"description":"Created.","content":{"application/json":{"schema":{"type":"object","properties":{"text":{"type":"string"}}}}}}}}}%s},
"components":{"schemas":{"Thing":%s,"address":%s}}}`, upstream, queryParameter(collide), getThingPath(ovFile != nil), text, mustJSON(body["$defs"].(map[string]any)["address"]))
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, problems := load.Load(context.Background(), path, load.Options{})
	if problems.HasErrors() {
		t.Fatalf("seed %d: %v\n%s", seed, problems.Errors(), spec)
	}
	cfg := generator.Config{Name: "conditional"}
	if ovFile != nil {
		ov, problems := overrides.Decode("conditional.yaml", ovFile)
		if problems.HasErrors() {
			t.Fatalf("seed %d: the override file does not decode: %v\n%s", seed, problems.Errors(), ovFile)
		}
		cfg.Overrides = ov
	}
	srv, problems := generator.Model(doc, cfg)
	if problems.HasErrors() {
		t.Fatalf("seed %d: the body does not generate: %v\nbody schema: %s\noverride file: %s", seed, problems.Errors(), mustJSON(body), ovFile)
	}
	if len(srv.Tools) != 1 {
		t.Fatalf("seed %d: %d tools, want 1", seed, len(srv.Tools))
	}
	var input map[string]any
	json.Unmarshal([]byte(srv.Tools[0].InputSchema), &input)
	rt, err := runtime.NewServer(cases.Definition(srv), runtime.Options{BaseURL: upstream})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return rt, srv.Tools[0].Name, input
}

// checkConditionalSchema checks that the input schema is the flattened
// body with its 2020-12 keywords.
func checkConditionalSchema(t *testing.T, seed uint64, body, input map[string]any) {
	t.Helper()
	props, _ := input["properties"].(map[string]any)
	_, nested := props["body"]
	anchor, _ := input["$defs"].(map[string]any)["address"].(map[string]any)["$anchor"]
	_, hasIf := input["if"]
	_, bodyIf := body["if"]
	switch {
	case nested:
		t.Fatalf("seed %d: the body stayed nested under \"body\"\nbody schema: %s\ninput schema: %s", seed, mustJSON(body), mustJSON(input))
	case input["$schema"] != "https://json-schema.org/draft/2020-12/schema":
		t.Fatalf("seed %d: input $schema is %v", seed, input["$schema"])
	case anchor != "addressDef":
		t.Fatalf("seed %d: $defs.address lost its $anchor\ninput schema: %s", seed, mustJSON(input))
	case hasIf != bodyIf:
		t.Fatalf("seed %d: if at the input's root is %v, in the body %v\nbody schema: %s\ninput schema: %s", seed, hasIf, bodyIf, mustJSON(body), mustJSON(input))
	}
}

// referenceValidator compiles body with santhosh-tekuri/jsonschema.
func referenceValidator(t *testing.T, body map[string]any) func(map[string]any) bool {
	t.Helper()
	doc, err := santhosh.UnmarshalJSON(strings.NewReader(mustJSON(body)))
	if err != nil {
		t.Fatal(err)
	}
	comp := santhosh.NewCompiler()
	comp.DefaultDraft(santhosh.Draft2020)
	if err := comp.AddResource("body.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := comp.Compile("body.json")
	if err != nil {
		t.Fatal(err)
	}
	return func(args map[string]any) bool {
		v, err := santhosh.UnmarshalJSON(strings.NewReader(mustJSON(args)))
		return err == nil && s.Validate(v) == nil
	}
}

// randomBodyArgs gives each property at random: left out, a value of its
// type, or (rarely) one of another type; and rarely an unknown property.
func randomBodyArgs(rng *rand.Rand, body map[string]any) map[string]any {
	args := map[string]any{}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range body["properties"].(map[string]any) {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		switch r := rng.IntN(20); {
		case r < 9:
		case r == 19:
			args[n] = []any{1}
		case n == "address":
			args[n] = map[string]any{"city": "Paris"}
		case n == "kind":
			args[n] = []string{"a", "b", "c"}[rng.IntN(3)]
		case conditionalProps[n] == "integer":
			args[n] = rng.IntN(100)
		default:
			args[n] = "x" + fmt.Sprint(rng.IntN(10))
		}
	}
	if rng.IntN(15) == 0 {
		args["unknown"] = "y"
	}
	return args
}

// serverAccepts calls the tool; a refusal is an error result.
func serverAccepts(rt *runtime.Server, tool string, args map[string]any) bool {
	res, err := rt.CallTool(context.Background(), tool, args)
	return err == nil && res != nil && !res.IsError
}

// minimiseArgs removes arguments one at a time while fails still holds.
func minimiseArgs(args map[string]any, fails func(map[string]any) bool) map[string]any {
	cur := args
	for changed := true; changed; {
		changed = false
		for k := range cur {
			next := map[string]any{}
			for k2, v := range cur {
				if k2 != k {
					next[k2] = v
				}
			}
			if fails(next) {
				cur, changed = next, true
				break
			}
		}
	}
	return cur
}

// getThingPath is the spec's second path when an override file builds an
// action tool of both operations.
func getThingPath(with bool) string {
	if !with {
		return ""
	}
	return `,"/things/{id}":{"get":{"operationId":"getThing","summary":"Get a thing",
"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],
"responses":{"200":{"description":"The thing.","content":{"application/json":{"schema":{"type":"object","properties":{"text":{"type":"string"}}}}}}}}}`
}

// queryParameter is an optional query parameter named name, or nothing.
func queryParameter(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(`"parameters":[{"name":%q,"in":"query","schema":{"type":"string"}}],`, name)
}

// okUpstream answers every request with {"text":"ok"}.
func okUpstream(t *testing.T) *httptest.Server {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"text":"ok"}`))
	}))
	t.Cleanup(upstream.Close)
	return upstream
}
