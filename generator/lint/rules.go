package lint

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
)

// Rule describes one lint rule.
type Rule struct {
	ID       string
	Severity Severity
	// Summary says what the rule wants, in one sentence.
	Summary string
}

// rules is the catalogue, in the order docs/lint.md lists them. A rule
// whose severity depends on a threshold lists its usual severity.
var rules = []Rule{
	{"name-format", Error, "Tool names match ^[A-Za-z0-9_-]{1,64}$, which every major model API accepts."},
	{"name-unique", Error, "Tool names are unique in the server."},
	{"name-namespace", Warning, "Tool names start with a namespace for the service (petstore_find_pets), so they stay unambiguous next to other servers' tools."},
	{"name-verb-object", Warning, "Tool names read verb-object after the namespace (find_pets, create_order)."},
	{"title-missing", Warning, "Every tool has a title for people (catalogues, approval dialogs)."},
	{"description-missing", Error, "Every tool has a description; the model chooses tools by it."},
	{"description-sentences", Warning, "A description has at least three sentences: what it does, when to use it, its inputs and limits."},
	{"description-endpoint-speak", Warning, "A description speaks the user's task, not URL paths, HTTP verbs or \"calls the API\"."},
	{"description-when-to-use", Warning, "A description says when to use the tool, with a typical request (\"Use it when the user asks ...\")."},
	{"description-when-not", Info, "A description says when not to use the tool, naming the other tool to use instead."},
	{"description-overlap", Warning, "Tools that act on the same resource the same way name each other, so the model can tell them apart."},
	{"description-not-returned", Info, "A description says what the tool does not return, so the model does not expect it."},
	{"param-described", Warning, "Every input property has a description with its format or an example value."},
	{"caller-identity", Warning, "No input carries the caller's own identity (X-User-Id, \"the signed-in member\"); it is bound from the caller's token instead."},
	{"enum-explained", Warning, "A property with an enum explains its values in its description."},
	{"required-params", Warning, "Required inputs are few: each one tempts the model to invent a value."},
	{"state-lifetime", Warning, "A tool that creates state says how long it lives (\"expires after 24 hours\", \"kept until deleted\")."},
	{"write-empty-body", Warning, "A tool or action that writes cannot be called with nothing to write (an empty PUT that reports success)."},
	{"destructive-confirmation", Error, "A tool that deletes or cancels carries destructiveHint or asks for confirmation in its description."},
	{"tool-count", Warning, "The server has few tools (warning above 40, error above 128 by default)."},
	{"list-tokens", Warning, "tools/list stays small (estimate bytes/4; warning above 10000 tokens, error above 50000)."},
}

// Rules returns the rule catalogue.
func Rules() []Rule { return append([]Rule(nil), rules...) }

func ruleSeverity(id string) Severity {
	for _, r := range rules {
		if r.ID == id {
			return r.Severity
		}
	}
	return Warning
}

// server runs the rules about the whole server.
func (c *checker) server() {
	n, cfg := len(listedTools(c.srv)), c.cfg
	switch {
	case n > cfg.HardMaxTools:
		c.addSev("tool-count", Error, "", fmt.Sprintf("the server has %d tools, more than the hard limit of %d; clients truncate or refuse such lists and models pick badly among them", n, cfg.HardMaxTools),
			"skip the operations no user task needs and fold related ones into task-level tools in the override file")
	case n > cfg.MaxTools:
		c.addSev("tool-count", Warning, "", fmt.Sprintf("the server has %d tools, more than %d; models choose worse the more tools they see", n, cfg.MaxTools),
			"skip rarely needed operations or fold related ones into one tool with an action enum in the override file")
	}
	tokens := c.tokens
	switch {
	case tokens > cfg.HardMaxListTokens:
		c.addSev("list-tokens", Error, "", fmt.Sprintf("tools/list is about %d tokens, more than the hard limit of %d; it is sent to the model on every turn", tokens, cfg.HardMaxListTokens),
			"expose fewer tools and shorten descriptions and schemas in the override file")
	case tokens > cfg.MaxListTokens:
		c.addSev("list-tokens", Warning, "", fmt.Sprintf("tools/list is about %d tokens, more than %d; it is sent to the model on every turn", tokens, cfg.MaxListTokens),
			"expose fewer tools or trim long descriptions and rarely used parameters")
	}
	c.namespaces()
}

