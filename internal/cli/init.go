package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/scaffold"
)

// initOptions are the flags of init.
type initOptions struct {
	spec, out string
	force     bool
	draft     scaffold.Options
}

func newInitCmd() *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init --spec FILE [--out FILE]",
		Short: "Draft an override file with task tools for an existing API",
		Long: `Init groups the spec's operations into candidate task tools by tag and
resource (reads apart from writes, several operations on one resource
folded into an action tool), names the server and its tool prefix after
the spec title, drafts descriptions, lists each tool's inputs as comments
and marks weak spots with TODO comments. Tools past --max-tools or
--max-tokens are written commented out. Without --out the draft is printed.

Exit codes: 0 ok, 1 problems in the spec, 2 usage or I/O error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.spec == "" {
				return usageErr("--spec is required")
			}
			return runInit(cmd, &o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.spec, "spec", "", "OpenAPI document")
	f.StringVar(&o.out, "out", "", "file to write (default: print)")
	f.BoolVar(&o.force, "force", false, "overwrite --out if it exists")
	f.IntVar(&o.draft.MaxTools, "max-tools", lint.Defaults.MaxTools, "tools to enable; the other candidates are written commented out")
	f.IntVar(&o.draft.MaxListTokens, "max-tokens", lint.Defaults.MaxListTokens, "tools/list token estimate the enabled tools stay within")
	return cmd
}

// runInit drafts the override file and writes or prints it.
func runInit(cmd *cobra.Command, o *initOptions) error {
	stderr := cmd.ErrOrStderr()
	if err := checkReadable(o.spec, "the spec", "--spec"); err != nil {
		return err
	}
	if o.out != "" && !o.force {
		if _, err := os.Stat(o.out); err == nil {
			return usageErr("%s exists; pass --force to overwrite it", o.out)
		}
	}
	doc, problems := load.Load(cmd.Context(), o.spec, load.Options{})
	if problems.HasErrors() {
		return reportProblems(stderr, problems)
	}
	o.draft.Spec = o.spec
	res := scaffold.Build(doc, o.draft)
	warnEmpty(&problems, doc, nil)
	printProblems(stderr, problems)
	if o.out == "" {
		_, err := cmd.OutOrStdout().Write(res.Text)
		return err
	}
	if err := os.WriteFile(o.out, res.Text, 0o644); err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: cannot write the draft: %s; check the --out path", o.out, ioReason(err))}
	}
	printDraftSummary(stderr, o, res)
	printDefaultSize(stderr, doc)
	return nil
}

// printDraftSummary says what the draft holds, how it lints, and what to
// run next.
func printDraftSummary(w io.Writer, o *initOptions, res *scaffold.Result) {
	fmt.Fprintf(w, "wrote %s: %d operations in %d tools", o.out, res.Operations, res.Tools)
	if res.Candidates > 0 {
		fmt.Fprintf(w, ", %d more commented out", res.Candidates)
	}
	fmt.Fprintln(w)
	if res.Server == nil {
		// The scaffold checks its drafts; this is an oa2mcp bug.
		printProblems(w, res.Problems)
		fmt.Fprintln(w, "the draft does not generate as written; please report this as an oa2mcp bug")
		return
	}
	rep := lint.Check(res.Server, lint.Config{})
	fmt.Fprintf(w, "lint: %s: %s\n", listSize(res.Server), countLine(rep))
	fmt.Fprintf(w, "next: resolve the TODOs, then oa2mcp lint --spec %s --overrides %s\n", o.spec, o.out)
}
