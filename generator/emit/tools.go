package emit

import (
	"fmt"
	"reflect"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// toolsFile renders one file of tool definitions: one variable per tool,
// its doc comment first, its definition a runtime.Tool literal.
func toolsFile(srv *ir.Server, tools []ir.Tool) (*jen.File, error) {
	f := newFile(srv, srv.Package)
	for i := range tools {
		t := &tools[i]
		f.Comment(t.GoName + " is the " + t.Name + " tool.")
		f.Comment("")
		for _, line := range t.Doc {
			if line == "" {
				f.Comment("")
				continue
			}
			f.Comment(line)
		}
		lit, err := literal(reflect.ValueOf(&t.Tool))
		if err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		f.Var().Id(t.GoName).Op("=").Add(lit)
		f.Line()
	}
	return f, nil
}
