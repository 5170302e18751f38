// Package lint reviews the tools of an ir.Server against the tool-design
// standard: descriptions a model can choose by, parameters it can fill,
// names it can read, and a tools/list small enough for every turn.
//
// It is pure: Check reads the IR and returns findings, sorted, with no I/O
// and no package state. Every finding carries a stable rule id, a
// severity, a message saying what is wrong and a fix hint saying what to
// change (usually in the override file). docs/lint.md lists the rules.
package lint

import (
	"regexp"
	"sort"

	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Severity is how serious a finding is.
type Severity string

// Severities, from most to least serious.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// rank orders severities for sorting: errors first.
func (s Severity) rank() int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// Finding is one rule violation.
type Finding struct {
	// Rule is the stable rule id, e.g. "description-when-to-use".
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// Tool is the tool's name; empty for findings about the whole server.
	Tool string `json:"tool,omitempty"`
	// Param is the input property concerned, if any.
	Param   string `json:"param,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	// File, Line and Column locate the override file entry or spec
	// operation the finding concerns (see Locate); empty until located.
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// Config holds the thresholds of the rules; the zero value of a field
// means its default (see Defaults).
type Config struct {
	// MaxTools is the tool count above which tool-count warns;
	// HardMaxTools the count above which it is an error.
	MaxTools, HardMaxTools int
	// MaxListTokens is the tools/list estimate (bytes/4) above which
	// list-tokens warns; HardMaxListTokens above which it is an error.
	MaxListTokens, HardMaxListTokens int
	// MaxRequired is the number of required inputs above which
	// required-params warns.
	MaxRequired int
	// MinSentences is the shortest description, in sentences.
	MinSentences int
}

// Defaults are the thresholds used for zero Config fields.
var Defaults = Config{
	MaxTools: 40, HardMaxTools: 128,
	MaxListTokens: 10000, HardMaxListTokens: 50000,
	MaxRequired: 4, MinSentences: 3,
}

func (c Config) withDefaults() Config {
	pick := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	return Config{
		MaxTools: pick(c.MaxTools, Defaults.MaxTools), HardMaxTools: pick(c.HardMaxTools, Defaults.HardMaxTools),
		MaxListTokens:     pick(c.MaxListTokens, Defaults.MaxListTokens),
		HardMaxListTokens: pick(c.HardMaxListTokens, Defaults.HardMaxListTokens),
		MaxRequired:       pick(c.MaxRequired, Defaults.MaxRequired),
		MinSentences:      pick(c.MinSentences, Defaults.MinSentences),
	}
}

// Report is the outcome of one lint run. Its JSON form is the stable
// output of "oa2mcp lint --format json" (documented in docs/lint.md).
type Report struct {
	// Version is the version of this JSON layout; it changes only when a
	// field changes meaning or disappears.
	Version int    `json:"version"`
	Server  string `json:"server"`
	Tools   int    `json:"tools"`
	// ListTokens estimates the tokens of tools/list: bytes/4 of the JSON
	// of every tool (name, title, description, inputSchema, outputSchema,
	// annotations).
	ListTokens int `json:"listTokens"`
	// Counts has one entry per severity, always all three.
	Counts   map[Severity]int `json:"counts"`
	Findings []Finding        `json:"findings"`
}

// Count returns the number of findings of severity s.
func (r *Report) Count(s Severity) int { return r.Counts[s] }

// Check runs every rule over srv.
func Check(srv *ir.Server, cfg Config) *Report {
	cfg = cfg.withDefaults()
	c := &checker{srv: srv, cfg: cfg, tokens: ListTokens(srv)}
	c.server()
	c.out = append(c.out, c.toolFindings(newServerContext(srv))...)
	sortFindings(c.out)
	r := &Report{Version: 1, Server: srv.Name, Tools: len(listedTools(srv)), ListTokens: c.tokens,
		Counts: map[Severity]int{Error: 0, Warning: 0, Info: 0}, Findings: c.out}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	for _, f := range r.Findings {
		r.Counts[f.Severity]++
	}
	return r
}

// toolFindings checks every tool, on every CPU: one contiguous range of
// tools per worker, each with a checker (and memo) of its own, since
// neighbouring tools repeat texts; joined in tool order, so the findings
// are those of one checker going through the tools in turn. ctx is only
// read.
func (c *checker) toolFindings(ctx *serverContext) []Finding {
	tools := c.srv.Tools
	parts := make([][]Finding, len(tools))
	workers.ForChunks(len(tools), func(lo, hi int) {
		w := &checker{srv: c.srv, cfg: c.cfg, tokens: c.tokens}
		for i := lo; i < hi; i++ {
			w.tool(&tools[i], ctx)
		}
		parts[lo] = w.out
	})
	var out []Finding
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// checker collects findings.
type checker struct {
	srv *ir.Server
	cfg Config
	out []Finding
	// tokens is ListTokens(srv), sized once: it encodes every tool.
	tokens int
	// memo holds the regexp matches of this run by expression and text:
	// large specs repeat the same parameter descriptions on hundreds of
	// tools (Kubernetes: dryRun, pretty, fieldManager on ~1,000).
	memo map[*regexp.Regexp]map[string]bool
}

// matches is re.MatchString(s) for a case-insensitive re every match of
// which holds one of words (nil: no such words), computed once per run
// for each text, and not at all when s holds none of the words.
func (c *checker) matches(re *regexp.Regexp, words []string, s string) bool {
	if words != nil && cannotMatch(s, true, words) {
		return false
	}
	m := c.memo[re]
	if m == nil {
		if c.memo == nil {
			c.memo = map[*regexp.Regexp]map[string]bool{}
		}
		m = map[string]bool{}
		c.memo[re] = m
	}
	v, ok := m[s]
	if !ok {
		v = re.MatchString(s)
		m[s] = v
	}
	return v
}

func (c *checker) add(rule string, tool, param string, msg, fix string) {
	c.out = append(c.out, Finding{Rule: rule, Severity: ruleSeverity(rule), Tool: tool, Param: param, Message: msg, Fix: fix})
}

// addSev adds a finding whose severity depends on a threshold.
func (c *checker) addSev(rule string, sev Severity, tool, msg, fix string) {
	c.out = append(c.out, Finding{Rule: rule, Severity: sev, Tool: tool, Message: msg, Fix: fix})
}

func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Tool != b.Tool {
			return a.Tool < b.Tool
		}
		if a.Severity.rank() != b.Severity.rank() {
			return a.Severity.rank() < b.Severity.rank()
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Param < b.Param
	})
}

// ListTokens estimates the tokens a model reads for srv's tools/list
// (ir.EstimateTokens of ir.ListBytes).
func ListTokens(srv *ir.Server) int {
	return ir.EstimateTokens(ListBytes(srv))
}

// ListBytes is the size of srv's tools/list, discovery tools included.
func ListBytes(srv *ir.Server) int {
	return ir.ListBytes(listedTools(srv))
}

// listedTools are the tools a client lists: the server's, plus the three
// of discovery mode when it is on.
func listedTools(srv *ir.Server) []ir.Tool {
	extra := oa2mcpimpl.DiscoveryTools(&srv.ServerDef)
	if len(extra) == 0 {
		return srv.Tools
	}
	out := append([]ir.Tool(nil), srv.Tools...)
	for _, t := range extra {
		out = append(out, ir.Tool{Tool: *t})
	}
	return out
}
