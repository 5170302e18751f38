package ovgen

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
)

// plan is one random override file, with what the harness needs to know
// about it: which lists page how, which names the model must never see.
type plan struct {
	cat   *catalog
	tools []*toolPlan
	// typoTool and typoAt, when set, say where a result path was made
	// wrong on purpose (typoAt is the key's path below the tool's entry):
	// generation must fail with an error exactly there.
	typoTool *toolPlan
	typoAt   string
	// handles, when set, are the file's handle types and their tools.
	handles *handlePlan
}

// typo is the file path of the broken key, "" for none.
func (p *plan) typo() string {
	for i, t := range p.tools {
		if t == p.typoTool {
			return fmt.Sprintf("tools[%d]%s", i, p.typoAt)
		}
	}
	return ""
}

// toolPlan is one tool of the file.
type toolPlan struct {
	name    string
	op      *catOp // a one-operation tool
	steps   []*stepPlan
	actions []*actionPlan
	input   map[string]*fieldPlan
	output  *outPlan
	// renamedFrom are names the file renamed away (the model must never
	// read them in an error).
	renamedFrom []string
	// visible are the inputs the model sees, by final name (operation
	// and step tools).
	visible []string
	// creates, updates and consumes are the tool's handle keys; confirm
	// its confirmation question.
	creates  *createPlan
	updates  *updatePlan
	consumes string
	confirm  string
}

type stepPlan struct {
	id   string
	op   *catOp
	args map[string]string
	// nested binds an object argument field by field (a map in args:).
	nested   map[string]map[string]string
	optional bool
	when     string
	// declared are the tool inputs the step added.
	declared []string
}

type actionPlan struct {
	name   string
	op     *catOp
	steps  []*stepPlan
	input  map[string]*fieldPlan
	output *outPlan
}

type fieldPlan struct {
	rename, description, ask, identity, typ, handle string
	required                                        *bool
	drop, flatten                                   bool
	value                                           any
}

type outPlan struct {
	pick  map[string]string
	hints map[string]string
	list  *listPlan
	// pickTypes are the response types at each pick's path, "" unknown;
	// pickUnion marks picks through a union (no typo is certain there).
	pickTypes map[string]string
	pickUnion map[string]bool
}

type listPlan struct {
	path, pageInput, pageKind, total string
	limit                            int
	// What the fake upstream must do: the operation holding the list,
	// the list's path in its response, and the query parameter it pages
	// by ("" when the server pages the whole list).
	opKey, rel, wire string
}

// gen draws plans from one catalog.
type gen struct {
	cat *catalog
	rng *rand.Rand
	// feeds are the inputs of the tool being drawn that feed an
	// argument an operation requires.
	feeds map[string]bool
}

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *gen) pick(n int) int { return g.rng.Intn(n) }

// newPlan draws one file of 2 to 5 tools.
func (g *gen) newPlan() *plan {
	p := &plan{cat: g.cat}
	n := 2 + g.pick(4)
	for i := range n {
		name := fmt.Sprintf("t%d", i+1)
		g.feeds = map[string]bool{}
		var t *toolPlan
		switch g.pick(3) {
		case 0:
			t = g.operationTool(name)
		case 1:
			t = g.stepTool(name)
		default:
			t = g.actionTool(name)
		}
		if t != nil {
			p.tools = append(p.tools, t)
		}
	}
	g.drawHandles(p)
	p.shareNoIdentity()
	g.drawConfirm(p)
	if g.chance(0.25) {
		p.typoTool, p.typoAt = g.injectTypo(p)
	}
	return p
}

