package mapping

import (
	"sort"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/discover"
	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Discovery mode: the operations no task tool uses are not tools but
// discoverable operations, each mapped as its default tool would be, and
// served through search_operations, describe_operation and
// call_operation (see runtime.Discovery and docs/discovery.md).

const (
	// maxTopics bounds the areas the search tool's description names.
	maxTopics    = 20
	maxTopicText = 300
	// maxHitSummary bounds the one-line summary of a search hit.
	maxHitSummary = 100
)

// discoverUnused reports whether unused operations become discoverable:
// the generate flag or config key, or select.unused: discover.
func discoverUnused(cfg Config) bool {
	return cfg.Discover || (cfg.Overrides != nil && cfg.Overrides.Select.Unused == overrides.UnusedDiscover)
}

// discovery maps the operations no task tool uses onto the server's
// Discovery; the task tools keep their names. Nil when every operation
// is a task tool's: three tools would offer nothing. built holds default
// tools already built (nil: none).
func discovery(infos []*opInfo, used map[*opInfo]bool, tools []ir.Tool, prefix string, tags map[string]string, built builtTools, problems *diag.List) *runtime.Discovery {
	rest, names := unusedNames(infos, used, tools, problems)
	checkReserved(tools, prefix, problems)
	if len(rest) == 0 {
		return nil
	}
	type entry struct {
		info *opInfo
		op   *runtime.Discoverable
		doc  discover.Doc
	}
	var entries []entry
	for i, info := range rest {
		tool, err := built.tool(info, names[i])
		if err != nil {
			problems.Errorf(info.op.Pos, "simplify the schema or exclude the operation", "%s %s: input schema cannot be encoded: %v", info.op.Method, info.op.RawPath, err)
			continue
		}
		entries = append(entries, entry{info: info, op: discoverable(info, tool)})
	}
	// Each document reads only its own operation (Kubernetes: 60 ms on
	// one CPU).
	workers.ForEach(len(entries), func(i int) { entries[i].doc = indexDoc(entries[i].info.op, entries[i].op.Tool) })
	sort.Slice(entries, func(i, j int) bool { return entries[i].op.Tool.Name < entries[j].op.Tool.Name })
	out := &runtime.Discovery{Topics: topics(rest)}
	if prefix != "" {
		out.Prefix = SnakeCase(prefix) + "_"
	}
	docs := make([]discover.Doc, len(entries))
	for i, e := range entries {
		out.Operations = append(out.Operations, e.op)
		docs[i] = e.doc
	}
	out.Areas = areas(docs, tags)
	index, err := discover.Index(docs)
	if err != nil {
		problems.Errorf(diag.Position{}, "report this as an oa2mcp bug", "building the discovery index: %v", err)
	}
	out.Index = index
	return out
}

// unusedNames lists the operations no task tool uses (but those no
// operation can serve), with their
// names: the tool names of the default mapping, giving way to the task
// tools' names. Operation names carry no prefix: they are arguments,
// not tools.
func unusedNames(infos []*opInfo, used map[*opInfo]bool, taken []ir.Tool, problems *diag.List) ([]*opInfo, []string) {
	var rest []*opInfo
	var ops []*load.Operation
	for _, info := range infos {
		if !used[info] && !skipUnmappable(info, problems) {
			rest = append(rest, info)
			ops = append(ops, info.op)
		}
	}
	wanted := make([]string, 0, len(taken)+len(ops))
	for _, t := range taken {
		wanted = append(wanted, t.Name)
	}
	wanted = append(wanted, toolNames(ops, "")...)
	return rest, uniqueNames(wanted, maxToolName)[len(taken):]
}

// checkReserved refuses task tools named like a discovery tool.
func checkReserved(tools []ir.Tool, prefix string, problems *diag.List) {
	p := ""
	if prefix != "" {
		p = SnakeCase(prefix) + "_"
	}
	for _, t := range tools {
		for _, base := range []string{oa2mcpimpl.SearchToolName, oa2mcpimpl.DescribeToolName, oa2mcpimpl.CallToolName} {
			if t.Name == p+base {
				problems.Errorf(t.Pos, "rename the tool", "tool %s has the name of a discovery tool", t.Name)
			}
		}
	}
}

// discoverable is the operation's default tool as discovery serves it:
// what it returns is said apart from the description, and an operation
// without a summary gets its description's first sentence as title, the
// one line a search hit shows.
func discoverable(info *opInfo, tool ir.Tool) *runtime.Discoverable {
	t := tool.Tool
	ret := returnsSentence(info.op, info.in.w)
	if ret != "" {
		t.Description = strings.TrimSpace(strings.Replace(t.Description, " "+ret, "", 1))
	}
	if oa2mcpimpl.PlainText(info.op.Summary) == "" {
		if s := firstSentenceOf(oa2mcpimpl.PlainText(info.op.Description)); s != "" {
			t.Title = oa2mcpimpl.Clip(s, maxHitSummary)
		}
	}
	return &runtime.Discoverable{Tool: &t, Returns: strings.TrimSuffix(strings.TrimPrefix(ret, "Returns "), ".")}
}

// firstSentenceOf returns the first sentence of text, if short.
func firstSentenceOf(text string) string {
	if text = oa2mcpimpl.FirstSentence(text, len(text)); len(text) > 2*maxHitSummary {
		return ""
	}
	return text
}

// indexDoc is what the search index reads of an operation.
func indexDoc(op *load.Operation, t *runtime.Tool) discover.Doc {
	return discover.Doc{
		Name: t.Name, OperationID: op.ID, Method: op.Method, Path: op.Path,
		Summary: oa2mcpimpl.PlainText(op.Summary), Description: oa2mcpimpl.PlainText(op.Description),
		Tags: op.Tags, Params: ir.PropertyNames(t.InputSchema), Deprecated: op.Deprecated,
	}
}

// topics names the API's areas: its most used tags, most used first.
func topics(infos []*opInfo) string {
	count := map[string]int{}
	var tags []string
	for _, info := range infos {
		for _, t := range info.op.Tags {
			if count[t] == 0 {
				tags = append(tags, t)
			}
			count[t]++
		}
	}
	sort.SliceStable(tags, func(i, j int) bool { return count[tags[i]] > count[tags[j]] })
	var out []string
	size := 0
	for _, t := range tags {
		if len(out) == maxTopics || size+len(t)+2 > maxTopicText {
			break
		}
		out = append(out, t)
		size += len(t) + 2
	}
	return strings.Join(out, ", ")
}
