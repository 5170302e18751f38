// Package mapping holds the mapping rules: it turns a loaded OpenAPI document into the IR of an MCP
// server: one tool per operation by default, with names, descriptions,
// flat input schemas and call plans all decided here.
package mapping

import (
	"sort"
	"strconv"
	"strings"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/overrides"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
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
	// RuntimeDir, when set, points the generated go.mod's runtime
	// requirement at this folder with a replace directive.
	RuntimeDir string
	// ToolPrefix, when set, prefixes every tool name ("petstore" gives
	// "petstore_get_pet_by_id").
	ToolPrefix string
	// Overrides, when set, shape the tools; see package overrides.
	Overrides *overrides.File
	// NoCallTests leaves out the generated per-tool call cases.
	NoCallTests bool
	// Metrics adds the Prometheus /metrics endpoint (and its dependency).
	Metrics bool
	// Discover serves the operations no task tool uses through the three
	// discovery tools instead of one tool each (generate --discover).
	Discover bool
	// Bounds limit the tools/list of a default mapping; past them its
	// operations are served through discovery (generate --max-tools,
	// --max-tokens).
	Bounds Bounds
}

// Build maps doc onto an ir.Server. Problems that make a tool impossible
// are errors; lossy but workable mappings are warnings.
func Build(doc *load.Document, cfg Config) (*ir.Server, diag.List) {
	var problems diag.List
	ov := cfg.Overrides
	srv := serverInfo(doc, cfg)
	schemes := securitySchemes(doc, srv.EnvPrefix)
	applyUpstreamAuth(doc, ov, schemes, srv.EnvPrefix, &problems)
	for _, s := range schemes {
		srv.Security = append(srv.Security, s)
	}
	sort.Slice(srv.Security, func(i, j int) bool { return srv.Security[i].Name < srv.Security[j].Name })

	ops := selectOperations(doc.Operations, ov, &problems)
	infos := analyzeOps(doc, ops, schemes)
	used := map[*opInfo]bool{}
	if ov != nil {
		srv.Config = ov.Config
		tb := &taskBuilder{doc: doc, ov: ov, ops: indexOps(infos), used: used, prefix: toolPrefix(cfg), problems: &problems}
		srv.Tools = append(srv.Tools, tb.buildAll()...)
		tb.finishState(srv)
	}
	mapUnused(srv, doc, infos, used, cfg, &problems)
	if ov != nil {
		if t := disconnectTool(srv, srv.Tools, toolPrefix(cfg), ov.Pos("server.upstream_auth"), &problems); t != nil {
			srv.Tools = append(srv.Tools, *t)
		}
	}
	sort.Slice(srv.Tools, func(i, j int) bool { return srv.Tools[i].Name < srv.Tools[j].Name })
	assignGoNames(srv.Tools)
	srv.Resources = resources(ov, srv.Tools, &problems)
	recordResponses(doc, srv, infos)
	return srv, problems
}

// toolPrefix is the configured prefix, else the override file's: the
// command line and config file win over the override file, as for every
// setting both can give (see README.md, "CLI reference").
func toolPrefix(cfg Config) string {
	if cfg.ToolPrefix != "" || cfg.Overrides == nil {
		return cfg.ToolPrefix
	}
	return cfg.Overrides.Server.ToolPrefix
}

// keepUnused reports whether operations no task tool uses become
// one-to-one tools: always without overrides; with them, as the file
// says, defaulting to "drop" when it declares tools.
func keepUnused(ov *overrides.File) bool {
	switch {
	case ov == nil:
		return true
	case ov.Select.Unused != "":
		return ov.Select.Unused == "keep"
	}
	return len(ov.Tools) == 0
}

// invalidPathChar finds a character a URL path cannot hold outside a
// {parameter} (DigitalOcean's "/<upload_url>" stands for a URL the API
// hands out at run time); a query after "?" is allowed.
func invalidPathChar(path string) (rune, bool) {
	path, _, _ = strings.Cut(path, "?")
	depth := 0
	for _, c := range path {
		switch {
		case c == '{':
			depth++
		case c == '}':
			depth--
		case depth > 0:
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.ContainsRune("-._~!$&'()*+,;=:@/%", c):
		default:
			return c, true
		}
	}
	return 0, false
}

