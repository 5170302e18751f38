package emit

import (
	"fmt"
	"reflect"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// CallTestsFile is the generated test with each tool's call cases; it is
// left out when ir.Server.NoCallTests is set.
const CallTestsFile = "oa2mcp_calls_test.go"

const oa2mcptestPath = runtimePath + "/oa2mcptest"

// callTestsFile renders oa2mcp_calls_test.go: the call cases and the
// fake upstream's answers as data, and a test that runs them with the
// runtime's driver (generator/cases says what the cases are).
func callTestsFile(srv *ir.Server) (*jen.File, error) {
	f := newFile(srv, srv.Package)
	f.ImportName(oa2mcptestPath, "oa2mcptest")
	f.Comment("TestOA2MCPCallCases calls every tool over Streamable HTTP against a fake")
	f.Comment("upstream that serves the spec's operations: normal, boundary and invalid")
	f.Comment("arguments, callers without the right, upstream faults and paging. Rerun it")
	f.Comment("after every change of a description, schema or override.")
	f.Func().Id("TestOA2MCPCallCases").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(oa2mcptestPath, "Run").Call(jen.Id("t"), jen.Qual(oa2mcptestPath, "Suite").Values(jen.Dict{
			jen.Id("Def"):         jen.Id("Definition").Call(),
			jen.Id("Responses"):   jen.Id("oa2mcpResponses"),
			jen.Id("Credentials"): jen.Id("oa2mcpTestCredentials"),
			jen.Id("Cases"):       jen.Id("oa2mcpCallCases"),
		})),
	)
	f.Line()
	var rows []jen.Code
	for _, c := range srv.CallCases {
		fields, err := structFields(reflect.ValueOf(c))
		if err != nil {
			return nil, fmt.Errorf("call case %s %s: %w", c.Tool, c.Name, err)
		}
		rows = append(rows, jen.Custom(inline, fields...))
	}
	f.Comment("oa2mcpCallCases are the generated call cases, tool by tool.")
	f.Var().Id("oa2mcpCallCases").Op("=").Index().Qual(oa2mcptestPath, "Case").Custom(multi, rows...)
	f.Line()
	resp, err := literal(reflect.ValueOf(srv.UpstreamResponses))
	if err != nil {
		return nil, fmt.Errorf("upstream responses: %w", err)
	}
	f.Comment("oa2mcpResponses are the fake upstream's answers, synthesised from the")
	f.Comment("spec's response schemas, by operation.")
	f.Var().Id("oa2mcpResponses").Op("=").Add(resp)
	f.Line()
	creds, err := literal(reflect.ValueOf(cases.Credentials(srv)))
	if err != nil {
		return nil, err
	}
	f.Comment("oa2mcpTestCredentials answer Options.Getenv for the credential variables,")
	f.Comment("so calls carry credentials without touching the real environment.")
	f.Var().Id("oa2mcpTestCredentials").Op("=").Add(creds)
	return f, nil
}
