// Package diag holds the problems the generator reports about its inputs.
//
// Every stage collects problems instead of stopping at the first one, so a
// user sees everything wrong with a spec or an override file in one run.
// A problem prints as "file:line:col: what is wrong; how to fix it".
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Severity says whether a problem stops generation.
type Severity int

const (
	// Error problems make generation impossible; nothing is written.
	Error Severity = iota
	// Warning problems are reported but generation goes on.
	Warning
)

// Position is a place in an input file, 1-based. Line 0 means the position
// is unknown and only the file is printed.
type Position struct {
	File   string
	Line   int
	Column int
}

// String formats the position as "file:line:col", dropping unknown parts.
func (p Position) String() string {
	switch {
	case p.File == "":
		return ""
	case p.Line == 0:
		return p.File
	case p.Column == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)
}

// Problem is one thing wrong with an input.
type Problem struct {
	Pos      Position
	Severity Severity
	// Message says what is wrong, without a trailing period.
	Message string
	// Fix says how to fix it; may be empty when the message says it all.
	Fix string
}

// String renders the problem as "file:line:col: message; fix", with
// "warning: " before the message for warnings.
func (p Problem) String() string {
	var b strings.Builder
	if pos := p.Pos.String(); pos != "" {
		b.WriteString(pos)
		b.WriteString(": ")
	}
	if p.Severity == Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Message)
	if p.Fix != "" {
		b.WriteString("; ")
		b.WriteString(p.Fix)
	}
	return b.String()
}

// List collects problems from one or more stages.
type List []Problem

// Errorf adds an error-severity problem.
func (l *List) Errorf(pos Position, fix, format string, args ...any) {
	*l = append(*l, Problem{Pos: pos, Severity: Error, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// Warnf adds a warning.
func (l *List) Warnf(pos Position, fix, format string, args ...any) {
	*l = append(*l, Problem{Pos: pos, Severity: Warning, Message: fmt.Sprintf(format, args...), Fix: fix})
}

// HasErrors reports whether any problem is an error.
func (l List) HasErrors() bool {
	for _, p := range l {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns only the error-severity problems.
func (l List) Errors() List { return l.filter(Error) }

// Warnings returns only the warnings.
func (l List) Warnings() List { return l.filter(Warning) }

func (l List) filter(s Severity) List {
	var out List
	for _, p := range l {
		if p.Severity == s {
			out = append(out, p)
		}
	}
	return out
}

// Sort orders problems by file, line, column and message so output is
// stable whatever order the stages found them in.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.Pos.File != b.Pos.File {
			return a.Pos.File < b.Pos.File
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Column != b.Pos.Column {
			return a.Pos.Column < b.Pos.Column
		}
		return a.Message < b.Message
	})
}

// Error implements error by joining all problems, one per line.
func (l List) Error() string {
	lines := make([]string, len(l))
	for i, p := range l {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}
