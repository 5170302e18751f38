// Package build turns a loaded OpenAPI document into the IR of an MCP
// server: one tool per operation by default, with names, descriptions,
// flat input schemas and call plans all decided here.
package build

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
)

// Config holds the settings that shape the server.
type Config struct {
	// Name is the server name; derived from the spec title when empty.
	Name string
	// Package is the Go package name; derived from Name when empty.
	Package string
	// ImportPath is the Go import path of the output package.
	ImportPath string
	// Source is the spec path relative to the output folder.
	Source string
	// GoMod, when set, is the module path of a go.mod to write.
	GoMod string
	// ToolPrefix, when set, prefixes every tool name ("petstore" gives
	// "petstore_get_pet_by_id").
	ToolPrefix string
}

// Build maps doc onto an ir.Server. Problems that make a tool impossible
// are errors; lossy but workable mappings are warnings.
func Build(doc *load.Document, cfg Config) (*ir.Server, diag.List) {
	var problems diag.List
	srv := serverInfo(doc, cfg)
	schemes := securitySchemes(doc, srv.EnvPrefix)
	for _, s := range schemes {
		srv.Security = append(srv.Security, s)
	}
	sort.Slice(srv.Security, func(i, j int) bool { return srv.Security[i].Name < srv.Security[j].Name })

	names := toolNames(doc.Operations, cfg.ToolPrefix)
	for i, op := range doc.Operations {
		tool, ok := buildTool(doc, op, names[i], schemes, &problems)
		if ok {
			srv.Tools = append(srv.Tools, tool)
		}
	}
	sort.Slice(srv.Tools, func(i, j int) bool { return srv.Tools[i].Name < srv.Tools[j].Name })
	assignGoNames(srv.Tools)
	return srv, problems
}

// serverInfo fills the server-level fields from the spec and config.
func serverInfo(doc *load.Document, cfg Config) *ir.Server {
	name := cfg.Name
	if name == "" {
		name = defaultServerName(doc.Title)
	}
	pkg := cfg.Package
	if pkg == "" {
		pkg = packageName(name)
	}
	srv := &ir.Server{
		Name: name, Title: doc.Title, Version: doc.APIVersion, Package: pkg,
		ImportPath: cfg.ImportPath, Source: cfg.Source, GoMod: cfg.GoMod,
		EnvPrefix: envName(name),
	}
	if srv.Title == "" {
		srv.Title = humanize(snakeCase(name))
	}
	if srv.Version == "" {
		srv.Version = "0.0.0"
	}
	if len(doc.Servers) > 0 {
		srv.DefaultBaseURL = doc.Servers[0]
	}
	srv.Instructions = instructions(doc)
	return srv
}

// defaultServerName derives a short name from the API title: its first
// three words in kebab case ("Swagger Petstore - OpenAPI 3.0" →
// "swagger-petstore-openapi").
func defaultServerName(title string) string {
	words := splitWords(title)
	if len(words) > 3 {
		words = words[:3]
	}
	for i, w := range words {
		words[i] = strings.ToLower(w)
	}
	if len(words) == 0 {
		return "api"
	}
	return strings.Join(words, "-")
}

func instructions(doc *load.Document) string {
	text := "Tools for " + doc.Title + "."
	if d := plainText(doc.Description); d != "" {
		text += " " + clip(sentence(d), 800)
	}
	return text
}

// toolNames derives one name per operation, shortened and made unique in
// operation order (path, then method).
func toolNames(ops []*load.Operation, prefix string) []string {
	wanted := make([]string, len(ops))
	for i, op := range ops {
		base := op.ID
		if base == "" {
			base = methodPathName(op.Method, op.Path)
		}
		name := snakeCase(base)
		if name == "" {
			name = methodPathName(op.Method, op.Path)
		}
		if prefix != "" {
			name = snakeCase(prefix) + "_" + name
		}
		wanted[i] = shorten(name, maxToolName)
	}
	return uniqueNames(wanted, maxToolName)
}

