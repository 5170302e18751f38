package emit

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// Discovery mode renders its operations like tools, one variable each in
// oa2mcp_operations*.go (big APIs stay reviewable and compile in
// parallel), and its search index as one string constant in
// oa2mcp_index.go, which the server decodes on the first search.

// IndexFile holds the discovery search index.
const IndexFile = "oa2mcp_index.go"

// discoveryJobs are the files of the discoverable operations and the
// index; none without discovery.
func discoveryJobs(srv *ir.Server) []renderJob {
	d := srv.Discovery
	if d == nil {
		return nil
	}
	names := operationGoNames(d.Operations)
	var jobs []renderJob
	for start, i := 0, 0; start < len(d.Operations); start, i = start+toolsPerFile, i+1 {
		end := min(start+toolsPerFile, len(d.Operations))
		name := "oa2mcp_operations.go"
		if i > 0 {
			name = fmt.Sprintf("oa2mcp_operations_%d.go", i+1)
		}
		jobs = append(jobs, renderJob{name: name, data: func() ([]byte, error) {
			return operationsFile(srv, d.Operations[start:end], names[start:end])
		}})
	}
	return append(jobs, renderJob{name: IndexFile, build: func() (*jen.File, error) {
		f := newFile(srv, srv.Package)
		f.Comment("discoveryIndex ranks the discoverable operations for search_operations")
		f.Comment("(see oa2mcpimpl.EncodeSearchIndex for its format).")
		f.Const().Id("discoveryIndex").Op("=").Add(stringLit(d.Index))
		return f, nil
	}})
}

// operationsFile renders one file of discoverable operations.
func operationsFile(srv *ir.Server, ops []*runtime.Discoverable, names []string) ([]byte, error) {
	decls := make([]varDecl, len(ops))
	for i, op := range ops {
		t := op.Tool
		line := t.Op.Method + " " + t.Op.Path
		if t.Op.OperationID != "" {
			line += " (operationId " + t.Op.OperationID + ")"
		}
		decls[i] = varDecl{what: "operation " + t.Name, doc: []string{names[i] + " is the " + t.Name + " operation.", "", line},
			name: names[i], value: reflect.ValueOf(op)}
	}
	return varsFile(srv, decls)
}

// discoveryLiteral renders the server definition's Discovery: its
// operations by variable name and its index by constant name.
func discoveryLiteral(d *runtime.Discovery) (jen.Code, error) {
	c := *d
	c.Operations, c.Index = nil, ""
	fields, err := structFields(reflect.ValueOf(c))
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	var ops []jen.Code
	for _, n := range operationGoNames(d.Operations) {
		ops = append(ops, jen.Id(n))
	}
	fields = append(fields,
		field("Operations", jen.Index().Op("*").Qual(runtimePath, "Discoverable").Custom(multi, ops...)),
		field("Index", jen.Id("discoveryIndex")))
	return jen.Op("&").Qual(runtimePath, "Discovery").Custom(multi, fields...), nil
}

// operationGoNames gives each operation a unique Go identifier:
// list_core_v1_pod becomes opListCoreV1Pod. The "op" prefix keeps them
// apart from the tools' ("tool...") and the package's other names.
func operationGoNames(ops []*runtime.Discoverable) []string {
	taken := map[string]bool{}
	out := make([]string, len(ops))
	for i, op := range ops {
		base := "op" + camel(op.Tool.Name)
		name := base
		for n := 2; taken[name]; n++ {
			name = base + strconv.Itoa(n)
		}
		taken[name] = true
		out[i] = name
	}
	return out
}

// camel joins the words of a tool name with capitals.
func camel(name string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// docDiscovery is what the README says of discovery mode.
type docDiscovery struct {
	Operations             int
	Search, Describe, Call string
	// Large is set when discovery serves a default mapping too large to
	// list.
	Large *ir.LargeAPI
}

func discoveryDoc(srv *ir.Server) *docDiscovery {
	d := srv.Discovery
	if d == nil {
		return nil
	}
	return &docDiscovery{Operations: len(d.Operations), Search: d.Prefix + oa2mcpimpl.SearchToolName,
		Describe: d.Prefix + oa2mcpimpl.DescribeToolName, Call: d.Prefix + oa2mcpimpl.CallToolName, Large: srv.Large}
}
