package scaffold

import (
	"regexp"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Limits on drafted text: descriptions are read by the model on every
// turn, so the draft keeps them short and leaves detail to the author.
const (
	maxActionDesc = 160
	maxTagDesc    = 200
	maxTitle      = 60
)

// title is the tool's title for people: the spec's summary for a tool of
// one operation when it is short and names no path, else the tool's name
// in words ("Find pets", "Manage orders").
func (d *draft) title(c *candidate) string {
	if len(c.ops) == 1 {
		o := c.ops[0]
		if t := strings.TrimSuffix(o.def.Title, "."); o.op.Summary != "" && len(t) <= maxTitle && !strings.Contains(t, "/") {
			return t
		}
	}
	return humanize(c.name)
}

// description drafts the tool's description: what it does in task words,
// when to use it, which sibling tool to use instead, and its effect. A
// tool of one operation starts from that operation's default description
// (the spec's words, its required inputs, what it returns); an action
// tool describes the resource once and leaves each operation's words to
// its action, so nothing is said twice.
func (d *draft) description(c *candidate) string {
	var parts []string
	noun := words(c.cluster.noun)
	switch {
	case len(c.ops) == 1:
		desc := c.ops[0].def.Description
		switch {
		case readsByPost(c):
			desc = strings.Replace(desc, "Changes data on the service.", "Read-only: it looks data up and changes nothing.", 1)
		case c.ops[0].op.Method == "PUT" && idVerb(c.ops[0]) != "":
			// PUT /me/player/play starts playback: a task, not a resource
			// overwritten.
			desc = strings.Replace(desc, "Overwrites the stored resource with the values given.", "Changes data on the service.", 1)
		case writesByGet(c):
			desc = strings.Replace(desc, "Read-only: changes nothing.", "It may change data on the service, although the API reads it with GET.", 1)
		}
		parts = append(parts, desc, "Use it when the user asks to "+strings.ToLower(humanize(c.name))+".")
	case c.role == reader:
		parts = append(parts, readPurpose(c, noun), d.tagSentence(c.cluster),
			"Use it when the user asks about "+plural(noun)+"; the action input says how to look them up.")
	default:
		parts = append(parts, writePurpose(c.ops, noun), d.tagSentence(c.cluster),
			"Use it when the user wants to "+joinOr(mainVerbs(c.ops))+" "+oa2mcpimpl.WithArticle(noun)+".")
	}
	parts = append(parts, d.siblings(c)...)
	if len(c.ops) > 1 {
		parts = append(parts, effect(c))
	}
	return strings.Join(nonEmpty(parts), " ")
}

// readPurpose says what a read tool finds: a collection, one item by its
// key, or both.
func readPurpose(c *candidate, noun string) string {
	key := itemKey(c.ops)
	switch {
	case !anyCollection(c.ops):
		return "Get " + oa2mcpimpl.WithArticle(noun) + " by its " + key + "."
	case key != "":
		return "Find " + plural(noun) + ", or get one by its " + key + "."
	}
	return "Find " + plural(noun) + "."
}

// itemKey is the last path parameter of the first operation on one item,
// in words ("pet id"); "" when no operation reads one item.
func itemKey(ops []*opInfo) string {
	for _, o := range ops {
		if o.shape.item && o.shape.action == "" {
			segs := pathSegments(o.op.Path)
			return words(mapping.SnakeCase(segs[len(segs)-1].text))
		}
	}
	return ""
}

// writePurpose says what a write tool does: create, change or delete,
// then its other actions in words ("Also: upload image.").
func writePurpose(ops []*opInfo, noun string) string {
	basic, extra := writeVerbs(ops)
	if len(basic) == 0 {
		return capitalize(joinOr(extra)) + " " + plural(noun) + "."
	}
	out := capitalize(joinOr(basic)) + " " + plural(noun) + "."
	if len(extra) > 0 {
		out += " Also: " + strings.Join(extra, ", ") + "."
	}
	return out
}

// mainVerbs are the verbs prose names a write tool by: create, change or
// delete, else its own actions.
func mainVerbs(ops []*opInfo) []string {
	if basic, extra := writeVerbs(ops); len(basic) > 0 {
		return basic
	} else if len(extra) > 0 {
		return extra
	}
	return []string{"change"}
}

// writeVerbs are the things a write tool does, for prose: the basic
// create, change and delete, and its own actions in words ("upload
// image").
func writeVerbs(ops []*opInfo) (basic, extra []string) {
	seen := map[string]bool{}
	for _, want := range []string{"create", "change", "delete"} {
		for _, o := range ops {
			if o.shape.action == "" && idVerb(o) == "" && proseVerb(o.op.Method, o.shape.item) == want && !seen[want] {
				seen[want] = true
				basic = append(basic, want)
			}
		}
	}
	for _, o := range ops {
		if w := words(actionName(o)); (o.shape.action != "" || idVerb(o) != "") && !seen[w] {
			seen[w] = true
			extra = append(extra, w)
		}
	}
	return basic, extra
}

// proseVerb says in one word what a method does to a collection or
// (item) one resource: a POST to one resource changes it.
func proseVerb(method string, item bool) string {
	switch methodVerb(method, item) {
	case "create":
		return "create"
	case "replace", "update":
		return "change"
	case "delete", "delete_all":
		return "delete"
	}
	return ""
}

// effect is the last sentence of an action tool: read-only, or what its
// writes do.
func effect(c *candidate) string {
	if c.role == reader {
		return "Read-only: it changes nothing."
	}
	for _, o := range c.ops {
		if o.op.Method == "DELETE" {
			return "It changes data on the service; deleting cannot be undone, so confirm with the user first."
		}
	}
	return "It changes data on the service."
}

// siblings names the tool's counterpart on the same resource, so the
// model can tell them apart: the write tool for a read tool, the read
// tool for the others (else the write tool).
func (d *draft) siblings(c *candidate) []string {
	noun := words(c.cluster.noun)
	want := []role{reader, writer}
	if c.role == reader {
		want = []role{writer}
	}
	for _, r := range want {
		for _, s := range c.cluster.cands {
			if s == c || !s.active || s.role != r {
				continue
			}
			what := "look " + plural(noun) + " up"
			switch {
			case len(s.ops) == 1:
				what = strings.ToLower(humanize(s.name))
			case s.role == writer:
				what = joinOr(mainVerbs(s.ops)) + " " + plural(noun)
			}
			return []string{"To " + what + " use " + d.server.prefixed(s.name) + " instead."}
		}
	}
	return nil
}

// tagSentence is the description of the cluster's tag, when the spec
// gives one.
func (d *draft) tagSentence(cl *cluster) string {
	desc := oa2mcpimpl.PlainText(d.doc.Tags[cl.tag])
	if desc == "" {
		return ""
	}
	return ensurePeriod(oa2mcpimpl.Clip(oa2mcpimpl.FirstSentence(desc, len(desc)), maxTagDesc))
}

// actionDescription is one action's description: the first sentence of
// its operation's default description (the spec's summary, else its
// description, else a purpose derived from method and path).
func actionDescription(o *opInfo) string {
	return oa2mcpimpl.Clip(oa2mcpimpl.FirstSentence(o.def.Description, len(o.def.Description)), maxActionDesc)
}

// undocumented reports whether the spec describes none of ops' purpose.
func undocumented(ops []*opInfo) bool {
	for _, o := range ops {
		if strings.TrimSpace(o.op.Summary) == "" && strings.TrimSpace(o.op.Description) == "" {
			return true
		}
	}
	return false
}

func ensurePeriod(s string) string {
	if s == "" || strings.HasSuffix(s, "…") || strings.ContainsAny(s[len(s)-1:], ".!?") {
		return s
	}
	return s + "."
}

// words turns a snake name into words: "pod_log" → "pod log".
func words(snakeName string) string {
	return strings.ReplaceAll(snakeName, "_", " ")
}

// humanize turns a tool name into a title: "find_pods" → "Find pods",
// "find_pods_2" → "Find pods (2)".
func humanize(snakeName string) string {
	if m := partRE().FindStringSubmatch(snakeName); m != nil {
		return capitalize(words(m[1])) + " (" + m[2] + ")"
	}
	return capitalize(words(snakeName))
}

var partRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*)_(\d+)$`) })

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// joinOr joins items as prose: "a", "a or b", "a, b or c".
func joinOr(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func nonEmpty(list []string) []string {
	var out []string
	for _, s := range list {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