// namespaces reports tools without a namespace prefix: once for the
// server when no tool has one, else per tool.
func (c *checker) namespaces() {
	var missing []string
	for _, t := range c.srv.Tools {
		if namespaceOf(c.srv, t.Name) == "" {
			missing = append(missing, t.Name)
		}
	}
	if len(missing) == 0 {
		return
	}
	ns := mapping.SnakeCase(c.srv.Name)
	if len(missing) == len(c.srv.Tools) && len(missing) > 1 {
		c.add("name-namespace", "", "", fmt.Sprintf("none of the %d tool names starts with a namespace such as %q; next to other servers' tools, names like %q are ambiguous", len(missing), ns+"_", missing[0]),
			fmt.Sprintf("set tool_prefix: %s in oa2mcp.yaml (or --tool-prefix %s)", ns, ns))
		return
	}
	for _, name := range missing {
		c.add("name-namespace", name, "", fmt.Sprintf("the name does not start with the namespace %q the other tools use", ns+"_"),
			"rename the tool in the override file so it starts with the namespace")
	}
}

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`) })

// tool runs the per-tool rules.
func (c *checker) tool(t *ir.Tool, ctx *serverContext) {
	c.names(t, ctx)
	if strings.TrimSpace(t.Title) == "" {
		c.add("title-missing", t.Name, "", "the tool has no title", "add a short title for people, e.g. \"Find pets by status\"")
	}
	c.description(t, ctx)
	root := inputRoot(t) // decoded once for the rules that read it
	c.params(t, root)
	c.effects(t)
	c.writes(t, root)
}

func (c *checker) names(t *ir.Tool, ctx *serverContext) {
	if !nameRE().MatchString(t.Name) {
		c.add("name-format", t.Name, "", fmt.Sprintf("the name %q does not match ^[A-Za-z0-9_-]{1,64}$ (%d characters)", t.Name, len(t.Name)),
			"rename the tool in the override file: ASCII letters, digits, _ and -, at most 64 characters")
	}
	if ctx.names[t.Name] > 1 {
		c.add("name-unique", t.Name, "", fmt.Sprintf("%d tools are named %q", ctx.names[t.Name], t.Name), "give each tool its own name in the override file")
	}
	words := nameWords(strings.TrimPrefix(t.Name, namespaceOf(c.srv, t.Name)))
	switch {
	case len(words) == 0:
		c.add("name-verb-object", t.Name, "", "the name has no words after its namespace", "name the tool verb-object, e.g. find_pets")
	case !verbs[words[0]]:
		c.add("name-verb-object", t.Name, "", fmt.Sprintf("the name does not start with a verb (%q); models match requests to verb-object names best", words[0]),
			fmt.Sprintf("rename it verb-object, e.g. %s", suggestName(words)))
	case len(words) == 1:
		c.add("name-verb-object", t.Name, "", fmt.Sprintf("the name is a bare verb (%q) with no object", words[0]),
			fmt.Sprintf("say what it acts on, e.g. %s_pets", words[0]))
	}
}

func suggestName(words []string) string {
	return "get_" + strings.Join(words, "_")
}

// effects runs the rules about side effects: lifetimes of created state
// and confirmation of destructive actions.
func (c *checker) effects(t *ir.Tool) {
	d := t.Description
	if createsState(t) && !lifetimeRE().MatchString(d) {
		c.add("state-lifetime", t.Name, "", "the tool creates something but its description does not say how long it lives",
			"state the retention, e.g. \"The order is kept until it is deleted\" or \"The session expires after 24 hours\"")
	}
	if looksDestructive(t) && !t.Destructive && !confirmRE().MatchString(d) {
		c.add("destructive-confirmation", t.Name, "", "the tool deletes or cancels but has no destructiveHint and its description asks for no confirmation",
			"set destructive: true in the override file, or say \"Confirm with the user before calling\"")
	}
}

var (
	lifetimeRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(expire[sd]?|expiry|lifetime|lives? (for|until)|retain(ed|s)?|retention|kept (for|until)|stored (for|until)|persist(s|ent)?|permanent(ly)?|until (it is |they are )?(deleted|removed|cancell?ed|closed)|valid (for|until)|ttl)\b|\b\d+\s*(seconds?|minutes?|hours?|days?|weeks?)\b`)
	})
	confirmRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bconfirm`) })
)

// createsState guesses whether a tool creates server-side state: a
// non-idempotent POST whose name starts with a creating verb or whose
// description says it returns an id. Explicit handles will replace the
// guess.
func createsState(t *ir.Tool) bool {
	if t.ReadOnly || t.Method() != "POST" {
		return false
	}
	for _, w := range nameWords(t.Name) {
		if verbs[w] {
			// The name's verb decides: update_pet creates nothing.
			return creatingVerbs[w]
		}
	}
	return returnsIDRE().MatchString(t.Description)
}

var returnsIDRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\breturns?\b[^.]*\b(id|identifier|handle|token)\b`)
})

func looksDestructive(t *ir.Tool) bool {
	if t.Method() == "DELETE" {
		return true
	}
	for _, w := range nameWords(t.Name) {
		if destructiveVerbs[w] {
			return true
		}
		if verbs[w] {
			return false
		}
	}
	return false
}
