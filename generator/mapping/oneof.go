package mapping

import (
	"fmt"
	"slices"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// exclusive reports arms of a oneOf that no value can match two of: each
// allows JSON types the others do not, or each fixes one property every
// arm requires to values the others do not allow (a discriminator), or
// each is closed (additionalProperties: false) and requires a property
// no other arm declares. Specs write oneOf for arms that overlap as often
// as not (DigitalOcean's load balancer: by droplet ids or by tag, neither
// required); enforced as written, such a oneOf refuses every value the
// API accepts, so the schema keeps it only when the arms exclude each
// other and says anyOf otherwise. The API still checks the rest.
func (w *schemaWriter) exclusive(arms []*load.Schema) bool {
	if len(arms) < 2 {
		return true
	}
	if w.exclusiveByType(arms) {
		return true
	}
	shapes := make([]mergedObject, len(arms))
	for i, a := range arms {
		shapes[i] = w.merged(a)
	}
	return w.discriminated(shapes) || closedApart(shapes)
}

// exclusiveByType: every arm names its types, and no two share one.
func (w *schemaWriter) exclusiveByType(arms []*load.Schema) bool {
	seen := map[string]bool{}
	for _, a := range arms {
		types := w.armTypes(a)
		if len(types) == 0 {
			return false
		}
		for _, t := range types {
			if seen[t] {
				return false
			}
			seen[t] = true
		}
	}
	return true
}

// armTypes are the JSON types an arm allows at its top; nil when it does
// not say (any type). Integers are numbers.
func (w *schemaWriter) armTypes(a *load.Schema) []string {
	r := w.resolve(a)
	if r == nil {
		return nil
	}
	var types []string
	switch {
	case r.Type != "":
		types = []string{r.Type}
	case len(r.Types) > 0:
		types = slices.Clone(r.Types)
	default:
		return nil
	}
	if r.Nullable {
		types = append(types, "null")
	}
	for i, t := range types {
		if t == "integer" {
			types[i] = "number"
		}
	}
	return types
}

// discriminated: one property, required by every arm, is fixed by each
// (const or enum) to values no other arm allows.
func (w *schemaWriter) discriminated(shapes []mergedObject) bool {
	for _, name := range shapes[0].required {
		seen := map[string]bool{}
		ok := true
		for _, sh := range shapes {
			values := w.fixedValues(sh.props[name])
			if !slices.Contains(sh.required, name) || len(values) == 0 {
				ok = false
				break
			}
			for _, v := range values {
				if seen[v] {
					ok = false
				}
				seen[v] = true
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// fixedValues are the values a property schema allows when it lists
// them (const or enum), as text; nil otherwise.
func (w *schemaWriter) fixedValues(p *load.Schema) []string {
	p = w.resolve(p)
	switch {
	case p == nil:
		return nil
	case p.HasConst:
		return []string{fmt.Sprintf("%#v", p.Const)}
	}
	out := make([]string, 0, len(p.Enum))
	for _, v := range p.Enum {
		out = append(out, fmt.Sprintf("%#v", v))
	}
	return out
}

// closedApart: every arm is closed and requires a property that no other
// arm declares, so a value of one arm carries a property the others
// refuse.
func closedApart(shapes []mergedObject) bool {
	for i, sh := range shapes {
		if !sh.closed {
			return false
		}
		own := false
		for _, name := range sh.required {
			declaredElsewhere := false
			for j, other := range shapes {
				if _, ok := other.props[name]; ok && j != i {
					declaredElsewhere = true
				}
			}
			own = own || !declaredElsewhere
		}
		if !own {
			return false
		}
	}
	return true
}
