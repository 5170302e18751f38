// Package cli is the oa2mcp command line: cobra commands over the
// generator, with all file and terminal I/O kept here.
package cli

import (
	"errors"
	"fmt"
	"io"
	"regexp"

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
	root.SetFlagErrorFunc(flagError)
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

// badValueRE matches pflag's message for a flag value of the wrong type,
// whose cause names Go functions ("strconv.ParseInt: parsing ...").
var badValueRE = regexp.MustCompile(`^invalid argument ("[^"]*") for "(?:-\w, )?--([\w-]+)" flag`)

// flagError rewrites a flag value of the wrong type in the user's terms:
// the flag, the value and the kind of value it takes.
func flagError(cmd *cobra.Command, err error) error {
	m := badValueRE.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := "another value"
	if f := cmd.Flags().Lookup(m[2]); f != nil {
		switch f.Value.Type() {
		case "int", "int64", "uint":
			want = "a whole number, e.g. --" + m[2] + " 40"
		case "bool":
			want = "true or false, e.g. --" + m[2] + "=true"
		case "duration":
			want = "a duration, e.g. 10s"
		}
	}
	return fmt.Errorf("--%s %s: not a valid value; use %s", m[2], m[1], want)
}
