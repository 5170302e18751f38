package ovgen

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// handlePlan is a file's handle types and the tools around them: an id
// handle one tool creates from an upstream id of its result and another
// takes in place of an upstream id of an operation, and a state handle
// (a basket) pure state tools grow, read and consume.
type handlePlan struct {
	idType, idPrefix, stateType, statePrefix string
	lifetime, expiry                         string
	// field is the creator's result field holding the new handle.
	field string
	// from is the creator's pick holding the upstream id, creatorField
	// the upstream's field it picks.
	from, creatorField string
	// upstreamID is the id the fake upstream answers the creator with,
	// distinctive so that the taker's request proves where it came from.
	upstreamID any
	// idKind is the id's type, and format when it has one.
	idKind string
	// takerInput is the taking tool's handle input (its final name).
	takerInput            string
	creator, taker        *toolPlan
	adder, getter, closer *toolPlan
}

// createPlan is a tool's creates_handle.
type createPlan struct{ typ, from, field string }

// updatePlan is a pure state tool's updates_handle: it appends
// {note: ${input.note}} to the array items.
type updatePlan struct{ typ, input string }

// handleNote is the input the basket's adding tool appends.
const handleNote = "note"

// basketInput is the state handle input of the basket tools.
const basketInput = "basket_id"

// handleChance is how often a file declares handles.
const handleChance = 0.35

// drawHandles adds, with handleChance, the handle types and their tools
// to p: the creator reads an operation whose result has a scalar
// top-level field, the taker an operation with a path parameter of the
// same type.
func (g *gen) drawHandles(p *plan) {
	if !g.chance(handleChance) {
		return
	}
	type pair struct {
		creator, taker  *catOp
		field, arg, typ string
		format          string
	}
	var pairs []pair
	for _, c := range g.cat.ops {
		if c.resp == nil {
			continue
		}
		for _, f := range g.cat.fields(c.resp, "", 0) {
			if strings.ContainsAny(f.path, ".[") || f.union || (f.typ != "string" && f.typ != "integer") {
				continue
			}
			format, ok := idFormat(g.cat.resolve(g.cat.props(c.resp)[f.path]))
			if !ok {
				continue
			}
			for _, t := range g.cat.ops {
				for _, arg := range slices.Sorted(maps.Keys(t.params)) {
					s := g.cat.resolve(t.inputs[arg])
					if tf, ok := idFormat(s); t.params[arg].In != "path" || !plainName(arg) || g.cat.typeOf(s) != f.typ || !ok || tf != format {
						continue
					}
					pairs = append(pairs, pair{c, t, f.path, arg, f.typ, format})
				}
			}
		}
	}
	if len(pairs) == 0 {
		return
	}
	pr := pairs[g.pick(len(pairs))]
	hp := &handlePlan{idType: "thing" + fmt.Sprint(g.pick(10)), stateType: "basket",
		idPrefix: g.handlePrefix(), lifetime: []string{"1m", "90m", "24h", "7d", "366d"}[g.pick(5)],
		expiry: []string{"sliding", "fixed"}[g.pick(2)], from: "h_id", creatorField: pr.field}
	for hp.statePrefix = g.handlePrefix(); strings.EqualFold(hp.statePrefix, hp.idPrefix); {
		hp.statePrefix = g.handlePrefix()
	}
	if g.chance(0.5) {
		hp.field = "h_ref"
	}
	hp.idKind = strings.TrimSuffix(pr.typ+"/"+pr.format, "/")
	switch {
	case pr.typ == "integer":
		hp.upstreamID = 1000 + g.pick(9000)
	case pr.format == "uuid":
		hp.upstreamID = fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", g.rng.Uint32(), g.pick(1<<16), g.pick(1<<12), g.pick(1<<12), g.rng.Int63n(1<<48))
	default:
		hp.upstreamID = fmt.Sprintf("zid%d", 1000+g.pick(9000))
	}
	hp.creator = &toolPlan{name: "hc", op: pr.creator, input: map[string]*fieldPlan{},
		output:  &outPlan{pick: map[string]string{hp.from: pr.field}, hints: map[string]string{}, pickTypes: map[string]string{hp.from: pr.typ}, pickUnion: map[string]bool{}},
		creates: &createPlan{typ: hp.idType, from: hp.from, field: hp.field}}
	hp.takerInput = pr.arg
	taker := &fieldPlan{handle: hp.idType}
	if g.chance(0.5) {
		taker.rename = pr.arg + "_h"
		hp.takerInput = taker.rename
	}
	hp.taker = &toolPlan{name: "ht", op: pr.taker, input: map[string]*fieldPlan{pr.arg: taker}}
	hp.adder = &toolPlan{name: "hs_add", updates: &updatePlan{typ: hp.stateType, input: basketInput},
		input: map[string]*fieldPlan{handleNote: {typ: "string", required: ptrTrue()}}}
	hp.getter = &toolPlan{name: "hs_get", input: map[string]*fieldPlan{basketInput: {handle: hp.stateType}}}
	hp.closer = &toolPlan{name: "hs_close", consumes: basketInput, input: map[string]*fieldPlan{basketInput: {handle: hp.stateType}}}
	p.handles = hp
	p.tools = append(p.tools, hp.creator, hp.taker, hp.adder, hp.getter, hp.closer)
}