// shareNoIdentity keeps identity bindings to operations only one tool
// or action of the file calls: the fake upstream checks identity-bound
// values per operation, so a second caller of the operation that lets
// the model send the value would be refused by the fake, not the server.
func (p *plan) shareNoIdentity() {
	uses := map[*catOp]int{}
	count := func(op *catOp, steps []*stepPlan) {
		if op != nil {
			uses[op]++
		}
		for _, st := range steps {
			uses[st.op]++
		}
	}
	for _, t := range p.tools {
		count(t.op, t.steps)
		for _, a := range t.actions {
			count(a.op, a.steps)
		}
	}
	shared := func(op *catOp, steps []*stepPlan) bool {
		if op != nil && uses[op] > 1 {
			return true
		}
		for _, st := range steps {
			if uses[st.op] > 1 {
				return true
			}
		}
		return false
	}
	strip := func(fields map[string]*fieldPlan) {
		for name, f := range fields {
			if f.identity != "" {
				delete(fields, name)
			}
		}
	}
	for _, t := range p.tools {
		all := shared(t.op, t.steps)
		for _, a := range t.actions {
			if shared(a.op, a.steps) {
				strip(a.input)
				all = true
			}
		}
		if all {
			strip(t.input)
		}
	}
}

// anyOp draws an operation, reads more often than writes, and lists
// the API pages itself more often than their share.
func (g *gen) anyOp(read bool) *catOp {
	var pool, paged []*catOp
	for _, o := range g.cat.ops {
		if !read || !o.write() {
			pool = append(pool, o)
		}
		if off, num, _ := pageParams(o); read && (off != "" || num != "") && o.resp != nil && len(g.cat.lists(o.resp)) > 0 {
			paged = append(paged, o)
		}
	}
	if len(paged) > 0 && g.chance(0.3) {
		pool = paged
	}
	if len(pool) == 0 {
		return nil
	}
	return pool[g.pick(len(pool))]
}

func (g *gen) operationTool(name string) *toolPlan {
	op := g.anyOp(g.chance(0.7))
	if op == nil {
		return nil
	}
	t := &toolPlan{name: name, op: op, input: map[string]*fieldPlan{}}
	visible := g.rewrite(t, t.input, op.inputs, op.required, map[string]bool{})
	t.output = g.output(op, "", visible, t.input, nil)
	t.visible = slices.Sorted(maps.Keys(visible))
	return t
}

func (g *gen) stepTool(name string) *toolPlan {
	t := &toolPlan{name: name, input: map[string]*fieldPlan{}}
	n := 1 + g.pick(3)
	taken := map[string]bool{}
	inputs, required := map[string]map[string]any{}, map[string]bool{}
	for i := range n {
		op := g.anyOp(i > 0 || g.chance(0.7))
		if op == nil {
			return nil
		}
		st := g.step(fmt.Sprintf("zs%d", i+1), op, t.steps, taken, inputs, required, i == 0)
		t.steps = append(t.steps, st)
	}
	visible := g.rewrite(t, t.input, inputs, required, map[string]bool{})
	defer func() { t.visible = slices.Sorted(maps.Keys(visible)) }()
	if len(t.steps) == 1 {
		t.output = g.output(t.steps[0].op, "", visible, t.input, t.steps[0].args)
	} else {
		st := t.steps[g.pick(len(t.steps))]
		if st.optional || st.when != "" {
			return t
		}
		prefix := st.id + "."
		if g.chance(0.5) {
			prefix = "steps." + st.id + ".body."
		}
		t.output = g.output(st.op, prefix, visible, t.input, st.args)
	}
	return t
}