// skipUnmappable reports, with a warning, an operation no default tool or
// discoverable operation can serve: a path that is no URL template, or
// an answer that is a web page. Only an override file maps such a one.
func skipUnmappable(info *opInfo, problems *diag.List) bool {
	if c, bad := invalidPathChar(info.op.Path); bad {
		problems.Warnf(info.op.Pos, "map it in the override file with a path template the API answers at", "%s %s: skipped: its path is not a URL path template (%q is not allowed outside {parameters})", info.op.Method, info.op.RawPath, c)
		return true
	}
	if name, a, b, bad := contradictoryField(info); bad {
		problems.Warnf(info.op.Pos, "declare one type for it where the object and its allOf parts both declare it",
			"%s %s: skipped: its request body requires %q, which its schema declares both %s and %s, and no value is both", info.op.Method, info.op.RawPath, name, a, b)
		return true
	}
	if returnsWebPage(info.op) {
		problems.Warnf(info.op.Pos, "map it in the override file if a model really needs the page's text", "%s %s: skipped: it answers with a web page (text/html), which a model cannot use as data", info.op.Method, info.op.RawPath)
		return true
	}
	return false
}

// contradictoryField is a required property of the operation's request
// body that no value satisfies: declared of two types by the object and
// its allOf parts, whose declarations all apply. No call could succeed.
func contradictoryField(info *opInfo) (name, a, b string, bad bool) {
	rb := info.op.RequestBody
	if rb == nil || rb.Schema == nil {
		return "", "", "", false
	}
	m := info.in.w.merged(rb.Schema)
	for _, name := range sortedUnique(m.required) {
		if a, b, bad := info.in.w.doc.Contradiction(m.props[name]); bad {
			return name, a, b, true
		}
	}
	return "", "", "", false
}

// returnsWebPage reports an operation whose every success answer is an
// HTML page (an OAuth authorize screen, say): a browser flow, not data.
func returnsWebPage(op *load.Operation) bool {
	page := false
	for _, r := range op.Responses {
		if !strings.HasPrefix(r.Status, "2") || r.MediaType == "" {
			continue
		}
		if !strings.HasPrefix(r.MediaType, "text/html") {
			return false
		}
		page = true
	}
	return page
}

// defaultTools makes one tool per unused operation. Task tools keep their
// names; default names give way with a numeric suffix.
func defaultTools(infos []*opInfo, used map[*opInfo]bool, taken []ir.Tool, prefix string, built builtTools, problems *diag.List) []ir.Tool {
	var rest []*opInfo
	var ops []*load.Operation
	for _, info := range infos {
		if used[info] || skipUnmappable(info, problems) {
			continue
		}
		rest = append(rest, info)
		ops = append(ops, info.op)
	}
	wanted := make([]string, 0, len(taken)+len(ops))
	for _, t := range taken {
		wanted = append(wanted, t.Name)
	}
	wanted = append(wanted, toolNames(ops, prefix)...)
	names := uniqueNames(wanted, maxToolName)[len(taken):]
	built.buildAll(rest, names)
	tools := make([]ir.Tool, 0, len(rest))
	for i, info := range rest {
		tool, err := built.tool(info, names[i])
		if err != nil {
			problems.Errorf(info.op.Pos, "simplify the schema or exclude the operation", "%s %s: input schema cannot be encoded: %v", info.op.Method, info.op.RawPath, err)
			continue
		}
		tools = append(tools, tool)
	}
	return tools
}

