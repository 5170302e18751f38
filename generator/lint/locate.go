package lint

import (
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// Sources are the inputs a server was built from, for the positions of
// findings.
type Sources struct {
	// Doc is the loaded spec.
	Doc *load.Document
	// Overrides is the override file the tools were shaped by; nil when
	// there is none (or its positions mean nothing, as for x-oa2mcp-*
	// extensions re-encoded from the spec).
	Overrides *overrides.File
}

// Locate sets the position of every finding of rep, so a finding reads
// like any other problem, "file:line:col: ...": the override file's entry
// of the tool (or its input's entry, or the key where one would go), else
// the spec operation (or parameter) the tool was mapped from, else the
// override file's server or tools key, else the spec file.
func Locate(rep *Report, srv *ir.Server, src Sources) {
	l := newLocator(srv, src)
	for i := range rep.Findings {
		f := &rep.Findings[i]
		f.setPos(l.position(f))
	}
}

func (f *Finding) setPos(p diag.Position) {
	f.File, f.Line, f.Column = p.File, p.Line, p.Column
}

// Pos is the finding's position.
func (f *Finding) Pos() diag.Position {
	return diag.Position{File: f.File, Line: f.Line, Column: f.Column}
}

// locator finds where tools come from.
type locator struct {
	src   Sources
	tools map[string]*ir.Tool
	ops   map[string]*load.Operation
	// entries maps tool names, as the server lists them, to the index of
	// their override file entry.
	entries map[string]int
}

func newLocator(srv *ir.Server, src Sources) *locator {
	l := &locator{src: src, tools: map[string]*ir.Tool{}, ops: map[string]*load.Operation{}, entries: map[string]int{}}
	for i := range srv.Tools {
		l.tools[srv.Tools[i].Name] = &srv.Tools[i]
	}
	if src.Doc != nil {
		for _, op := range src.Doc.Operations {
			l.ops[op.Method+" "+op.Path] = op
		}
	}
	if src.Overrides != nil {
		for name := range l.tools {
			if i, ok := entryOf(src.Overrides, name); ok {
				l.entries[name] = i
			}
		}
	}
	return l
}

// entryOf finds the override entry of a listed tool name: the entry of
// that name, else the longest entry name the listed name ends in after a
// prefix ("petstore_get_pet" is entry "get_pet").
func entryOf(ov *overrides.File, listed string) (int, bool) {
	best, bestLen := -1, 0
	for i, t := range ov.Tools {
		switch {
		case t == nil:
		case t.Name == listed:
			return i, true
		case strings.HasSuffix(listed, "_"+t.Name) && len(t.Name) > bestLen:
			best, bestLen = i, len(t.Name)
		}
	}
	return best, best >= 0
}

// position is where a finding points.
func (l *locator) position(f *Finding) diag.Position {
	if f.Tool == "" {
		return l.serverPos(f.Rule)
	}
	if i, ok := l.entries[f.Tool]; ok {
		path := "tools[" + strconv.Itoa(i) + "]"
		if f.Param != "" {
			return l.src.Overrides.Pos(path + ".input." + f.Param)
		}
		return l.src.Overrides.Pos(path + ".name")
	}
	if t := l.tools[f.Tool]; t != nil && t.Op != nil {
		if op := l.ops[t.Op.Method+" "+t.Op.Path]; op != nil {
			return paramPos(op, t.Op, f.Param)
		}
	}
	return l.fileOnly()
}

// serverPos places a server-wide finding: the override file's key that
// fixes it, else the spec.
func (l *locator) serverPos(rule string) diag.Position {
	if ov := l.src.Overrides; ov != nil {
		if rule == "name-namespace" {
			return ov.Pos("server.tool_prefix")
		}
		return ov.Pos("tools")
	}
	return l.fileOnly()
}

func (l *locator) fileOnly() diag.Position {
	if l.src.Doc == nil {
		return diag.Position{}
	}
	return diag.Position{File: l.src.Doc.File}
}

// paramPos is the position of the spec parameter an input maps to, or of
// the request body for a body input, else of the operation.
func paramPos(op *load.Operation, call *ir.Operation, arg string) diag.Position {
	if arg == "" {
		return op.Pos
	}
	for _, p := range call.Params {
		if p.Arg != arg {
			continue
		}
		for _, sp := range op.Parameters {
			if sp.Name == p.Name && sp.In == p.In && sp.Pos.Line > 0 {
				return sp.Pos
			}
		}
	}
	if b := call.Body; b != nil && op.RequestBody != nil && op.RequestBody.Pos.Line > 0 {
		if b.Arg == arg {
			return op.RequestBody.Pos
		}
		for _, bf := range b.Fields {
			if bf.Arg == arg {
				return op.RequestBody.Pos
			}
		}
	}
	return op.Pos
}
