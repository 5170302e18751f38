// Package cli is the oa2mcp command line: cobra commands over the
// generator, with all file and terminal I/O kept here.
package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes, part of the CLI contract.
const (
	exitOK       = 0
	exitProblems = 1 // problems found in the inputs, or drift in --check
	exitUsage    = 2 // usage or I/O error
)

// exitError carries an exit code out of a cobra command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageErr(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// Run executes the oa2mcp command line and returns the exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := &cobra.Command{
		Use:           "oa2mcp",
		Short:         "Generate a Go MCP server from an OpenAPI document",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newGenerateCmd(), newInitCmd(), newLintCmd(), newVersionCmd())
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil && ee.err.Error() != "" {
			fmt.Fprintln(stderr, "oa2mcp:", ee.err)
		}
		return ee.code
	}
	// Cobra's own errors are about flags and arguments.
	fmt.Fprintln(stderr, "oa2mcp:", err)
	return exitUsage
}
