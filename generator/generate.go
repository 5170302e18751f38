// Package generator turns a loaded OpenAPI document into the files of a Go
// MCP server. The pipeline is load (generator/load, the only user of
// kin-openapi) → mapping (generator/mapping) → IR (generator/ir), with
// call cases and the proof (generator/cases) → emit (generator/emit) →
// write (generator/write); this package joins the pure middle part.
package generator

import (
	"context"

	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/emit"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
)

// Config is the generation configuration; see mapping.Config.
type Config = mapping.Config

// Result is what one generation produced.
type Result struct {
	// Files maps slash-separated paths, relative to the output folder, to
	// their contents.
	Files map[string][]byte
	// Server is the IR the files were rendered from.
	Server *ir.Server
}

// Generate builds the server model from doc and renders it. It reads no
// files and keeps no state, so concurrent calls are safe and the same
// input always gives the same bytes. On errors it returns a nil Result
// with the problems; warnings may accompany a good result.
func Generate(doc *load.Document, cfg Config) (*Result, diag.List) {
	srv, problems := Draft(doc, cfg)
	if problems.HasErrors() {
		return nil, problems
	}
	return ProveAndRender(doc, srv, problems)
}

// Model builds the server model from doc, with every tool's call cases,
// and proves each tool callable: Draft, then Prove.
func Model(doc *load.Document, cfg Config) (*ir.Server, diag.List) {
	srv, problems := Draft(doc, cfg)
	if problems.HasErrors() {
		return nil, problems
	}
	if problems = append(problems, Prove(srv)...); problems.HasErrors() {
		return nil, problems
	}
	return srv, problems
}

// Draft builds the server model from doc with every tool's call cases,
// not yet proven: the first half of Generate. The model is not changed
// afterwards, so it may be read (proven, linted, rendered) concurrently.
func Draft(doc *load.Document, cfg Config) (*ir.Server, diag.List) {
	srv, problems := mapping.Build(doc, cfg)
	if problems.HasErrors() {
		return nil, problems
	}
	if problems = append(problems, cases.Build(srv)...); problems.HasErrors() {
		return nil, problems
	}
	return srv, problems
}

// Prove runs the success cases of a drafted model through the runtime:
// every tool must be callable as generated before any file is written.
func Prove(srv *ir.Server) diag.List {
	return cases.Prove(context.Background(), srv)
}

// ProveAndRender proves a drafted model while it renders it (on a big
// API each takes a fifth of the run); problems are Draft's. When the
// proof fails the rendered files are dropped and only problems return.
func ProveAndRender(doc *load.Document, srv *ir.Server, problems diag.List) (*Result, diag.List) {
	proved := make(chan diag.List, 1)
	go func() { proved <- Prove(srv) }()
	res, rendered := Render(doc, srv, nil)
	if problems = append(problems, <-proved...); problems.HasErrors() {
		return nil, problems
	}
	return res, append(problems, rendered...)
}

// Render renders a model that Model built without errors; problems are
// Model's, passed on into the result's.
func Render(doc *load.Document, srv *ir.Server, problems diag.List) (*Result, diag.List) {
	files, err := emit.Emit(srv)
	if err != nil {
		problems.Errorf(diag.Position{File: doc.File}, "report this as an oa2mcp bug", "rendering Go code failed: %v", err)
		return nil, problems
	}
	return &Result{Files: files, Server: srv}, problems
}

// RestProblems maps what could be read of an override file that has
// errors (cfg.Overrides, as overrides.Decode returns it), so that one run
// reports the problems of the rest of the file too: a typo in a pick
// path beside a value of the wrong type. Only errors are returned;
// nothing may be generated from such a file.
func RestProblems(doc *load.Document, cfg Config) diag.List {
	if doc == nil || cfg.Overrides == nil {
		return nil
	}
	_, more := mapping.Build(doc, cfg)
	return more.Errors()
}