// step binds every required input of op, and some optional ones, under
// names no other step of the tool uses for another schema.
func (g *gen) step(id string, op *catOp, before []*stepPlan, taken map[string]bool, inputs map[string]map[string]any, required map[string]bool, first bool) *stepPlan {
	st := &stepPlan{id: id, op: op, args: map[string]string{}}
	if !first && !op.write() {
		st.optional = g.chance(0.15)
		if !st.optional && g.chance(0.15) {
			// Not the step id: the when input is the model's to see.
			st.when = "with_more" + strings.TrimPrefix(id, "zs")
		}
	}
	for _, arg := range slices.Sorted(maps.Keys(op.inputs)) {
		if !plainName(arg) {
			if op.required[arg] {
				// Another operation instead: the inputs this one
				// declared so far are not the step's.
				for _, name := range st.declared {
					delete(inputs, name)
					delete(required, name)
					delete(taken, name)
					delete(g.feeds, name)
				}
				return g.step(id, g.anyOp(true), before, taken, inputs, required, first)
			}
			continue
		}
		bind := op.required[arg] || g.chance(0.3) || arg == emptyBodyArg(op)
		if !bind {
			continue
		}
		if src := g.fromStep(op, arg, before); src != "" && g.chance(0.6) {
			st.args[arg] = src
			continue
		}
		if fields := g.nestedFields(op, arg); len(fields) > 0 && *flagNested && g.chance(nestedChance) {
			if st.nested == nil {
				st.nested = map[string]map[string]string{}
			}
			st.nested[arg] = map[string]string{}
			obj := g.cat.resolve(op.inputs[arg])
			req := map[string]bool{}
			if list, ok := obj["required"].([]any); ok {
				for _, r := range list {
					req[fmt.Sprint(r)] = true
				}
			}
			for _, f := range fields {
				name := arg + "_" + f
				st.declared = append(st.declared, name)
				st.nested[arg][f] = "${input." + name + "}"
				inputs[name] = g.cat.props(obj)[f]
				required[name] = op.required[arg] && req[f] && !st.optional && st.when == ""
			}
			continue
		}
		name := arg
		if taken[name] {
			// Not the step id: error texts must never name a step.
			name = "q" + strings.TrimPrefix(id, "zs") + "_" + arg
		}
		taken[name] = true
		st.declared = append(st.declared, name)
		st.args[arg] = "${input." + name + "}"
		inputs[name] = op.inputs[arg]
		// As the generator rules: a write whose body requires nothing
		// needs every input bound into the body.
		required[name] = (op.required[arg] || op.body[arg] && emptyBodyArg(op) != "") && !st.optional && st.when == ""
		if op.required[arg] {
			g.feeds[name] = true // never dropped, even in an optional step
		}
	}
	return st
}

// nestedChance is how often an object argument is bound field by field
// (a map of ${input...} in args:), when -ovgen.nested is set.
const nestedChance = 0.3

// nestedFields are the scalar fields of an object argument a map in
// args: may bind: every required one and some others.
func (g *gen) nestedFields(op *catOp, arg string) []string {
	obj := g.cat.resolve(op.inputs[arg])
	props := g.cat.props(obj)
	if g.cat.typeOf(obj) != "object" || len(props) == 0 || len(props) > 10 || obj["oneOf"] != nil || obj["anyOf"] != nil {
		return nil
	}
	req := map[string]bool{}
	if list, ok := obj["required"].([]any); ok {
		for _, r := range list {
			req[fmt.Sprint(r)] = true
		}
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		t := g.cat.typeOf(props[name])
		if !plainName(name) || t == "object" || t == "array" || t == "" {
			if req[name] {
				return nil
			}
			continue
		}
		if req[name] || g.chance(0.5) {
			out = append(out, name)
		}
	}
	return out
}

// emptyBodyArg is, for a write whose body requires no field, the body
// field a step binds so that it writes something.
func emptyBodyArg(op *catOp) string {
	if !op.write() {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(op.body)) {
		if op.required[name] {
			return ""
		}
	}
	for _, name := range slices.Sorted(maps.Keys(op.body)) {
		if plainName(name) {
			return name
		}
	}
	return ""
}

// fromStep binds a string argument from a string field of an earlier
// step's response, when one has one.
func (g *gen) fromStep(op *catOp, arg string, before []*stepPlan) string {
	s := g.cat.resolve(op.inputs[arg])
	if len(before) == 0 || g.cat.typeOf(s) != "string" || s["pattern"] != nil || s["enum"] != nil || s["format"] != nil {
		return ""
	}
	src := before[g.pick(len(before))]
	if src.optional || src.when != "" || src.op.resp == nil {
		return ""
	}
	for _, name := range slices.Sorted(maps.Keys(g.cat.props(src.op.resp))) {
		p := g.cat.resolve(g.cat.props(src.op.resp)[name])
		if plainName(name) && g.cat.typeOf(p) == "string" && p["format"] == nil && p["enum"] == nil {
			return "${steps." + src.id + ".body." + name + "}"
		}
	}
	return ""
}

