package generator_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// TestConditionalChecksFollowTheOverrideFile: the whole-object checks of
// a random conditional body (randomConditionalBody) hold through an
// override file that renames one of the inputs they name, or makes the
// operation one action of an action tool (with or without such a rename
// in the action's own input:), and through the collision rule (a query
// parameter of the same name makes the body field body_NAME).
// Invariant, for any body, file and arguments: the server refuses a call
// exactly when an independent validator refuses the arguments, with the
// names translated back, against the body schema as the spec wrote it.
func TestConditionalChecksFollowTheOverrideFile(t *testing.T) {
	upstream := okUpstream(t)
	shapes := map[string]int{}
	var v verdicts
	for seed := uint64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2021))
		body := randomConditionalBody(rng)
		names := slices.Sorted(maps.Keys(body["properties"].(map[string]any)))
		from := names[rng.IntN(len(names))]
		to := "my_" + from
		shape := []string{"rename", "action", "action+rename", "collision"}[seed%4]
		shapes[shape]++
		var file []byte
		collide := ""
		if shape == "collision" {
			collide, to = from, "body_"+from
		} else {
			file = conditionalOverride(shape, from, to)
		}
		rt, tool, schema := conditionalServer(t, seed, body, upstream.URL, file, collide)
		if _, ok := schema["properties"].(map[string]any)[to]; !ok && shape != "action" {
			t.Fatalf("seed %d (%s of %q): no input %q\ninput schema: %s", seed, shape, from, to, mustJSON(schema))
		}
		ref := referenceValidator(t, body)
		call := func(args map[string]any) bool {
			in := map[string]any{}
			for k, v := range args {
				if k == from && shape != "action" {
					k = to
				}
				in[k] = v
			}
			if strings.HasPrefix(shape, "action") {
				in["action"] = "create"
			}
			return serverAccepts(rt, tool, in)
		}
		v.agree(t, 25, func() map[string]any { return randomBodyArgs(rng, body) }, call, ref,
			fmt.Sprintf("seed %d (%s of %q)", seed, shape, from), fmt.Sprintf("body schema: %s\noverride file:\n%s", mustJSON(body), file))
		rt.Close()
	}
	if v.accepted < 50 || v.refused < 50 {
		t.Fatalf("the random arguments did not exercise both verdicts: %d accepted, %d refused", v.accepted, v.refused)
	}
	t.Logf("60 bodies (%v), %d calls accepted and %d refused, each as the reference validator decided", shapes, v.accepted, v.refused)
}

// conditionalOverride is an override file of one tool over createThing:
// a task tool renaming input from, or an action tool of createThing
// (action create) and getThing (action get), renaming from in the create
// action's own input: for "action+rename".
func conditionalOverride(shape, from, to string) []byte {
	rename := map[string]any{from: map[string]any{"rename": to}}
	desc := "Create or read a thing under test. Use it only in this test."
	var tool map[string]any
	switch shape {
	case "rename":
		tool = map[string]any{"name": "make_thing", "operation": "createThing", "description": desc, "input": rename}
	default:
		create := map[string]any{"operation": "createThing"}
		if shape == "action+rename" {
			create["input"] = rename
		}
		tool = map[string]any{"name": "things", "description": desc,
			"actions": map[string]any{"create": create, "get": map[string]any{"operation": "getThing"}}}
	}
	b, err := yaml.Marshal(map[string]any{"version": 1, "tools": []any{tool}})
	if err != nil {
		panic(fmt.Sprint("conditionalOverride: ", err))
	}
	return b
}
