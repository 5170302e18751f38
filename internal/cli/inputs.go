package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
)

// checkReadable reports an input file that cannot be opened as an I/O
// error (exit code 2): a missing or unreadable file is a problem with the
// command line, not a problem in the file. what names the file ("the
// spec") and flag the option that gave it.
func checkReadable(path, what, flag string) error {
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: cannot read %s: %s; check the %s path", path, what, ioReason(err), flag)}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %s is a folder; give %s a file", path, what, flag)}
	}
	return nil
}

// ioReason is the cause of a file error without the operation and path
// the message already gives ("no such file or directory").
func ioReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// checkInputFiles checks the spec and override files of a run before
// anything is loaded.
func checkInputFiles(s *settings) error {
	if err := checkReadable(s.spec, "the spec", "--spec"); err != nil {
		return err
	}
	return checkReadable(s.overrides, "the override file", "--overrides")
}

// warnEmpty warns about a run that yields a server without tools: a
// spec with no operations (only webhooks or components), or overrides
// that select none. Such a server starts but offers a model nothing.
func warnEmpty(problems *diag.List, doc *load.Document, srv *ir.Server) {
	if doc == nil {
		return
	}
	at := diag.Position{File: doc.File}
	switch {
	case len(doc.Operations) == 0:
		problems.Warnf(at, "add operations under paths:, or check that --spec names the API's document",
			"the spec declares no operations (webhooks and components are not tools), so the server has no tools")
	case srv != nil && len(srv.Tools) == 0 && srv.Discovery == nil:
		problems.Warnf(at, "check select: and tools: in the override file",
			"none of the spec's %d operations became a tool, so the server has no tools", len(doc.Operations))
	}
}