func (g *gen) actionTool(name string) *toolPlan {
	t := &toolPlan{name: name, input: map[string]*fieldPlan{}}
	n := 2 + g.pick(2)
	for i := range n {
		a := &actionPlan{name: fmt.Sprintf("act_%c", 'a'+i), input: map[string]*fieldPlan{}}
		var inputs map[string]map[string]any
		var required map[string]bool
		var src *catOp
		var bound map[string]string
		if g.chance(0.6) {
			a.op = g.anyOp(g.chance(0.6))
			if a.op == nil {
				return nil
			}
			src, inputs, required = a.op, a.op.inputs, a.op.required
		} else {
			op := g.anyOp(g.chance(0.5))
			if op == nil {
				return nil
			}
			inputs, required = map[string]map[string]any{}, map[string]bool{}
			st := g.step(a.name+"_s", op, nil, map[string]bool{}, inputs, required, true)
			a.steps = []*stepPlan{st}
			src, bound = st.op, st.args
		}
		// Per-action rewrites: each action renames only its own inputs.
		visible := g.rewrite(t, a.input, inputs, required, map[string]bool{})
		if g.chance(0.7) {
			a.output = g.output(src, "", visible, a.input, bound)
		}
		t.actions = append(t.actions, a)
	}
	return t
}

// rewrite draws input rewrites for inputs (name → schema) into fields;
// it returns the inputs the model still sees, by final name.
func (g *gen) rewrite(t *toolPlan, fields map[string]*fieldPlan, inputs map[string]map[string]any, required map[string]bool, taken map[string]bool) map[string]map[string]any {
	visible := map[string]map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		visible[name] = inputs[name]
	}
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		if !plainName(name) || !g.chance(0.35) {
			continue
		}
		s := g.cat.resolve(inputs[name])
		f := &fieldPlan{}
		typ := g.cat.typeOf(s)
		switch r := g.pick(8); {
		case r == 0 && !required[name] && !g.feeds[name]:
			f.drop = true
			delete(visible, name)
		case r == 1 && enumValue(s) != nil:
			f.value = enumValue(s)
			delete(visible, name)
		case r == 2 && typ == "object" && flattenable(g.cat, s, visible):
			f.flatten = true
			delete(visible, name)
			for k, v := range g.cat.props(s) {
				visible[k] = v
			}
			if kids := slices.Sorted(maps.Keys(g.cat.props(s))); *flagNested && g.chance(0.5) {
				// Rename a flattened child: the value must still arrive.
				kid := kids[g.pick(len(kids))]
				if _, clash := visible[kid+"_r"]; !clash && fields[kid] == nil {
					fields[kid] = &fieldPlan{rename: kid + "_r"}
					visible[kid+"_r"] = visible[kid]
					delete(visible, kid)
					t.renamedFrom = append(t.renamedFrom, kid)
				}
			}
		case r == 3 && typ == "string" && plainString(s) && !required[name] && g.chance(0.4):
			f.ask = "Which " + name + "?"
		case r == 4 && typ == "string" && plainString(s) && g.chance(0.3):
			f.identity = "sub"
			delete(visible, name)
		case r == 5 && !required[name]:
			yes := true
			f.required = &yes
		default:
			nn := name + "_r"
			if _, clash := visible[nn]; clash {
				continue
			}
			f.rename = nn
			f.description = "The " + strings.ReplaceAll(name, "_", " ") + "."
			visible[nn] = visible[name]
			delete(visible, name)
			t.renamedFrom = append(t.renamedFrom, name)
		}
		fields[name] = f
	}
	return visible
}

// flattenable: an object whose fields clash with no input.
func flattenable(c *catalog, s map[string]any, visible map[string]map[string]any) bool {
	p := c.props(s)
	if s["allOf"] != nil {
		return false // flatten reads the object's own properties only
	}
	if len(p) == 0 || len(p) > 8 {
		return false
	}
	for k := range p {
		if _, clash := visible[k]; clash || !plainName(k) {
			return false
		}
	}
	return true
}

