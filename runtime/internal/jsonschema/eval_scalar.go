package jsonschema

import (
	"cmp"
	"encoding/json"
	"math/big"
	"strconv"
	"unicode/utf8"
)

func (v *Validator) evalString(n *Node, s string, p *valuePath) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength && v.report() {
			v.add(p, "must be at least %d characters long; got %d", n.minLength, l)
		}
		if n.maxLength >= 0 && l > n.maxLength && v.report() {
			v.add(p, "must be at most %d characters long; got %d", n.maxLength, l)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) && v.report() {
		v.add(p, "must match the pattern %s; got %s", n.patternSrc, ShowValue(s))
	}
	if n.format != "" {
		if want := checkFormat(n.format, s); want != "" && v.report() {
			v.add(p, "must be %s; got %s", want, ShowValue(s))
		}
	}
}

func (v *Validator) evalNumber(n *Node, num json.Number, p *valuePath) {
	f, _ := strconv.ParseFloat(num.String(), 64)
	if n.minimum != nil && compareNumber(num, f, n.minimum) < 0 && v.report() {
		v.add(p, "must be at least %s; got %s", n.minimum.text, num)
	}
	if n.maximum != nil && compareNumber(num, f, n.maximum) > 0 && v.report() {
		v.add(p, "must be at most %s; got %s", n.maximum.text, num)
	}
	if n.exclMin != nil && compareNumber(num, f, n.exclMin) <= 0 && v.report() {
		v.add(p, "must be greater than %s; got %s", n.exclMin.text, num)
	}
	if n.exclMax != nil && compareNumber(num, f, n.exclMax) >= 0 && v.report() {
		v.add(p, "must be less than %s; got %s", n.exclMax.text, num)
	}
	if n.multipleOf != nil && !isMultiple(num, n.multipleOf) && v.report() {
		v.add(p, "must be a multiple of %s; got %s", n.multipleOf.text, num)
	}
}

// compareNumber compares a value (and its float) with a bound exactly.
// Rounding to float64 is monotonic, so unequal floats decide; only a tie
// needs exact arithmetic.
func compareNumber(num json.Number, f float64, b *numBound) int {
	switch {
	case f < b.f:
		return -1
	case f > b.f:
		return 1
	}
	if d := parseDecimal(num.String()); d.ok && b.dec.ok {
		if x, y, ok := alignDecimals(d, b.dec); ok {
			return cmp.Compare(x, y)
		}
	}
	r, ok := new(big.Rat).SetString(num.String())
	if !ok {
		return 0
	}
	return r.Cmp(b.exact)
}

// isMultiple reports whether num is an integer multiple of m, exactly:
// with int64 decimals when both fit, with big.Rat otherwise.
func isMultiple(num json.Number, m *numBound) bool {
	if d := parseDecimal(num.String()); d.ok && m.dec.ok {
		if a, b, ok := alignDecimals(d, m.dec); ok {
			return a%b == 0
		}
	}
	r, ok := new(big.Rat).SetString(num.String())
	return ok && r.Quo(r, m.exact).IsInt()
}