// idFormat is the format of an id schema a distinctive value can be
// drawn for: none or uuid (an integer's int32 or int64), with no other
// constraint than a non-empty string; ok is false for any other schema.
func idFormat(s map[string]any) (string, bool) {
	if s["pattern"] != nil || s["enum"] != nil || s["maxLength"] != nil || s["minimum"] != nil || s["maximum"] != nil {
		return "", false
	}
	if m := s["minLength"]; m != nil && fmt.Sprint(m) != "1" {
		return "", false
	}
	switch f, _ := s["format"].(string); f {
	case "", "uuid", "int32", "int64":
		return f, true
	}
	return "", false
}

func ptrTrue() *bool { t := true; return &t }

// handlePrefix draws a prefix as the documented rule allows: a letter,
// then up to 14 letters or digits, then "_" or "-".
func (g *gen) handlePrefix() string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	const more = letters + "0123456789"
	b := []byte{letters[g.pick(len(letters))]}
	for range g.pick(15) {
		b = append(b, more[g.pick(len(more))])
	}
	return string(b) + []string{"_", "-"}[g.pick(2)]
}

// resultField is where the creator returns the handle.
func (hp *handlePlan) resultField() string {
	if hp.field != "" {
		return hp.field
	}
	return hp.idType + "_handle"
}

// takes says whether t takes or grows a handle: the generic checks skip
// those tools, which checkHandles calls itself.
func (hp *handlePlan) takes(t *toolPlan) bool {
	return hp != nil && (t == hp.taker || t == hp.adder || t == hp.getter || t == hp.closer)
}

// owns says whether t is one of the handle tools (the minimiser keeps
// them whole: without one the file is another, invalid, file).
func (hp *handlePlan) owns(t *toolPlan) bool {
	return hp != nil && (t == hp.creator || hp.takes(t))
}

// yaml renders the handle types.
func (hp *handlePlan) yaml() yaml.MapSlice {
	kind := func(prefix string, state bool, desc string) yaml.MapSlice {
		m := yaml.MapSlice{{Key: "prefix", Value: prefix}, {Key: "lifetime", Value: hp.lifetime}, {Key: "expiry", Value: hp.expiry}}
		if state {
			m = append(m, yaml.MapItem{Key: "state", Value: true})
		}
		return append(m, yaml.MapItem{Key: "description", Value: desc})
	}
	return yaml.MapSlice{
		{Key: hp.idType, Value: kind(hp.idPrefix, false, "a random thing")},
		{Key: hp.stateType, Value: kind(hp.statePrefix, true, "a random basket")},
	}
}

// toolYAML renders a tool's handle and confirmation keys.
func (t *toolPlan) handleYAML() yaml.MapSlice {
	var m yaml.MapSlice
	if c := t.creates; c != nil {
		cm := yaml.MapSlice{{Key: "type", Value: c.typ}, {Key: "from", Value: c.from}}
		if c.field != "" {
			cm = append(cm, yaml.MapItem{Key: "field", Value: c.field})
		}
		m = append(m, yaml.MapItem{Key: "creates_handle", Value: cm})
	}
	if u := t.updates; u != nil {
		m = append(m, yaml.MapItem{Key: "updates_handle", Value: yaml.MapSlice{{Key: "type", Value: u.typ}, {Key: "input", Value: u.input},
			{Key: "append", Value: yaml.MapSlice{{Key: "items", Value: yaml.MapSlice{{Key: handleNote, Value: "${input." + handleNote + "}"}}}}}}})
	}
	if t.consumes != "" {
		m = append(m, yaml.MapItem{Key: "consumes_handle", Value: t.consumes})
	}
	if t.confirm != "" {
		m = append(m, yaml.MapItem{Key: "confirm", Value: t.confirm})
	}
	return m
}