func plainString(s map[string]any) bool {
	return s["pattern"] == nil && s["format"] == nil && s["enum"] == nil && s["minLength"] == nil && s["maxLength"] == nil
}

func enumValue(s map[string]any) any {
	if list, ok := s["enum"].([]any); ok && len(list) > 0 {
		if str, ok := list[0].(string); ok {
			return str
		}
	}
	if s["type"] == "boolean" {
		return true
	}
	return nil
}

// pageParams find the query parameters an operation pages by.
func pageParams(op *catOp) (offset, number, size string) {
	for _, name := range slices.Sorted(maps.Keys(op.params)) {
		p := op.params[name]
		if p.In != "query" || p.Required || !plainName(name) {
			continue
		}
		switch strings.ToLower(p.Name) {
		case "offset", "skip", "start":
			offset = name
		case "page":
			number = name
		case "per_page", "page_size", "pagesize", "limit", "count", "size":
			size = name
		}
	}
	return
}

// output draws output shaping over op's response: a paged list (every
// paging mode), picks (through arrays, unions and allOf), hints. prefix
// is the path of the step's result in a multi-step result.
func (g *gen) output(op *catOp, prefix string, visible map[string]map[string]any, fields map[string]*fieldPlan, bound map[string]string) *outPlan {
	if op.resp == nil {
		return nil
	}
	o := &outPlan{pick: map[string]string{}, hints: map[string]string{}, pickTypes: map[string]string{}, pickUnion: map[string]bool{}}
	item := op.resp
	if lists := g.cat.lists(op.resp); len(lists) > 0 && g.chance(0.6) {
		l := &listPlan{path: lists[g.pick(len(lists))], limit: []int{2, 3, 5}[g.pick(3)], opKey: op.key}
		l.rel = l.path
		l.path = strings.TrimSuffix(prefix+l.path, ".")
		if strings.HasPrefix(prefix, "steps.") && l.rel == "" {
			l.path = strings.TrimSuffix(prefix, ".body.")
		}
		g.paging(l, op, visible, fields, bound)
		if ts := g.cat.totals(op.resp, l.rel); len(ts) > 0 && g.chance(0.5) {
			l.total = strings.TrimPrefix(prefix, "steps.")
			l.total = strings.Replace(l.total, ".body.", ".", 1) + ts[g.pick(len(ts))]
		}
		o.list = l
		items, _ := g.cat.resolve(op.resp)["items"].(map[string]any)
		if l.rel != "" {
			items, _ = g.cat.resolve(g.cat.props(op.resp)[l.rel])["items"].(map[string]any)
		}
		item, prefix = items, ""
	}
	fs := g.cat.fields(item, "", 0)
	if len(fs) > 0 && (o.list == nil || g.chance(0.5)) {
		for range 1 + g.pick(3) {
			f := fs[g.pick(len(fs))]
			name := "p_" + strings.NewReplacer(".", "_", "[]", "").Replace(f.path)
			o.pick[name] = prefix + f.path
			o.pickTypes[name] = f.typ
			o.pickUnion[name] = f.union
		}
	}
	if g.chance(0.2) && len(visible) > 0 {
		names := slices.Sorted(maps.Keys(visible))
		o.hints["h_note"] = "Asked with ${input." + names[g.pick(len(names))] + "}."
	}
	if o.list == nil && len(o.pick) == 0 && len(o.hints) == 0 {
		return nil
	}
	return o
}

