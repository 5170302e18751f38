package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// CallTestsFile is the generated test with each tool's call cases; it is
// left out when ir.Server.NoCallTests is set.
const CallTestsFile = "oa2mcp_calls_test.go"

// callTestsFile renders oa2mcp_calls_test.go.
func callTestsFile(srv *ir.Server) *jen.File {
	f := newFile(srv, srv.Package)
	return f
}
