package mapping

import (
	"maps"
	"slices"
)

// Whole-object checks (a flattened body's allOf parts and if/then/else,
// see mergedObject.constraints) name the inputs they constrain. When an
// override file renames, removes or gathers inputs, the checks follow:
// a rename is carried into them, a check naming an input that is gone is
// dropped (looser, never wrong: the upstream still checks), and an action
// tool keeps each action's checks under "if action is this one".

// constraintNames are the input names a check reads at the object's own
// level (properties, required, dependentRequired, dependentSchemas,
// through its combinators). opaque reports a check whose reach cannot be
// told from names: it reads every property (additionalProperties,
// propertyNames, a property count, a $ref, const or enum of the object)
// and so may break whenever inputs change.
func constraintNames(c map[string]any) (names map[string]bool, opaque bool) {
	names = map[string]bool{}
	sameLevel(c, func(s map[string]any) {
		for key, v := range s {
			switch key {
			case "properties", "dependentSchemas":
				m, _ := v.(map[string]any)
				for n := range m {
					names[n] = true
				}
			case "required":
				for _, n := range nameList(v) {
					names[n] = true
				}
			case "dependentRequired":
				m, _ := v.(map[string]any)
				for n, deps := range m {
					names[n] = true
					for _, d := range nameList(deps) {
						names[d] = true
					}
				}
			case "additionalProperties", "patternProperties", "propertyNames", "unevaluatedProperties",
				"minProperties", "maxProperties", "$ref", "$dynamicRef", "const", "enum":
				opaque = true
			}
		}
	})
	return names, opaque
}

// renamedConstraint is a copy of check c with the inputs it reads renamed
// at once (old name -> new name), so that one rename's result is never
// taken for another's source.
func renamedConstraint(c map[string]any, names map[string]string) map[string]any {
	newName := func(n string) string {
		if to, ok := names[n]; ok {
			return to
		}
		return n
	}
	rename := func(list any) []string {
		l := nameList(list)
		for i, n := range l {
			l[i] = newName(n)
		}
		return l
	}
	out := deepCopy(c)
	sameLevel(out, func(s map[string]any) {
		for _, key := range []string{"properties", "dependentRequired", "dependentSchemas"} {
			m, ok := s[key].(map[string]any)
			if !ok {
				continue
			}
			renamed := map[string]any{}
			for n, sub := range m {
				if key == "dependentRequired" {
					sub = rename(sub)
				}
				renamed[newName(n)] = sub
			}
			s[key] = renamed
		}
		if v, ok := s["required"]; ok {
			s["required"] = rename(v)
		}
	})
	return out
}

// sameLevel calls fn on check c and then on every schema within it that
// constrains the same object: combinator arms, not/if/then/else and
// dependentSchemas (read after fn, which may replace their maps).
func sameLevel(c map[string]any, fn func(s map[string]any)) {
	fn(c)
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		for _, sub := range asSlice(c[key]) {
			if sm, ok := sub.(map[string]any); ok {
				sameLevel(sm, fn)
			}
		}
	}
	for _, key := range []string{"not", "if", "then", "else"} {
		if sm, ok := c[key].(map[string]any); ok {
			sameLevel(sm, fn)
		}
	}
	deps, _ := c["dependentSchemas"].(map[string]any)
	for _, n := range slices.Sorted(maps.Keys(deps)) {
		if sm, ok := deps[n].(map[string]any); ok {
			sameLevel(sm, fn)
		}
	}
}

// actionConstraint is check c of one action of an action tool: it holds
// only when the call asks for that action.
func actionConstraint(action string, c map[string]any) map[string]any {
	return map[string]any{
		"if":   map[string]any{"properties": map[string]any{"action": map[string]any{"const": action}}, "required": []any{"action"}},
		"then": c,
	}
}

// dropConstraintsOn drops the checks that read input name, or whose reach
// cannot be told.
func (in *taskInput) dropConstraintsOn(name string) {
	in.constraints = slices.DeleteFunc(in.constraints, func(c map[string]any) bool {
		names, opaque := constraintNames(c)
		return opaque || names[name]
	})
}

// renameInConstraints carries a rename of input from to to into the
// checks.
func (in *taskInput) renameInConstraints(from, to string) {
	for i, c := range in.constraints {
		if names, _ := constraintNames(c); names[from] {
			in.constraints[i] = renamedConstraint(c, map[string]string{from: to})
		}
	}
}

// nameList is a list of names as the converted schema holds it ([]string)
// or as decoded JSON does ([]any), copied.
func nameList(v any) []string {
	switch l := v.(type) {
	case []string:
		return slices.Clone(l)
	case []any:
		var out []string
		for _, n := range l {
			if n, ok := n.(string); ok {
				out = append(out, n)
			}
		}
		return out
	}
	return nil
}
