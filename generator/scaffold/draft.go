package scaffold

import (
	"fmt"
	"sort"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
)

// opInfo is one operation the draft may use.
type opInfo struct {
	op *load.Operation
	// ref names the operation in the draft: its operationId, or
	// "METHOD /path" when it has none or shares it.
	ref string
	// def is the operation's default tool: its plain-text title and
	// description come from the same mapping code as generated tools.
	def   *ir.Tool
	shape shape
	tag   string
	// order is the operation's index in the spec's path order.
	order int
	// paged: a list the draft pages (listPaging), which gets a tool of
	// its own rather than an action, so that its paging is drafted.
	paged bool
}

// candidate is one tool of the draft.
type candidate struct {
	name    string
	cluster *cluster
	role    role
	ops     []*opInfo
	// actions name ops one to one when the tool has several.
	actions []string
	// tool is the tool the draft generates; bytes its tools/list size.
	tool  *ir.Tool
	bytes int
	// active tools are written as YAML, the others commented out.
	active bool
	// broken says why the tool does not generate; such tools are left
	// out.
	broken string
}

// draft holds everything one run of the scaffold works out.
type draft struct {
	doc    *load.Document
	opts   Options
	server serverNames
	ops    []*opInfo
	// skipped counts operations without a tool of their own, by reason.
	skipped map[string]int
	// deprecated are the deprecated operations, excluded from the server
	// by select.exclude: no tool and no discovery serves them.
	deprecated []string
	clusters   []*cluster
	cands      []*candidate
	// noDiscovery: the budget is too small for the discovery tools, so
	// operations no tool uses are dropped rather than discovered.
	noDiscovery bool
}

func newDraft(doc *load.Document, opts Options) *draft {
	d := &draft{doc: doc, opts: opts, server: namesFor(doc.Title), skipped: map[string]int{}}
	defaults, _ := mapping.Build(doc, mapping.Config{})
	byOp := map[string]*ir.Tool{}
	for i := range defaults.Tools {
		if t := &defaults.Tools[i]; t.Op != nil {
			byOp[t.Op.Method+" "+t.Op.Path] = t
		}
	}
	refs := operationRefs(doc.Operations)
	for i, op := range doc.Operations {
		def := byOp[op.Method+" "+op.Path]
		switch {
		case op.Deprecated:
			d.deprecated = append(d.deprecated, excludeRef(op, refs))
		case refs[op] == "":
			d.skipped["no operationId and a path shared with another operation"]++
		case def == nil:
			d.skipped["no default tool (see oa2mcp lint)"]++
		default:
			tag := ""
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			d.ops = append(d.ops, &opInfo{op: op, ref: refs[op], def: def, shape: pathShape(op.Method, op.Path), tag: tag, order: i})
		}
	}
	return d
}

// excludeRef names a deprecated operation in select.exclude: its
// reference, or "METHOD /path", which a rule matches too.
func excludeRef(op *load.Operation, refs map[*load.Operation]string) string {
	if r := refs[op]; r != "" {
		return r
	}
	return op.Method + " " + op.Path
}

// operationRefs gives each operation the reference a draft can use for
// it: a unique operationId, else "METHOD /path" when that is unique
// (mapping resolves both); "" when neither is.
func operationRefs(ops []*load.Operation) map[*load.Operation]string {
	ids, paths := map[string]int{}, map[string]int{}
	for _, op := range ops {
		if op.ID != "" {
			ids[op.ID]++
		}
		paths[op.Method+" "+op.Path]++
	}
	out := map[*load.Operation]string{}
	for _, op := range ops {
		switch mp := op.Method + " " + op.Path; {
		case op.ID != "" && ids[op.ID] == 1:
			out[op] = op.ID
		case paths[mp] == 1 && ids[mp] == 0:
			out[op] = mp
		}
	}
	return out
}

// buildCandidates groups the operations into candidate tools, then builds
// the server of all of them: what each tool's inputs and size are, and
// which tools do not generate. A broken tool is set aside and the rest
// rebuilt, so one bad operation never costs the whole draft.
func (d *draft) buildCandidates() {
	for _, o := range d.ops {
		if roleOf(o) == reader {
			_, o.paged = d.listPaging(&candidate{ops: []*opInfo{o}})
		}
	}
	d.clusters = groupOperations(d.ops)
	scoreMentions(d.clusters, d.ops)
	d.cands = nameCandidates(d.clusters, d.server.maxToolName())
	for _, c := range d.cands {
		c.active = true
	}
	for round := 0; round < 4; round++ {
		text, spans := d.renderSpans()
		srv, problems := generates(d.doc, text)
		if srv != nil {
			d.attach(srv)
			return
		}
		if !d.setAside(problems, spans) {
			break
		}
	}
	for _, c := range d.cands {
		if c.broken == "" {
			c.broken = "the draft does not generate"
		}
		c.active = false
	}
}