// handleRE is the documented shape of a handle after its prefix: 32
// lower-case letters and digits 2 to 7 (160 random bits, base32).
var handleRE = regexp.MustCompile(`^[a-z2-7]{32}$`)

// checkHandles: the creator returns a handle of the prefix, never the
// raw id, in its field; the taker sends exactly that id upstream; a
// made-up handle, one of another type and one of another caller are
// refused in the tool's own terms and reach no upstream; the basket
// grows, reads and is consumed without an upstream call.
func (h *harness) checkHandles(p *plan, st *stats) []failure {
	hp := p.handles
	var out []failure
	fail := func(inv, format string, a ...any) {
		out = append(out, failure{inv, fmt.Sprintf(format, a...)})
	}
	handle, raw, ok := h.createHandle(hp, fail, st)
	if !ok {
		return out
	}
	taker := findTool(h.ir, hp.taker.name)
	args, ok := h.normalArgs(taker.Name, "")
	if !ok {
		fail("every tool is callable with a synthesised valid input", "tool %s: no normal call case", taker.Name)
		return out
	}
	with := func(v any) map[string]any {
		a := copyArgs(args)
		a[hp.takerInput] = v
		return a
	}
	res, reqs, err := h.call(taker.Name, with(handle), nil, 0)
	st.checks++
	if err != nil || res.IsError {
		fail("a handle the caller got is taken", "tool %s with %s: %v %s", taker.Name, handle, err, resultText(res))
		return out
	}
	if !sentPathValue(reqs, hp.taker.op.key, fmt.Sprint(raw)) {
		fail("the taking tool sends exactly the upstream id", "tool %s: handle %s of id %v, requests %v", taker.Name, handle, raw, describe(reqs))
	}
	basket, ok := h.checkBasket(p, fail, st)
	forbidden := append(h.forbidden(hp.taker, taker), fmt.Sprintf("%q", hp.taker.op.id))
	if s := fmt.Sprint(raw); len(s) >= 4 {
		forbidden = append(forbidden, s) // a refusal never leaks the id
	}
	refuse := func(what string, sub string, v any) {
		h.mu.Lock()
		res, reqs, err := h.callAs(sub, taker.Name, with(v), nil, 0)
		h.mu.Unlock()
		h.checkRefused(taker.Name, what, res, reqs, err, forbidden, fail, st)
	}
	refuse("a made-up handle", "oa2mcp-test-a", hp.idPrefix+strings.Repeat("a", 16)+strings.Repeat("7", 16))
	refuse("another caller's handle", "oa2mcp-test-b", handle)
	if ok {
		refuse("a handle of another type", "oa2mcp-test-a", basket)
	}
	if len(out) == 0 {
		st.handled[hp.idKind]++
	}
	return out
}

// createHandle calls the creating tool and checks the handle it returns.
func (h *harness) createHandle(hp *handlePlan, fail func(string, string, ...any), st *stats) (string, any, bool) {
	args, ok := h.normalArgs(hp.creator.name, "")
	if !ok {
		fail("every tool is callable with a synthesised valid input", "tool %s: no normal call case", hp.creator.name)
		return "", nil, false
	}
	h.wire.setPatch(hp.creator.op.key, map[string]any{hp.creatorField: hp.upstreamID})
	res, _, err := h.call(hp.creator.name, args, nil, 0)
	h.wire.setPatch("", nil)
	st.checks++
	if err != nil || res.IsError {
		fail("every tool is callable with a synthesised valid input", "tool %s: %v %s", hp.creator.name, err, resultText(res))
		return "", nil, false
	}
	got := structured(res)
	raw, hasRaw := got[hp.from]
	handle, _ := got[hp.resultField()].(string)
	st.checks++
	switch {
	case !hasRaw || fmt.Sprint(raw) != fmt.Sprint(hp.upstreamID):
		fail("the creating tool's result carries the upstream id it names", "tool %s: no %s in %v", hp.creator.name, hp.from, got)
	case !strings.HasPrefix(handle, hp.idPrefix) || !handleRE.MatchString(strings.TrimPrefix(handle, hp.idPrefix)):
		fail("the creating tool returns a handle of its prefix", "tool %s: %s is %q (prefix %s)", hp.creator.name, hp.resultField(), handle, hp.idPrefix)
	case handle == fmt.Sprint(raw) || strings.Contains(handle, fmt.Sprint(raw)) && len(fmt.Sprint(raw)) >= 4:
		fail("the creating tool never returns the raw id as the handle", "tool %s: %s is %q, the id %v", hp.creator.name, hp.resultField(), handle, raw)
	default:
		return handle, raw, true
	}
	return "", nil, false
}