// methodPathName names an operation without an operationId from its
// method and path, dropping "api" and version segments:
// GET /api/v1/dept/{deptId} → get_dept_by_dept_id.
func methodPathName(method, path string) string {
	parts := []string{strings.ToLower(method)}
	for _, seg := range strings.Split(path, "/") {
		low := strings.ToLower(seg)
		switch {
		case seg == "", low == "api", isVersionSegment(low):
		case strings.HasPrefix(seg, "{"):
			parts = append(parts, "by", snakeCase(seg))
		default:
			parts = append(parts, snakeCase(seg))
		}
	}
	return strings.Join(nonEmpty(parts), "_")
}

func isVersionSegment(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, r := range s[1:] {
		if (r < '0' || r > '9') && r != '.' {
			return false
		}
	}
	return true
}

// buildTool builds one tool from one operation.
func buildTool(doc *load.Document, op *load.Operation, name string, schemes map[string]ir.SecurityScheme, problems *diag.List) (ir.Tool, bool) {
	security := op.Security
	if security == nil {
		security = doc.Security
	}
	security = supportedSecurity(security, schemes)
	in := newInputBuilder(doc)
	params := in.params(op, func(p *load.Parameter) bool { return skipParam(p, security, schemes) })
	body := in.body(op.RequestBody)
	schemaJSON, err := marshalSchema(in.schema())
	if err != nil {
		problems.Errorf(op.Pos, "simplify the schema or exclude the operation", "%s %s: input schema cannot be encoded: %v", op.Method, op.RawPath, err)
		return ir.Tool{}, false
	}
	tool := ir.Tool{
		Name:        name,
		Title:       toolTitle(op, name),
		Description: toolDescription(op, in.descs, in.w),
		InputSchema: schemaJSON,
		Call: ir.Call{
			OperationID: op.ID, Method: op.Method, Path: op.Path,
			Params: params, Body: body, Security: security,
		},
	}
	setAnnotations(&tool, op.Method)
	tool.Doc = toolDoc(op)
	return tool, true
}

func toolTitle(op *load.Operation, name string) string {
	if s := plainText(op.Summary); s != "" {
		return clip(strings.TrimSuffix(s, "."), 80)
	}
	return humanize(name)
}

// toolDoc is the Go doc comment of the tool's variable: method and path
// first, so a reader of the generated code finds the endpoint at once.
func toolDoc(op *load.Operation) []string {
	lines := []string{op.Method + " " + op.RawPath}
	if op.ID != "" {
		lines[0] += " (operationId " + op.ID + ")"
	}
	if op.Deprecated {
		lines = append(lines, "", "Deprecated: the upstream operation is deprecated.")
	}
	return lines
}

// setAnnotations derives MCP hints from HTTP semantics: GET and HEAD are
// read-only, DELETE is destructive, PUT and DELETE are idempotent, and
// every tool reaches an external system.
func setAnnotations(t *ir.Tool, method string) {
	t.OpenWorld = true
	switch method {
	case "GET", "HEAD", "OPTIONS":
		t.ReadOnly, t.Idempotent = true, true
	case "DELETE":
		t.Destructive, t.Idempotent = true, true
	case "PUT":
		t.Destructive, t.Idempotent = true, true
	}
}

// marshalSchema encodes a schema as indented JSON. encoding/json sorts
// map keys, which makes the output deterministic.
func marshalSchema(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(buf.String(), "\n"), nil
}

// assignGoNames gives each tool a readable, unique Go identifier.
func assignGoNames(tools []ir.Tool) {
	taken := map[string]bool{}
	for i := range tools {
		base := "tool" + goName(tools[i].Name)
		name := base
		for n := 2; taken[name]; n++ {
			name = base + strconv.Itoa(n)
		}
		taken[name] = true
		tools[i].GoName = name
	}
}
