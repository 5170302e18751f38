// Package scaffold drafts an override file for an existing API (oa2mcp
// init), so people curate task tools instead of starting from a blank
// page.
//
// It groups operations by meaning: by tag and by the resource each path
// acts on, with reads and writes apart, so a read-only tool never needs a
// confirmation dialog. Read-only tools are named for what they find or
// get (find_pets, get_order), tools that change things manage_* or by
// their action (capture_charge). Every tool gets one description and
// every action its own; the server gets a name and a tool prefix from the
// spec title. Each tool lists its inputs as comments, taken from the
// server the draft generates (generator/mapping), so the author sees what
// the model will fill without generating first. Past a budget of tools and
// tools/list size (the lint warning thresholds) the remaining candidates
// are written commented out, so the draft as written lints clean of
// errors and the author uncomments what users need.
package scaffold

import (
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/overrides"
)

// draftFile names the draft in problems found while building it.
const draftFile = "draft.yaml"

// Options tune a draft. Zero fields take their defaults.
type Options struct {
	// MaxTools is how many tools the draft enables; the rest are written
	// commented out. Default: lint's tool-count warning threshold.
	MaxTools int
	// MaxListTokens bounds the tools/list estimate (bytes/4) of the
	// enabled tools. Default: lint's list-tokens warning threshold.
	MaxListTokens int
	// Spec is the spec path as the user gave it, for the commands the
	// draft's header suggests.
	Spec string
}

func (o Options) withDefaults() Options {
	if o.MaxTools <= 0 {
		o.MaxTools = lint.Defaults.MaxTools
	}
	if o.MaxListTokens <= 0 {
		o.MaxListTokens = lint.Defaults.MaxListTokens
	}
	if o.Spec == "" {
		o.Spec = "SPEC"
	}
	return o
}

// Result is a draft and what it holds.
type Result struct {
	// Text is the override file.
	Text []byte
	// Operations is the number of operations in the spec.
	Operations int
	// Tools are the enabled tools; Candidates the ones written commented
	// out.
	Tools, Candidates int
	// Server is the server the draft generates; nil when it does not.
	Server *ir.Server
	// Problems are those of building the draft: none when it generates.
	Problems diag.List
}

// Draft returns the text of an override file for doc, with the default
// options.
func Draft(doc *load.Document) []byte {
	return Build(doc, Options{}).Text
}

// Build drafts an override file for doc and builds the server it
// generates, so the draft's inputs can be listed and its size bounded.
func Build(doc *load.Document, opts Options) *Result {
	opts = opts.withDefaults()
	d := newDraft(doc, opts)
	d.buildCandidates()
	d.choose(0)
	text := d.render()
	srv, problems := generates(doc, text)
	if srv != nil && srv.Discovery != nil {
		// The long tail goes to discovery, whose three tools are listed
		// too: choose again within what they leave of the size budget,
		// unless they would take half of it.
		reserve := lint.ListTokens(srv)*4 - ir.ListBytes(srv.Tools)
		if reserve*2 <= opts.MaxListTokens*4 {
			d.choose(reserve)
		} else {
			d.noDiscovery = true
		}
		text = d.render()
		srv, problems = generates(doc, text)
	}
	res := &Result{Text: text, Operations: len(doc.Operations), Server: srv, Problems: problems}
	for _, c := range d.cands {
		if c.active {
			res.Tools++
		} else if c.broken == "" {
			res.Candidates++
		}
	}
	return res
}

// generates builds the server a draft text describes.
func generates(doc *load.Document, text []byte) (*ir.Server, diag.List) {
	ov, problems := overrides.Decode(draftFile, text)
	if problems.HasErrors() {
		return nil, problems
	}
	srv, more := mapping.Build(doc, mapping.Config{Overrides: ov})
	problems = append(problems, more...)
	if problems.HasErrors() {
		return nil, problems
	}
	return srv, problems
}
