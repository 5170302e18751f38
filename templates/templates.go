// Package templates embeds the text templates of the non-Go files oa2mcp
// generates next to a server: README.md and .mcp.json. Go output is
// never templated; generator/emit renders it with jennifer and renders
// these with text/template.
package templates

import "embed"

// FS holds the *.tmpl files of this folder.
//
//go:embed *.tmpl
var FS embed.FS
