package ir

import "reflect"

// ConjoinSchemas is a JSON schema that holds when both a and b hold, for
// a property that an object and its allOf part (or two parts) declare:
// allOf is a conjunction, so neither declaration wins. It is b alone when
// a is nil (nothing declared yet), equal to b or an allOf already listing
// b; otherwise {"allOf": [a, b]}. This is the rule load.Document.Properties
// applies to loaded schemas, over converted ones.
func ConjoinSchemas(a, b any) any {
	if a == nil || reflect.DeepEqual(a, b) {
		return b
	}
	if am, ok := a.(map[string]any); ok && len(am) == 1 {
		arms, _ := am["allOf"].([]any)
		for _, x := range arms {
			if reflect.DeepEqual(x, b) {
				return a
			}
		}
	}
	return map[string]any{"allOf": []any{a, b}}
}
