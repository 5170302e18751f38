package emit

import (
	"fmt"
	"reflect"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/cases"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// CallTestsFile is the generated test with each tool's call cases; it is
// left out when ir.Server.NoCallTests is set.
const CallTestsFile = "oa2mcp_calls_test.go"

const oa2mcptestPath = runtimePath + "/oa2mcptest"

// callTestsFile renders oa2mcp_calls_test.go: the call cases of the
// first tools and the fake upstream's answers as data, and a test that
// runs them with the runtime's driver (generator/cases says what the
// cases are). chunks are the cases split as the tools files split the
// tools; the cases of the second chunk on go into callChunkFile.
func callTestsFile(srv *ir.Server, chunks [][]oa2mcptest.Case) (*jen.File, error) {
	f := newFile(srv, srv.Package)
	f.ImportName(oa2mcptestPath, "oa2mcptest")
	f.Comment("TestOA2MCPCallCases calls every tool over Streamable HTTP against a fake")
	f.Comment("upstream that serves the spec's operations: normal, boundary and invalid")
	f.Comment("arguments, callers without the right, upstream faults and paging. Rerun it")
	f.Comment("after every change of a description, schema or override.")
	var all jen.Code = jen.Id(callCasesVar(0))
	if len(chunks) > 1 {
		vars := make([]jen.Code, len(chunks))
		for i := range chunks {
			vars[i] = jen.Id(callCasesVar(i))
		}
		all = jen.Qual("slices", "Concat").Call(vars...)
	}
	f.Func().Id("TestOA2MCPCallCases").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.Qual(oa2mcptestPath, "Run").Call(jen.Id("t"), jen.Qual(oa2mcptestPath, "Suite").Values(jen.Dict{
			jen.Id("Def"):         jen.Id("Definition").Call(),
			jen.Id("Responses"):   jen.Id("oa2mcpResponses"),
			jen.Id("Credentials"): jen.Id("oa2mcpTestCredentials"),
			jen.Id("Cases"):       all,
		})),
	)
	f.Line()
	if err := addCallCases(f, chunks[0], 0); err != nil {
		return nil, err
	}
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

// callChunkFile renders the call cases of chunk i (from 1) into their own
// file, named as the tools files are: a big API's cases in one file made
// the largest file to render (3.9 MB for Kubernetes) and held its whole
// syntax tree at once.
func callChunkFile(srv *ir.Server, chunk []oa2mcptest.Case, i int) (*jen.File, error) {
	f := newFile(srv, srv.Package)
	f.ImportName(oa2mcptestPath, "oa2mcptest")
	if err := addCallCases(f, chunk, i); err != nil {
		return nil, err
	}
	return f, nil
}

// callChunkName is the file of chunk i (from 0).
func callChunkName(i int) string {
	if i == 0 {
		return CallTestsFile
	}
	return fmt.Sprintf("oa2mcp_calls_%d_test.go", i+1)
}

func callCasesVar(i int) string {
	if i == 0 {
		return "oa2mcpCallCases"
	}
	return fmt.Sprintf("oa2mcpCallCases%d", i+1)
}

// addCallCases declares chunk i's cases, one field a line: rows of
// thousands of characters were hard to review and to diff.
func addCallCases(f *jen.File, chunk []oa2mcptest.Case, i int) error {
	rows := make([]jen.Code, 0, len(chunk))
	for _, c := range chunk {
		fields, err := structFields(reflect.ValueOf(c))
		if err != nil {
			return fmt.Errorf("call case %s %s: %w", c.Tool, c.Name, err)
		}
		rows = append(rows, jen.Custom(multi, fields...))
	}
	f.Commentf("%s are the generated call cases, tool by tool, one field a line.", callCasesVar(i))
	f.Var().Id(callCasesVar(i)).Op("=").Index().Qual(oa2mcptestPath, "Case").Custom(multi, rows...)
	return nil
}

// chunkCases splits the cases, which come tool by tool, into runs of at
// most toolsPerFile tools; there is always one chunk.
func chunkCases(all []oa2mcptest.Case) [][]oa2mcptest.Case {
	var out [][]oa2mcptest.Case
	start, tools := 0, 0
	for i, c := range all {
		if i > 0 && c.Tool != all[i-1].Tool {
			tools++
			if tools == toolsPerFile {
				out = append(out, all[start:i])
				start, tools = i, 0
			}
		}
	}
	return append(out, all[start:])
}
