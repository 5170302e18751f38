package load

import (
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Cheap structural checks in place of kin-openapi's full Validate, which
// costs almost as much as loading on large specs and mostly reports things
// (examples, sibling keywords) that do not stop generation. What these find
// is a warning: the next stage can cope (it renames tools, for one).

var templateVarRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([^{}]+)\}`) })

// checkOperations fixes path parameters to match the path template and
// warns about duplicate operationIds and ambiguous templated paths.
func (l *loader) checkOperations(ops []*Operation) {
	ids := map[string]*Operation{}
	shapes := map[string]*Operation{}
	warnedPath := ""
	for _, o := range ops {
		l.fixPathParams(o)
		if o.ID != "" {
			if first, ok := ids[o.ID]; ok {
				l.probs.Warnf(o.Pos, "give each operation a unique operationId", "operationId %q of %s %s is also used by %s %s", o.ID, o.Method, o.RawPath, first.Method, first.RawPath)
			} else {
				ids[o.ID] = o
			}
		}
		shape := templateVarRe().ReplaceAllString(o.Path, "{}")
		if first, ok := shapes[shape]; ok && first.Path != o.Path && first.RawPath != warnedPath {
			warnedPath = first.RawPath
			l.probs.Warnf(o.Pos, "rename one of the paths so that a URL matches only one", "path %s conflicts with %s: the same URLs match both", o.RawPath, first.RawPath)
		} else if !ok {
			shapes[shape] = o
		}
	}
}

// fixPathParams makes every template variable a required path parameter
// (adding a string one when undeclared) and drops declared path parameters
// the template does not contain.
func (l *loader) fixPathParams(o *Operation) {
	vars := map[string]bool{}
	var order []string
	for _, m := range templateVarRe().FindAllStringSubmatch(o.Path, -1) {
		if !vars[m[1]] {
			vars[m[1]] = true
			order = append(order, m[1])
		}
	}
	declared := map[string]bool{}
	kept := o.Parameters[:0:0]
	for _, p := range o.Parameters {
		if p.In != "path" {
			kept = append(kept, p)
			continue
		}
		if !vars[p.Name] {
			l.probs.Warnf(p.Pos, "remove the parameter or add {"+p.Name+"} to the path", "path parameter %q of %s %s is not in the path template; it is ignored", p.Name, o.Method, o.RawPath)
			continue
		}
		p.Required = true
		declared[p.Name] = true
		kept = append(kept, p)
	}
	var missing []string
	for _, v := range order {
		if !declared[v] {
			missing = append(missing, v)
			kept = append(kept, &Parameter{Name: v, In: "path", Required: true, Style: "simple", Schema: &Schema{Type: "string"}, Pos: o.Pos})
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		l.probs.Warnf(o.Pos, "declare them under parameters with in: path", "%s %s does not declare path parameter(s) %s; assuming required strings", o.Method, o.RawPath, strings.Join(missing, ", "))
	}
	o.Parameters = kept
}
