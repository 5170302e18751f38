package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// lintOptions are the flags of lint besides the shared settings.
type lintOptions struct {
	format string
	strict bool
	cfg    lint.Config
}

func newLintCmd() *cobra.Command {
	var s settings
	var o lintOptions
	var configPath string
	cmd := &cobra.Command{
		Use:   "lint --spec FILE [--overrides FILE] [--format text|json] | lint -c oa2mcp.yaml",
		Short: "Review the generated tools against the tool-design rules",
		Long: `Lint builds the tools generate would write and reviews them: descriptions a
model can choose by, described parameters, verb-object names, side effects
and the size of tools/list. Each finding has a rule id, a severity, a
message and a fix; docs/lint.md lists the rules.

Exit codes: 0 no errors, 1 findings at error severity (or warnings with
--strict), or problems in the inputs, 2 usage or I/O error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath != "" {
				if err := mergeConfig(cmd, &s, configPath); err != nil {
					return err
				}
			}
			if s.spec == "" {
				return usageErr("--spec is required (or spec: in the -c config file)")
			}
			if o.format != "text" && o.format != "json" {
				return usageErr("--format %q: use text or json", o.format)
			}
			return runLint(cmd.Context(), &s, &o, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&configPath, "config", "c", "", "read settings from an oa2mcp.yaml file (version: 1); flags win")
	f.StringVar(&s.spec, "spec", "", "OpenAPI document (YAML or JSON)")
	f.StringVar(&s.overrides, "overrides", "", "override file shaping the tools")
	f.StringVar(&s.name, "name", "", "server name (default: derived from the spec title)")
	f.StringVar(&s.toolPrefix, "tool-prefix", "", "prefix for every tool name, e.g. petstore")
	f.StringSliceVar(&s.allowRemote, "allow-remote-refs", nil, "hosts whose http(s) $refs may be fetched (default: none)")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	f.BoolVar(&o.strict, "strict", false, "exit 1 on warnings too")
	f.IntVar(&o.cfg.MaxTools, "max-tools", lint.Defaults.MaxTools, "tool count above which tool-count warns")
	f.IntVar(&o.cfg.MaxListTokens, "max-tokens", lint.Defaults.MaxListTokens, "tools/list token estimate above which list-tokens warns")
	f.IntVar(&o.cfg.MaxRequired, "max-required", lint.Defaults.MaxRequired, "required inputs per tool above which required-params warns")
	return cmd
}

// runLint loads and builds the server like generate, then lints it.
func runLint(ctx context.Context, s *settings, o *lintOptions, stdout, stderr io.Writer) error {
	if err := checkInputFiles(s); err != nil {
		return err
	}
	srv, src, err := loadAndBuild(ctx, s, stderr)
	if err != nil {
		return err
	}
	rep := lint.Check(srv, o.cfg)
	lint.Locate(rep, srv, src)
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return &exitError{code: exitUsage, err: err}
		}
	} else {
		printLintText(stdout, rep)
	}
	if rep.Count(lint.Error) > 0 || (o.strict && rep.Count(lint.Warning) > 0) {
		return &exitError{code: exitProblems}
	}
	return nil
}

// loadAndBuild reads the spec and builds the IR, with the sources that
// locate lint findings; input problems are printed and returned as exit
// code 1.
func loadAndBuild(ctx context.Context, s *settings, stderr io.Writer) (*ir.Server, lint.Sources, error) {
	doc, ov, problems := loadInputs(ctx, s)
	if problems.HasErrors() {
		return nil, lint.Sources{}, reportProblems(stderr, append(problems, restProblems(doc, ov, s)...))
	}
	srv, more := mapping.Build(doc, mapping.Config{Name: s.name, Package: s.pkg, ToolPrefix: s.toolPrefix, Overrides: ov})
	problems = append(problems, more...)
	if problems.HasErrors() {
		return nil, lint.Sources{}, reportProblems(stderr, problems)
	}
	warnEmpty(&problems, doc, srv)
	printProblems(stderr, problems)
	return srv, lintSources(s, doc, ov), nil
}

// lintSources are the inputs findings point into: the override file only
// when one was read from disk (x-oa2mcp-* extensions are re-encoded, so
// their positions are not the spec's).
func lintSources(s *settings, doc *load.Document, ov *overrides.File) lint.Sources {
	src := lint.Sources{Doc: doc}
	if s.overrides != "" {
		src.Overrides = ov
	}
	return src
}

// findingPlace is where a finding prints: "file:line:col: tool.param".
func findingPlace(rep *lint.Report, f *lint.Finding) string {
	where := rep.Server
	if f.Tool != "" {
		where = f.Tool
	}
	if f.Param != "" {
		where += "." + f.Param
	}
	if pos := f.Pos().String(); pos != "" {
		where = pos + ": " + where
	}
	return where
}

// printLintText prints one block per finding and a summary line.
func printLintText(w io.Writer, rep *lint.Report) {
	for i := range rep.Findings {
		f := &rep.Findings[i]
		fmt.Fprintf(w, "%s: %s: %s [%s]\n\tfix: %s\n", findingPlace(rep, f), f.Severity, f.Message, f.Rule, f.Fix)
	}
	fmt.Fprintf(w, "%s: %d tools, tools/list ≈ %d tokens: %s\n", rep.Server, rep.Tools, rep.ListTokens, countLine(rep))
}

func countLine(rep *lint.Report) string {
	return fmt.Sprintf("%d error(s), %d warning(s), %d info", rep.Count(lint.Error), rep.Count(lint.Warning), rep.Count(lint.Info))
}

// maxLintExamples is how many findings generate shows in its summary.
const maxLintExamples = 3

// lintModel lints a generated server and places its findings.
func lintModel(srv *ir.Server, src lint.Sources) *lint.Report {
	rep := lint.Check(srv, lint.Config{})
	lint.Locate(rep, srv, src)
	return rep
}

// printLintSummary is what generate prints after writing: errors and
// warnings counted per rule, plus the first few findings.
func printLintSummary(w io.Writer, rep *lint.Report) {
	var shown []lint.Finding
	perRule := map[string]int{}
	for _, f := range rep.Findings {
		if f.Severity == lint.Info {
			continue
		}
		perRule[f.Rule]++
		shown = append(shown, f)
	}
	if len(shown) == 0 {
		return
	}
	rules := make([]string, 0, len(perRule))
	for r := range perRule {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if perRule[rules[i]] != perRule[rules[j]] {
			return perRule[rules[i]] > perRule[rules[j]]
		}
		return rules[i] < rules[j]
	})
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %d", r, perRule[r])
	}
	fmt.Fprintf(w, "lint: %d error(s), %d warning(s): %s\n", rep.Count(lint.Error), rep.Count(lint.Warning), strings.Join(parts, ", "))
	for i, f := range shown {
		if i == maxLintExamples {
			fmt.Fprintf(w, "lint: ... run oa2mcp lint for all %d findings and their fixes\n", len(shown))
			break
		}
		fmt.Fprintf(w, "lint: %s: %s: %s [%s]\n", findingPlace(rep, &f), f.Severity, f.Message, f.Rule)
	}
}