// paging draws how a list pages: by the operation's own offset or page
// number (the upstream pages), by a declared input (the server pages the
// whole list), or not at all.
// bound are the step's args: (nil for an operation, which reads every
// input of its own name): the API pages only by what the step sends it.
func (g *gen) paging(l *listPlan, op *catOp, visible map[string]map[string]any, fields map[string]*fieldPlan, bound map[string]string) {
	offset, number, size := pageParams(op)
	sends := func(arg string) bool { return arg != "" && (bound == nil || bound[arg] == "${input."+arg+"}") }
	if !sends(offset) {
		offset = ""
	}
	if !sends(number) || !sends(size) {
		number = ""
	}
	r := g.pick(5)
	if offset != "" || number != "" {
		r = g.pick(3) // the API's own paging, mostly
	}
	if offset != "" && g.chance(0.5) {
		r = 0
	}
	switch {
	case r == 0 && offset != "" && fields[offset] == nil && visible[offset] != nil:
		l.pageInput, l.pageKind, l.wire = offset, "offset", op.params[offset].Name
	case r <= 1 && number != "" && size != "" && fields[number] == nil && fields[size] == nil && visible[number] != nil && visible[size] != nil:
		l.pageInput, l.pageKind, l.wire = number, "number", op.params[number].Name
		fields[size] = &fieldPlan{value: l.limit}
		delete(visible, size)
	case r == 2:
		l.pageInput, l.pageKind = "pg_offset", "offset"
		fields[l.pageInput] = &fieldPlan{typ: "integer"}
		visible[l.pageInput] = map[string]any{"type": "integer"}
	case r == 3:
		l.pageInput, l.pageKind = "pg_number", "number"
		fields[l.pageInput] = &fieldPlan{typ: "integer"}
		visible[l.pageInput] = map[string]any{"type": "integer"}
	}
}

// injectTypo breaks one result path whose parent the schema describes
// fully, and returns where in the file.
func (g *gen) injectTypo(p *plan) (*toolPlan, string) {
	type site struct {
		o  *outPlan
		t  *toolPlan
		at string
	}
	var sites []site
	for _, t := range p.tools {
		if t.output != nil {
			sites = append(sites, site{t.output, t, ""})
		}
		for _, a := range t.actions {
			if a.output != nil {
				sites = append(sites, site{a.output, t, ".actions." + a.name})
			}
		}
	}
	for _, i := range g.rng.Perm(len(sites)) {
		s := sites[i]
		if names := slices.Sorted(maps.Keys(s.o.pick)); len(names) > 0 && !strings.Contains(s.o.pick[names[0]], "[]") && s.o.pickTypes[names[0]] != "" && !s.o.pickUnion[names[0]] {
			s.o.pick[names[0]] += "zq"
			return s.t, s.at + ".output.pick." + names[0]
		}
		if l := s.o.list; l != nil && l.total != "" {
			l.total += "zq"
			return s.t, s.at + ".output.list.total"
		}
	}
	return nil, ""
}

// yaml renders the file.
func (p *plan) yaml() string {
	var tools []any
	var include []any
	seen := map[string]bool{}
	use := func(op *catOp) {
		if op != nil && !seen[op.id] {
			seen[op.id] = true
			include = append(include, yaml.MapSlice{{Key: "operation", Value: op.id}})
		}
	}
	for _, t := range p.tools {
		m := yaml.MapSlice{{Key: "name", Value: t.name}}
		if t.op != nil {
			use(t.op)
			m = append(m, yaml.MapItem{Key: "operation", Value: t.op.id})
		}
		if len(t.steps) > 0 {
			m = append(m, yaml.MapItem{Key: "steps", Value: stepsYAML(t.steps, use)})
		}
		if len(t.actions) > 0 {
			var acts yaml.MapSlice
			for _, a := range t.actions {
				am := yaml.MapSlice{}
				if a.op != nil {
					use(a.op)
					am = append(am, yaml.MapItem{Key: "operation", Value: a.op.id})
				} else {
					am = append(am, yaml.MapItem{Key: "steps", Value: stepsYAML(a.steps, use)})
				}
				if len(a.input) > 0 {
					am = append(am, yaml.MapItem{Key: "input", Value: inputYAML(a.input)})
				}
				if a.output != nil {
					am = append(am, yaml.MapItem{Key: "output", Value: a.output.yaml()})
				}
				acts = append(acts, yaml.MapItem{Key: a.name, Value: am})
			}
			m = append(m, yaml.MapItem{Key: "actions", Value: acts})
		}
		if len(t.input) > 0 {
			m = append(m, yaml.MapItem{Key: "input", Value: inputYAML(t.input)})
		}
		if t.output != nil {
			m = append(m, yaml.MapItem{Key: "output", Value: t.output.yaml()})
		}
		m = append(m, t.handleYAML()...)
		tools = append(tools, m)
	}
	root := yaml.MapSlice{
		{Key: "version", Value: 1},
		{Key: "select", Value: yaml.MapSlice{{Key: "include", Value: include}, {Key: "unused", Value: "drop"}}},
	}
	if p.handles != nil {
		root = append(root, yaml.MapItem{Key: "handles", Value: p.handles.yaml()})
	}
	root = append(root, yaml.MapItem{Key: "tools", Value: tools})
	b, err := yaml.Marshal(root)
	if err != nil {
		return "# cannot render: " + err.Error()
	}
	return string(b)
}