// attach links each candidate to the tool it generated.
func (d *draft) attach(srv *ir.Server) {
	byName := map[string]*ir.Tool{}
	for i := range srv.Tools {
		byName[srv.Tools[i].Name] = &srv.Tools[i]
	}
	for _, c := range d.cands {
		if t := byName[d.server.prefixed(c.name)]; t != nil && c.broken == "" {
			c.tool = t
			c.bytes = ir.ListBytes([]ir.Tool{*t})
		}
	}
}

// setAside marks the candidates whose lines have errors as broken; it
// reports false when an error lies outside every candidate.
func (d *draft) setAside(problems diag.List, spans map[*candidate][2]int) bool {
	found := false
	for _, p := range problems.Errors() {
		c := candidateAt(spans, p.Pos.Line)
		if c == nil {
			return false
		}
		if c.broken == "" {
			c.broken = p.Message
			c.active = false
			found = true
		}
	}
	return found
}

func candidateAt(spans map[*candidate][2]int, line int) *candidate {
	for c, s := range spans {
		if line >= s[0] && line <= s[1] {
			return c
		}
	}
	return nil
}

// maxShare bounds one tool to this fraction of the tools/list budget, so
// one huge schema cannot crowd out every other resource; such a tool is
// left commented out with its size shown, to be trimmed first.
const maxShare = 4

// choose enables candidates in rank order while the draft stays within
// the tool and tools/list budgets: the most central resources first, each
// one's read tool before its write tools, stopping at the first that does
// not fit (a tool too large for any draft, past maxShare, is passed over).
func (d *draft) choose(reserveBytes int) {
	ranked := d.ranked()
	maxBytes := d.opts.MaxListTokens*4 - reserveBytes
	total, count := 0, 0
	full := false
	for _, c := range ranked {
		c.active = false
		if c.tool == nil || c.bytes > maxBytes/maxShare {
			continue
		}
		if full || count >= d.opts.MaxTools || total+c.bytes > maxBytes {
			// Once a more central tool no longer fits, no less central
			// one takes its place: a payments draft must not enable
			// donations while leaving refunds commented out.
			full = true
			continue
		}
		c.active = true
		total += c.bytes
		count++
	}
	if count == 0 {
		d.enableSmallest()
	}
}

// enableSmallest keeps a draft whose every tool is over budget from being
// empty: the smallest tool is enabled if it stays under lint's hard limit.
func (d *draft) enableSmallest() {
	var best *candidate
	for _, c := range d.cands {
		if c.tool != nil && (best == nil || c.bytes < best.bytes) {
			best = c
		}
	}
	if best != nil && best.bytes/4 <= lint.Defaults.HardMaxListTokens {
		best.active = true
	}
}

// ranked orders candidates by their cluster's rank, keeping each
// cluster's own order (read, write, single actions). A resource other
// operations take as an input (customer in charges, invoices and
// subscriptions) is central to the API and comes first; then resources
// with more operations; then path order.
func (d *draft) ranked() []*candidate {
	clusters := append([]*cluster(nil), d.clusters...)
	sort.SliceStable(clusters, func(i, j int) bool {
		a, b := clusters[i], clusters[j]
		switch {
		case a.mentions != b.mentions:
			return a.mentions > b.mentions
		case len(a.ops) != len(b.ops):
			return len(a.ops) > len(b.ops)
		}
		return a.ops[0].order < b.ops[0].order
	})
	var out []*candidate
	for _, cl := range clusters {
		out = append(out, cl.cands...)
	}
	return out
}

// skippedNote says which operations get no tool of their own and why,
// and whether the server still serves them.
func (d *draft) skippedNote() []string {
	reasons := make([]string, 0, len(d.skipped))
	for r := range d.skipped {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	var out []string
	for _, r := range reasons {
		out = append(out, fmt.Sprintf("%d operation(s) without a tool of their own: %s", d.skipped[r], r))
	}
	if n := len(d.deprecated); n > 0 {
		out = append(out, fmt.Sprintf("%d deprecated operation(s) left out of the server, tools and discovery alike (select.exclude)", n))
	}
	return out
}
