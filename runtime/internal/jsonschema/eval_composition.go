package jsonschema

import "fmt"

func (v *Validator) evalComposition(n *Node, value any, p *valuePath, depth int) {
	for _, s := range n.allOf {
		if v.eval(s, value, p, depth+1); v.stop() {
			return
		}
	}
	if len(n.anyOf) > 0 && v.matchCount(n.anyOf, value, depth, 1) == 0 && v.report() {
		v.add(p, "does not match any of the %d allowed forms%s", len(n.anyOf), closestForm(n.anyOf, value, p, depth))
	}
	if len(n.oneOf) > 0 {
		switch v.matchCount(n.oneOf, value, depth, 2) {
		case 0:
			if v.report() {
				v.add(p, "does not match any of the %d allowed forms%s", len(n.oneOf), closestForm(n.oneOf, value, p, depth))
			}
		case 1:
		default:
			if v.report() {
				v.add(p, "matches more than one of the allowed forms; make it match exactly one")
			}
		}
	}
	if n.not != nil && v.matches(n.not, value, depth) && v.report() {
		v.add(p, "has a form that is not allowed; got %s", ShowValue(value))
	}
	if n.ifNode != nil {
		v.evalConditional(n, value, p, depth)
	}
}

// evalConditional applies then or else by whether value matches if.
func (v *Validator) evalConditional(n *Node, value any, p *valuePath, depth int) {
	branch := n.elseOf
	if v.matches(n.ifNode, value, depth) {
		branch = n.then
	}
	if branch != nil {
		v.eval(branch, value, p, depth+1)
	}
}

// matchCount counts the branches value satisfies, stopping at limit.
func (v *Validator) matchCount(branches []*Node, value any, depth, limit int) int {
	matched := 0
	for _, b := range branches {
		if v.matches(b, value, depth) {
			if matched++; matched >= limit {
				break
			}
		}
	}
	return matched
}

// closestForm describes the first problem of the branch with the fewest.
func closestForm(branches []*Node, value any, p *valuePath, depth int) string {
	bestN, best := 1<<30, ""
	for _, b := range branches {
		sub := Validator{}
		sub.eval(b, value, p, depth+1)
		if n := len(sub.out) + sub.extra; n > 0 && n < bestN {
			bestN, best = n, fmt.Sprintf(" (closest form: %s)", sub.out[0].text())
		}
	}
	return best
}
