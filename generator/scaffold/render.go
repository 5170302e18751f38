package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/lint"
)

// docsURL is where the override format is documented: a draft lives in
// the user's repository, which has no copy of oa2mcp's docs/.
const docsURL = "https://github.com/oa2mcp/oa2mcp/blob/main/docs/overrides.md"

// schemaURL is the override file's JSON Schema, for YAML editors.
const schemaURL = "https://raw.githubusercontent.com/oa2mcp/oa2mcp/main/overrides/schema.json"

// lines builds text line by line, counting lines so each tool's span is
// known (problems found in the draft name a line).
type lines struct {
	b bytes.Buffer
	n int
}

func (l *lines) add(format string, args ...any) {
	fmt.Fprintf(&l.b, format, args...)
	l.b.WriteByte('\n')
	l.n++
}

// uncovered counts the operations no active tool of the draft calls: the
// long tail a curated server would otherwise lose.
func (d *draft) uncovered() int {
	used := map[*opInfo]bool{}
	for _, c := range d.cands {
		if c.active {
			for _, op := range c.ops {
				used[op] = true
			}
		}
	}
	n := 0
	for _, op := range d.ops {
		if !used[op] {
			n++
		}
	}
	return n
}

// render writes the draft.
func (d *draft) render() []byte {
	text, _ := d.renderSpans()
	return text
}

// renderSpans writes the draft and returns the first and last line of
// each candidate tool.
func (d *draft) renderSpans() ([]byte, map[*candidate][2]int) {
	var l lines
	d.header(&l)
	l.add("version: 1")
	l.add("server:")
	l.add("  name: %s", d.server.name)
	l.add("  title: %s", quote(d.doc.Title))
	l.add("  tool_prefix: %s", d.server.prefix)
	l.add("  # TODO: instructions: what the server is for and which tool to start with, in two or three sentences.")
	l.add("select:")
	if n := d.uncovered(); n > 0 && !d.noDiscovery {
		l.add("  # The %d operations no tool below uses are served through three tools,", n)
		l.add("  # search_operations, describe_operation and call_operation; \"drop\" leaves")
		l.add("  # them out. https://github.com/oa2mcp/oa2mcp/blob/main/docs/discovery.md")
		l.add("  unused: discover")
	} else {
		l.add("  # Operations no tool below uses are left out of the server.")
		l.add("  unused: drop")
	}
	if len(d.deprecated) > 0 {
		l.add("  # Deprecated operations: no tool and no discovery serves them; delete a line")
		l.add("  # to serve one again.")
		l.add("  exclude:")
		for _, ref := range d.deprecated {
			l.add("    - operation: %s", quote(ref))
		}
	}
	l.add("tools:")
	spans := map[*candidate][2]int{}
	var last *cluster
	for _, c := range d.ranked() {
		if !c.active {
			continue
		}
		if c.cluster != last {
			l.add("  # %s", clusterNote(c.cluster))
			last = c.cluster
		}
		start := l.n + 1
		d.tool(&l, c)
		spans[c] = [2]int{start, l.n}
	}
	d.rest(&l)
	return l.b.Bytes(), spans
}

// header says where the draft comes from and what to do with it.
func (d *draft) header(l *lines) {
	active, inactive := 0, 0
	for _, c := range d.cands {
		switch {
		case c.active:
			active++
		case c.broken == "":
			inactive++
		}
	}
	l.add("# yaml-language-server: $schema=%s", schemaURL)
	l.add("# Draft task tools for %s, written by oa2mcp init:", quote(d.doc.Title))
	more := ""
	if inactive > 0 {
		more = fmt.Sprintf("; %d more candidate tools are commented out at the end", inactive)
	}
	l.add("# %d operations in %d tools%s.", len(d.doc.Operations), active, more)
	for _, note := range d.skippedNote() {
		l.add("# %s.", note)
	}
	l.add("# Curate it: merge or split tools, rewrite descriptions in task language, hide")
	l.add("# inputs the model should not fill, and resolve every TODO. Each tool lists the")
	l.add("# inputs it takes as comments; rewrite them under input:. Every key, with examples:")
	l.add("# %s", docsURL)
	l.add("# Check it: oa2mcp lint --spec %s --overrides THIS_FILE", d.opts.Spec)
}

// clusterNote heads the tools of one resource.
func clusterNote(cl *cluster) string {
	note := plural(words(cl.noun))
	if cl.tag != "" {
		note += fmt.Sprintf(" (tag %s)", quote(cl.tag))
	}
	return note + fmt.Sprintf(": %d operation(s)", len(cl.ops))
}