// checkBasket grows a basket twice, reads it, checks another caller
// cannot read it, consumes it and checks it is gone, all without an
// upstream request; it returns a fresh basket handle for the taker to
// refuse.
func (h *harness) checkBasket(p *plan, fail func(string, string, ...any), st *stats) (string, bool) {
	hp := p.handles
	h.mu.Lock()
	defer h.mu.Unlock()
	quiet := func(what string, reqs []request) {
		st.checks++
		if len(reqs) > 0 {
			fail("a pure state tool makes no upstream call", "%s sent %s %s", what, reqs[0].method, reqs[0].path)
		}
	}
	add := func(id string, note string) (string, bool) {
		args := map[string]any{handleNote: note}
		if id != "" {
			args[basketInput] = id
		}
		res, reqs, err := h.callAs("oa2mcp-test-a", hp.adder.name, args, nil, 0)
		quiet(hp.adder.name, reqs)
		st.checks++
		if err != nil || res.IsError {
			fail("a state handle grows", "tool %s with %v: %v %s", hp.adder.name, args, err, resultText(res))
			return "", false
		}
		got, _ := structured(res)[basketInput].(string)
		if !strings.HasPrefix(got, hp.statePrefix) || (id != "" && got != id) {
			fail("a state handle grows", "tool %s with %v returned %s %q", hp.adder.name, args, basketInput, got)
			return "", false
		}
		return got, true
	}
	id, ok := add("", "first-note")
	if !ok {
		return "", false
	}
	if _, ok := add(id, "second-note"); !ok {
		return "", false
	}
	res, reqs, err := h.callAs("oa2mcp-test-a", hp.getter.name, map[string]any{basketInput: id}, nil, 0)
	quiet(hp.getter.name, reqs)
	st.checks++
	if err != nil || res.IsError || !strings.Contains(resultText(res), "first-note") || !strings.Contains(resultText(res), "second-note") {
		fail("a state handle returns what was appended", "tool %s: %v %s", hp.getter.name, err, resultText(res))
	}
	res, reqs, err = h.callAs("oa2mcp-test-b", hp.getter.name, map[string]any{basketInput: id}, nil, 0)
	h.checkRefused(hp.getter.name, "another caller's basket", res, reqs, err, []string{"first-note", "${"}, fail, st)
	res, reqs, err = h.callAs("oa2mcp-test-a", hp.closer.name, map[string]any{basketInput: id}, nil, 0)
	quiet(hp.closer.name, reqs)
	st.checks++
	if err != nil || res.IsError {
		fail("a consumed state handle is gone", "tool %s: %v %s", hp.closer.name, err, resultText(res))
	}
	res, reqs, err = h.callAs("oa2mcp-test-a", hp.getter.name, map[string]any{basketInput: id}, nil, 0)
	h.checkRefused(hp.getter.name, "a consumed basket", res, reqs, err, []string{"first-note", "${"}, fail, st)
	return add("", "third-note")
}

// checkRefused: a call is an error in the tool's own terms (no name in
// forbidden) and reached no upstream.
func (h *harness) checkRefused(tool, what string, res *mcp.CallToolResult, reqs []request, err error, forbidden []string, fail func(string, string, ...any), st *stats) {
	st.checks++
	switch {
	case err != nil || res == nil:
		fail("a wrong handle is refused and reaches no upstream", "tool %s: %s answered %v", tool, what, err)
		return
	case !res.IsError:
		fail("a wrong handle is refused and reaches no upstream", "tool %s: %s answered %s", tool, what, resultText(res))
		return
	case len(reqs) > 0:
		fail("a wrong handle is refused and reaches no upstream", "tool %s: %s sent %v", tool, what, describe(reqs))
	}
	text := resultText(res)
	for _, f := range forbidden {
		if strings.Contains(text, f) {
			fail("error text names only the tool's own inputs, actions and sibling tools", "tool %s: %s: %q names %s", tool, what, text, f)
		}
	}
}

// sentPathValue says whether a request to the operation key carried v
// as a path parameter.
func sentPathValue(reqs []request, key, v string) bool {
	for _, r := range reqs {
		if r.op != nil && r.op.Key() == key && slices.Contains(pathValues(r), v) {
			return true
		}
	}
	return false
}

func describe(reqs []request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.method+" "+r.path)
	}
	return out
}
