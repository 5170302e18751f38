package emit

import (
	"reflect"

	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// toolsFile renders one file of tool definitions: one variable per tool,
// its doc comment first, its definition a runtime.Tool literal.
func toolsFile(srv *ir.Server, tools []ir.Tool) ([]byte, error) {
	decls := make([]varDecl, len(tools))
	for i := range tools {
		t := &tools[i]
		doc := append([]string{t.GoName + " is the " + t.Name + " tool.", ""}, t.Doc...)
		decls[i] = varDecl{what: "tool " + t.Name, doc: doc, name: t.GoName, value: reflect.ValueOf(&t.Tool)}
	}
	return varsFile(srv, decls)
}
