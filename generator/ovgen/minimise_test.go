package ovgen

import (
	"maps"
	"slices"
)

// minimise shrinks a failing file while the same invariant still
// breaks: it drops tools, then each tool's input entries, output keys,
// picks, hints and actions, one at a time, keeping every cut that keeps
// the failure.
func minimise(p *plan, invariant string) *plan {
	fails := func(c *plan) bool {
		for _, f := range checkPlan(c, &stats{paged: map[string]int{}, handled: map[string]int{}}) {
			if f.invariant == invariant {
				return true
			}
		}
		return false
	}
	cur := p
	for changed := true; changed; {
		changed = false
		for _, c := range cuts(cur) {
			if fails(c) {
				cur, changed = c, true
				break
			}
		}
	}
	return cur
}

// cuts are the plans one step smaller than p.
func cuts(p *plan) []*plan {
	var out []*plan
	for i := range p.tools {
		if len(p.tools) > 1 && p.tools[i] != p.typoTool && !p.handles.owns(p.tools[i]) {
			c := p.clone()
			c.tools = append(c.tools[:i:i], c.tools[i+1:]...)
			out = append(out, c)
		}
	}
	for i, t := range p.tools {
		if p.handles.owns(t) {
			continue
		}
		if t.confirm != "" {
			c := p.clone()
			c.tools[i].confirm = ""
			out = append(out, c)
		}
		for _, name := range slices.Sorted(maps.Keys(t.input)) {
			c := p.clone()
			delete(c.tools[i].input, name)
			out = append(out, c)
		}
		out = append(out, outputCuts(p, i, func(t *toolPlan) **outPlan { return &t.output })...)
		for j := range t.actions {
			if len(t.actions) > 1 {
				c := p.clone()
				ct := c.tools[i]
				ct.actions = append(ct.actions[:j:j], ct.actions[j+1:]...)
				out = append(out, c)
			}
			for _, name := range slices.Sorted(maps.Keys(t.actions[j].input)) {
				c := p.clone()
				delete(c.tools[i].actions[j].input, name)
				out = append(out, c)
			}
			out = append(out, outputCuts(p, i, func(t *toolPlan) **outPlan { return &t.actions[j].output })...)
		}
	}
	return out
}

// outputCuts drop one output, or one pick, hint or list total of it.
func outputCuts(p *plan, i int, at func(*toolPlan) **outPlan) []*plan {
	o := *at(p.tools[i])
	if o == nil {
		return nil
	}
	var out []*plan
	c := p.clone()
	*at(c.tools[i]) = nil
	out = append(out, c)
	for _, name := range slices.Sorted(maps.Keys(o.pick)) {
		c := p.clone()
		delete((*at(c.tools[i])).pick, name)
		out = append(out, c)
	}
	for _, name := range slices.Sorted(maps.Keys(o.hints)) {
		c := p.clone()
		delete((*at(c.tools[i])).hints, name)
		out = append(out, c)
	}
	if o.list != nil && o.list.total != "" {
		c := p.clone()
		(*at(c.tools[i])).list.total = ""
		out = append(out, c)
	}
	return out
}

// clone copies a plan deeply enough for cuts to change the copy only.
func (p *plan) clone() *plan {
	c := &plan{cat: p.cat, typoAt: p.typoAt}
	copies := map[*toolPlan]*toolPlan{}
	for _, t := range p.tools {
		ct := &toolPlan{name: t.name, op: t.op, steps: t.steps, input: cloneFields(t.input), output: t.output.clone(), renamedFrom: t.renamedFrom,
			visible: t.visible, creates: t.creates, updates: t.updates, consumes: t.consumes, confirm: t.confirm}
		copies[t] = ct
		for _, a := range t.actions {
			ct.actions = append(ct.actions, &actionPlan{name: a.name, op: a.op, steps: a.steps, input: cloneFields(a.input), output: a.output.clone()})
		}
		if t == p.typoTool {
			c.typoTool = ct
		}
		c.tools = append(c.tools, ct)
	}
	if hp := p.handles; hp != nil {
		ch := *hp
		ch.creator, ch.taker, ch.adder, ch.getter, ch.closer = copies[hp.creator], copies[hp.taker], copies[hp.adder], copies[hp.getter], copies[hp.closer]
		c.handles = &ch
	}
	return c
}

func cloneFields(m map[string]*fieldPlan) map[string]*fieldPlan {
	out := make(map[string]*fieldPlan, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (o *outPlan) clone() *outPlan {
	if o == nil {
		return nil
	}
	c := *o
	c.pick, c.hints = map[string]string{}, map[string]string{}
	for k, v := range o.pick {
		c.pick[k] = v
	}
	for k, v := range o.hints {
		c.hints[k] = v
	}
	if o.list != nil {
		l := *o.list
		c.list = &l
	}
	return &c
}
