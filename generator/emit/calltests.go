package emit

import (
	"fmt"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// CallTestsFile is the generated test that runs each tool's call cases;
// it and CallCasesFile are left out when ir.Server.NoCallTests is set.
const CallTestsFile = "oa2mcp_calls_test.go"

// CallCasesFile holds the call cases as data (oa2mcptest's case file):
// rendered as Go literals they were half the Go of a big API, and most
// of its generation time went into formatting them.
const CallCasesFile = oa2mcptest.CaseFile

const oa2mcptestPath = runtimePath + "/oa2mcptest"

// callTestsFile renders oa2mcp_calls_test.go: one test that hands the
// case file to the runtime's driver (generator/cases says what the cases
// are).
func callTestsFile(srv *ir.Server) *jen.File {
	f := newFile(srv, srv.Package)
	f.ImportName(oa2mcptestPath, "oa2mcptest")
	for _, line := range []string{
		"TestOA2MCPCallCases calls every tool over Streamable HTTP against a fake",
		"upstream that serves the spec's operations: normal, boundary and invalid",
		"arguments, callers without the right, upstream faults and paging. The",
		"cases, the upstream's answers and the test credentials are data, one",
		"JSON object per case, in " + CallCasesFile + ". Rerun it after",
		"every change of a description, schema or override.",
	} {
		f.Comment(line)
	}
	f.Func().Id("TestOA2MCPCallCases").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(oa2mcptestPath, "RunFile").Call(jen.Id("t"), jen.Id("Definition").Call(), jen.Lit(CallCasesFile)),
	)
	return f
}

// callCases is the case file: the cases, the fake upstream's answers,
// synthesised from the spec's response schemas by operation, and the
// credentials that answer Options.Getenv, so that calls carry
// credentials without touching the real environment.
func callCases(srv *ir.Server) ([]byte, error) {
	data, err := oa2mcptest.EncodeCases(oa2mcptest.Suite{Responses: srv.UpstreamResponses, Credentials: cases.Credentials(srv), Cases: srv.CallCases})
	if err != nil {
		return nil, fmt.Errorf("call cases: %w", err)
	}
	return data, nil
}
