// Command oa2mcp generates a Go MCP server from an OpenAPI document.
// Run "oa2mcp help" for its commands.
package main

import (
	"os"

	"github.com/oa2mcp/oa2mcp/internal/cli"
)

func main() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
