package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"

	"github.com/oa2mcp/oa2mcp/runtime/internal/textkit"
)

func (v *Validator) evalArray(n *Node, arr []any, p *valuePath, depth int) {
	if n.minItems >= 0 && len(arr) < n.minItems && v.report() {
		v.add(p, "must have at least %d items; got %d", n.minItems, len(arr))
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems && v.report() {
		v.add(p, "must have at most %d items; got %d", n.maxItems, len(arr))
	}
	for i, item := range arr {
		sub := n.items
		if i < len(n.prefixItems) {
			sub = n.prefixItems[i]
		}
		if sub != nil {
			if v.eval(sub, item, v.child(p, "", i), depth+1); v.stop() {
				return
			}
		}
	}
	if n.contains != nil {
		v.evalContains(n, arr, p, depth)
	}
	if n.uniqueItems && len(arr) > 1 {
		v.evalUnique(arr, p)
	}
}

// evalContains checks contains with minContains (default 1) and
// maxContains.
func (v *Validator) evalContains(n *Node, arr []any, p *valuePath, depth int) {
	matched := 0
	for _, item := range arr {
		if v.matches(n.contains, item, depth) {
			matched++
		}
	}
	least := n.minContains
	if least < 0 {
		least = 1
	}
	if matched < least && v.report() {
		v.add(p, "must contain at least %d matching item(s); got %d%s", least, matched, v.containsHint(n.contains, arr, depth))
	}
	if n.maxContains >= 0 && matched > n.maxContains && v.report() {
		v.add(p, "must contain at most %d matching item(s); got %d", n.maxContains, matched)
	}
}

// containsHint says why the first item that does not match fails.
func (v *Validator) containsHint(n *Node, arr []any, depth int) string {
	for i, item := range arr {
		if !v.matches(n, item, depth) {
			return fmt.Sprintf(" (item %d: %s)", i, firstProblem(n, item, depth))
		}
	}
	return ""
}

// firstProblem describes why value fails n, for hints.
func firstProblem(n *Node, value any, depth int) string {
	sub := Validator{}
	sub.eval(n, value, sub.child(nil, "", -1), depth+1)
	if len(sub.out) == 0 {
		return "it does not match"
	}
	return sub.out[0].msg
}

// evalUnique compares small arrays pairwise, without allocating, and
// larger ones by a canonical rendering of each item.
func (v *Validator) evalUnique(arr []any, p *valuePath) {
	if len(arr) <= 16 {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if jsonEqual(arr[j], arr[i]) {
					if v.report() {
						v.add(p, "must not contain duplicates; items %d and %d are equal", j, i)
					}
					return
				}
			}
		}
		return
	}
	seen := make(map[string]int, len(arr))
	for i, item := range arr {
		key := canonicalJSON(item)
		if j, dup := seen[key]; dup {
			if v.report() {
				v.add(p, "must not contain duplicates; items %d and %d are equal", j, i)
			}
			return
		}
		seen[key] = i
	}
}

// canonicalJSON renders a value with sorted keys and normalised numbers so
// equal values render equally.
func canonicalJSON(value any) string {
	var buf bytes.Buffer
	writeCanonical(&buf, value)
	return buf.String()
}

func writeCanonical(buf *bytes.Buffer, value any) {
	if num, ok := asNumber(value); ok {
		if r, ok := new(big.Rat).SetString(num.String()); ok {
			buf.WriteString(r.RatString())
			return
		}
		buf.WriteString(num.String())
		return
	}
	switch x := value.(type) {
	case []any:
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case map[string]any:
		keys := textkit.SortedKeys(x)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(strconv.Quote(k))
			buf.WriteByte(':')
			writeCanonical(buf, x[k])
		}
		buf.WriteByte('}')
	default:
		b, _ := json.Marshal(x)
		buf.Write(b)
	}
}