// serverInfo fills the server-level fields from the spec and config.
func serverInfo(doc *load.Document, cfg Config) *ir.Server {
	var ovs overrides.Server
	if cfg.Overrides != nil {
		ovs = cfg.Overrides.Server
	}
	name := firstNonEmpty(cfg.Name, ovs.Name, ServerName(doc.Title))
	pkg := cfg.Package
	if pkg == "" {
		pkg = packageName(name)
	}
	srv := &ir.Server{Package: pkg, ImportPath: cfg.ImportPath, Source: cfg.Source, GoMod: cfg.GoMod,
		RuntimeDir: cfg.RuntimeDir, NoCallTests: cfg.NoCallTests, Metrics: cfg.Metrics}
	srv.Name, srv.Title, srv.Version, srv.EnvPrefix = name, doc.Title, doc.APIVersion, envName(name)
	srv.Extend = ovs.Extend
	if srv.Title == "" {
		srv.Title = humanize(SnakeCase(name))
	}
	if srv.Version == "" {
		srv.Version = "0.0.0"
	}
	if len(doc.Servers) > 0 {
		srv.DefaultBaseURL = doc.Servers[0]
	}
	srv.Instructions = instructions(doc)
	srv.Title = firstNonEmpty(ovs.Title, srv.Title)
	srv.Version = firstNonEmpty(ovs.Version, srv.Version)
	srv.Instructions = firstNonEmpty(strings.TrimSpace(ovs.Instructions), srv.Instructions)
	return srv
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func instructions(doc *load.Document) string {
	text := "Tools for " + doc.Title + "."
	if d := oa2mcpimpl.PlainText(doc.Description); d != "" {
		text += " " + oa2mcpimpl.Clip(sentence(d), 800)
	}
	return text
}

// toolNames derives one name per operation, shortened and made unique in
// operation order (path, then method).
func toolNames(ops []*load.Operation, prefix string) []string {
	wanted := make([]string, len(ops))
	for i, op := range ops {
		base := op.ID
		if n, ok := op.Extensions["name"].(string); ok && n != "" {
			base = n
		}
		if base == "" {
			base = methodPathName(op.Method, op.Path)
		}
		name := SnakeCase(base)
		if name == "" {
			name = methodPathName(op.Method, op.Path)
		}
		if prefix != "" {
			name = SnakeCase(prefix) + "_" + name
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
		case seg == "", low == "api", IsVersionSegment(low):
		case strings.HasPrefix(seg, "{"):
			parts = append(parts, "by", SnakeCase(seg))
		default:
			parts = append(parts, SnakeCase(seg))
		}
	}
	return strings.Join(nonEmpty(parts), "_")
}

// IsVersionSegment reports whether a path segment is an API version
// ("v1", "v2.1"), which names neither a resource nor an action.
func IsVersionSegment(s string) bool {
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

// opInfo is one operation analysed for the default mapping: its call plan
// and the input properties (with their schemas) it takes.
type opInfo struct {
	op       *load.Operation
	call     ir.Operation
	in       *inputBuilder
	defs     map[string]any
	required map[string]bool
}

// analyzeOps analyzes ops on every CPU (Kubernetes: 1,123 operations,
// 150 ms on one), each range of them with a text cache of its own.
func analyzeOps(doc *load.Document, ops []*load.Operation, schemes map[string]ir.SecurityScheme) []*opInfo {
	infos := make([]*opInfo, len(ops))
	workers.ForChunks(len(ops), func(lo, hi int) {
		text := textCache{}
		for i := lo; i < hi; i++ {
			infos[i] = analyzeOp(doc, ops[i], schemes, text)
		}
	})
	return infos
}

// analyzeOp maps an operation's parameters and body onto input properties.
func analyzeOp(doc *load.Document, op *load.Operation, schemes map[string]ir.SecurityScheme, text textCache) *opInfo {
	security, declared := op.Security, op.SecurityScopes
	if security == nil {
		security, declared = doc.Security, doc.SecurityScopes
	}
	security = supportedSecurity(security, schemes)
	in := newInputBuilder(doc, text)
	params := in.params(op, func(p *load.Parameter) bool { return skipParam(p, security, schemes) })
	body := in.body(op.RequestBody)
	return &opInfo{
		op: op, in: in, defs: in.w.finishDefs(), required: stringSet(in.required),
		call: ir.Operation{OperationID: op.ID, Method: op.Method, Path: op.Path, Params: params, Body: body, Security: security,
			SecurityScopes: perUserScopes(declared, security, schemes),
			ResponseMedia:  responseMedia(op)},
	}
}

// responseMedia is the media type of the operation's success response
// when the server returns it as MCP media content (an image, audio, a
// document, multipart): not JSON, not a sequence of JSON items.
func responseMedia(op *load.Operation) string {
	r := successResponse(op)
	if r == nil {
		return ""
	}
	base := oa2mcpimpl.MediaBase(r.MediaType)
	if base == "" || base == "*/*" || oa2mcpimpl.IsJSONMedia(base) || oa2mcpimpl.SequenceMedia(base) != runtime.SequenceNone {
		return ""
	}
	return base
}

// op returns a copy of the operation's call plan, for a tool to own.
func (info *opInfo) ownOp() *ir.Operation {
	c := info.call
	return &c
}

// defaultTool is the one-to-one tool of the operation. Encoding fails only
// on values JSON cannot hold, such as a YAML .nan in an enum.
// builtTools are the default tools built so far, by operation: a large
// API's default mapping builds every one to size the tool list, and
// discovery then serves the same tools instead of building them again.
type builtTools map[*opInfo]ir.Tool

// tool is info.defaultTool(name), built once per operation and name.
func (b builtTools) tool(info *opInfo, name string) (ir.Tool, error) {
	if t, ok := b[info]; ok && t.Name == name {
		return t, nil
	}
	t, err := info.defaultTool(name)
	if err == nil && b != nil {
		b[info] = t
	}
	return t, err
}

// buildAll builds the default tools of infos (named names) that b does
// not hold yet, on every CPU: each operation's builder and schemas are
// its own, and each worker memoises plain text in a cache of its own
// (a default mapping of a big API spent a sixth of its time here).
func (b builtTools) buildAll(infos []*opInfo, names []string) {
	if b == nil {
		return
	}
	tools := make([]ir.Tool, len(infos))
	ok := make([]bool, len(infos))
	workers.ForChunks(len(infos), func(lo, hi int) {
		text := textCache{}
		for i := lo; i < hi; i++ {
			info := infos[i]
			if t, done := b[info]; done && t.Name == names[i] {
				continue
			}
			shared := info.in.w.text
			info.in.w.text = text
			t, err := info.defaultTool(names[i])
			info.in.w.text = shared
			tools[i], ok[i] = t, err == nil
		}
	})
	for i, info := range infos {
		if ok[i] {
			b[info] = tools[i]
		}
	}
}

func (info *opInfo) defaultTool(name string) (ir.Tool, error) {
	op := info.op
	schema := info.in.schema()
	compressSchema(schema)
	schemaJSON, err := ir.JSON(schema)
	if err != nil {
		return ir.Tool{}, err
	}
	tool := ir.Tool{Doc: toolDoc(op), Pos: op.Pos}
	tool.Name = name
	tool.Title = toolTitle(op, name)
	tool.Description = toolDescription(op, info.in.descs, info.in.w)
	tool.InputSchema = schemaJSON
	setSensitive(&tool, schema, nil)
	tool.Op = info.ownOp()
	if d, ok := op.Extensions["description"].(string); ok && d != "" {
		tool.Description = d
	}
	setAnnotations(&tool, &info.call)
	return tool, nil
}

func toolTitle(op *load.Operation, name string) string {
	if s := oa2mcpimpl.PlainText(op.Summary); s != "" {
		return oa2mcpimpl.Clip(strings.TrimSuffix(s, "."), 80)
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
// every tool reaches an external system. A write that cancels, refunds,
// reverses or deletes (undoingOperation) is destructive too.
func setAnnotations(t *ir.Tool, op *runtime.Operation) {
	t.OpenWorld = true
	switch {
	case readOnlyMethod(op.Method):
		// QUERY (OpenAPI 3.2) is safe and idempotent by definition: a GET
		// with a body.
		t.ReadOnly, t.Idempotent = true, true
	case op.Method == "DELETE", op.Method == "PUT":
		t.Destructive, t.Idempotent = true, true
	}
	t.Destructive = t.Destructive || undoingOperation(op)
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
