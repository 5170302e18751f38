package cli

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/scaffold"
)

func newInitCmd() *cobra.Command {
	var spec, out string
	var force bool
	cmd := &cobra.Command{
		Use:   "init --spec FILE [--out FILE]",
		Short: "Draft an override file with task tools for an existing API",
		Long: `Init groups the spec's operations into candidate task tools (by tag and
resource, folding several operations on one resource into an action tool),
drafts descriptions from the spec and marks weak spots with TODO comments.
Without --out the draft is printed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if spec == "" {
				return usageErr("--spec is required")
			}
			doc, problems := load.Load(cmd.Context(), spec, load.Options{})
			if problems.HasErrors() {
				return reportProblems(cmd.ErrOrStderr(), problems)
			}
			draft := scaffold.Draft(doc)
			if out == "" {
				_, err := cmd.OutOrStdout().Write(draft)
				return err
			}
			if _, err := os.Stat(out); err == nil && !force {
				return usageErr("%s exists; pass --force to overwrite it", out)
			}
			if err := os.WriteFile(out, draft, 0o644); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().StringVar(&spec, "spec", "", "OpenAPI document")
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: print)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite --out if it exists")
	return cmd
}