func stepsYAML(steps []*stepPlan, use func(*catOp)) []any {
	var out []any
	for _, s := range steps {
		use(s.op)
		m := yaml.MapSlice{{Key: "id", Value: s.id}, {Key: "operation", Value: s.op.id}}
		if len(s.args)+len(s.nested) > 0 {
			var args yaml.MapSlice
			keys := slices.Sorted(maps.Keys(s.args))
			for k := range s.nested {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if n, ok := s.nested[k]; ok {
					var m yaml.MapSlice
					for _, f := range slices.Sorted(maps.Keys(n)) {
						m = append(m, yaml.MapItem{Key: f, Value: n[f]})
					}
					args = append(args, yaml.MapItem{Key: k, Value: m})
					continue
				}
				args = append(args, yaml.MapItem{Key: k, Value: s.args[k]})
			}
			m = append(m, yaml.MapItem{Key: "args", Value: args})
		}
		if s.optional {
			m = append(m, yaml.MapItem{Key: "optional", Value: true})
		}
		if s.when != "" {
			m = append(m, yaml.MapItem{Key: "when", Value: s.when})
		}
		out = append(out, m)
	}
	return out
}

func inputYAML(fields map[string]*fieldPlan) yaml.MapSlice {
	var out yaml.MapSlice
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		f := fields[name]
		var m yaml.MapSlice
		add := func(k string, v any, ok bool) {
			if ok {
				m = append(m, yaml.MapItem{Key: k, Value: v})
			}
		}
		add("rename", f.rename, f.rename != "")
		add("description", f.description, f.description != "")
		add("type", f.typ, f.typ != "")
		add("drop", true, f.drop)
		add("value", f.value, f.value != nil)
		add("flatten", true, f.flatten)
		add("ask", f.ask, f.ask != "")
		add("identity", f.identity, f.identity != "")
		add("handle", f.handle, f.handle != "")
		if f.required != nil {
			add("required", *f.required, true)
		}
		out = append(out, yaml.MapItem{Key: name, Value: m})
	}
	return out
}

func (o *outPlan) yaml() yaml.MapSlice {
	var m yaml.MapSlice
	if len(o.pick) > 0 {
		var p yaml.MapSlice
		for _, k := range slices.Sorted(maps.Keys(o.pick)) {
			p = append(p, yaml.MapItem{Key: k, Value: o.pick[k]})
		}
		m = append(m, yaml.MapItem{Key: "pick", Value: p})
	}
	if l := o.list; l != nil {
		lm := yaml.MapSlice{{Key: "path", Value: l.path}, {Key: "limit", Value: l.limit}}
		if l.pageInput != "" {
			lm = append(lm, yaml.MapItem{Key: "page_input", Value: l.pageInput}, yaml.MapItem{Key: "page_kind", Value: l.pageKind})
		}
		if l.total != "" {
			lm = append(lm, yaml.MapItem{Key: "total", Value: l.total})
		}
		m = append(m, yaml.MapItem{Key: "list", Value: lm})
	}
	if len(o.hints) > 0 {
		var h yaml.MapSlice
		for _, k := range slices.Sorted(maps.Keys(o.hints)) {
			h = append(h, yaml.MapItem{Key: k, Value: o.hints[k]})
		}
		m = append(m, yaml.MapItem{Key: "hints", Value: h})
	}
	return m
}