// tool writes one tool entry.
func (d *draft) tool(l *lines, c *candidate) {
	l.add("  - name: %s", c.name)
	l.add("    title: %s", quote(d.title(c)))
	if undocumented(c.ops) {
		l.add("    # TODO: the spec does not say what some of these operations do; describe them.")
	}
	l.add("    # TODO: say when not to use it (name the other tool) and what it does not return.")
	l.add("    description: %s", quote(d.description(c)))
	switch {
	case readsByPost(c):
		// The method says write; the operation only looks things up.
		l.add("    annotations: {read_only: true}")
	case writesByGet(c):
		// The method says read; the operation's name says it writes
		// (Slack's GET /views.update).
		l.add("    annotations: {read_only: false}")
	}
	if len(c.ops) == 1 {
		l.add("    operation: %s", quote(c.ops[0].ref))
		if destructiveByName(c) {
			// Clients ask before calling a destructive tool; HTTP alone
			// does not say that a POST .../cancel destroys something.
			l.add("    annotations: {destructive: true}")
		}
	} else {
		l.add("    actions:")
		for i, o := range c.ops {
			l.add("      %s:", c.actions[i])
			l.add("        description: %s", quote(actionDescription(o)))
			l.add("        operation: %s", quote(o.ref))
		}
	}
	d.inputAndOutput(l, c)
	if c.tool != nil {
		l.add("    # About %d tokens in tools/list. Inputs the model fills (rename, describe or hide them under input:):", (c.bytes+3)/4)
		for _, in := range inputLines(c.tool) {
			l.add("    #   %s", in)
		}
	}
}

// inputAndOutput writes a tool's input: rewrites (the page size and
// position of a paged list, the caller's identity) and its output paging.
func (d *draft) inputAndOutput(l *lines, c *candidate) {
	var inputs []string
	list, paged := d.listPaging(c)
	if paged && list.limitInput != "" {
		inputs = append(inputs, fmt.Sprintf("      %s: {value: %d}", quote(list.limitInput), draftPageSize))
	}
	if paged && list.newInput {
		inputs = append(inputs, fmt.Sprintf("      %s: {type: integer, minimum: 0, description: %s}", list.pageInput,
			quote("Optional. How many items to skip, for the next page: pass the nextPage offset of the previous result. Default 0.")))
	}
	if c.tool != nil {
		if ids := identityInputs(c.tool); len(ids) > 0 {
			inputs = append(inputs, "      # TODO: check: the caller's own identity, taken from their verified token, never from the model.")
			for _, name := range ids {
				inputs = append(inputs, fmt.Sprintf("      %s: {identity: sub}", quote(name)))
			}
		}
	}
	if len(inputs) > 0 {
		l.add("    input:")
		for _, in := range inputs {
			l.add("%s", in)
		}
	}
	if in, next, ok := d.cursorPaging(c); ok && !paged {
		l.add("    # Paged by the upstream's cursor: the result's %s, passed back as %s, gives the next page.", next, in)
		l.add("    # TODO: say so in the description of %s.", in)
	}
	if paged {
		l.add("    output:")
		l.add("      # Pages of %d items with totalCount, hasMore and nextPage, as long lists should be.", draftPageSize)
		total := ""
		if t := d.totalPath(c.ops[0].op, list.path); t != "" && !list.newInput {
			total = ", total: " + quote(t)
		}
		l.add("      list: {path: %s, limit: %d, page_input: %s, page_kind: %s%s}", quote(list.path), draftPageSize, quote(list.pageInput), list.pageKind, total)
	}
}

// rest writes the candidates past the budget as comments, and lists the
// ones that do not generate.
func (d *draft) rest(l *lines) {
	var inactive, broken []*candidate
	for _, c := range d.ranked() {
		switch {
		case c.broken != "":
			broken = append(broken, c)
		case !c.active:
			inactive = append(inactive, c)
		}
	}
	if len(inactive) > 0 {
		l.add("")
		l.add("  # More candidate tools, commented out to keep the server within %d tools and", d.opts.MaxTools)
		l.add("  # about %d tools/list tokens (what oa2mcp lint recommends). Uncomment the ones", d.opts.MaxListTokens)
		l.add("  # your users need, and comment out or merge others to stay within that budget.")
		for _, c := range inactive {
			var sub lines
			d.tool(&sub, c)
			for _, line := range strings.Split(strings.TrimSuffix(sub.b.String(), "\n"), "\n") {
				l.add("  # %s", strings.TrimPrefix(line, "  "))
			}
		}
	}
	if len(broken) > 0 {
		l.add("")
		l.add("  # Left out because they do not generate:")
		for _, c := range broken {
			l.add("  #   %s (%s): %s", c.name, opRefs(c.ops), c.broken)
		}
	}
}

// destructiveByName reports a one-operation tool whose name's verb
// deletes or cancels while its method does not say so.
func destructiveByName(c *candidate) bool {
	m := c.ops[0].op.Method
	return m != "DELETE" && m != "PUT" && lint.IsDestructiveVerb(firstWord(c.name))
}

// readsByPost reports a read tool with an operation whose method is
// not a read (a POST search).
func readsByPost(c *candidate) bool {
	if c.role != reader {
		return false
	}
	for _, o := range c.ops {
		if !isRead(o.op.Method) {
			return true
		}
	}
	return false
}

// writesByGet reports a one-operation tool of a read method whose name
// starts with a verb that changes things.
func writesByGet(c *candidate) bool {
	if len(c.ops) != 1 || !isRead(c.ops[0].op.Method) {
		return false
	}
	switch firstWord(c.name) {
	case "create", "update", "replace", "delete", "set", "add", "remove", "manage":
		return true
	}
	return false
}

func opRefs(ops []*opInfo) string {
	refs := make([]string, len(ops))
	for i, o := range ops {
		refs[i] = o.ref
	}
	return strings.Join(refs, ", ")
}

// quote renders s as a YAML double-quoted scalar (JSON strings are valid
// YAML), keeping <, > and & as they are.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
