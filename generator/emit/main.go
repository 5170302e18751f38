package emit

import (
	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// mainFile renders cmd/NAME/main.go, a thin wrapper over the package's
// Main so the server is a library first and a command second.
func mainFile(srv *ir.Server) *jen.File {
	f := newFile(srv, "main")
	f.ImportName(srv.ImportPath, srv.Package)
	f.PackageComment("Command " + srv.Name + " serves the " + srv.Title + " MCP server over stdio or\nStreamable HTTP. Run it with -h for its flags.")
	f.Func().Id("main").Params().Block(
		jen.Qual("os", "Exit").Call(jen.Qual(srv.ImportPath, "Main").Call(
			jen.Qual("os", "Args").Index(jen.Lit(1).Op(":")),
			jen.Qual("os", "Stdin"), jen.Qual("os", "Stdout"), jen.Qual("os", "Stderr"),
		)),
	)
	return f
}
