package emit

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// serverFile renders oa2mcp_server.go: the package documentation, the
// version guard, the public entry points and the server definition.
func serverFile(srv *ir.Server) (*jen.File, error) {
	f := newFile(srv, srv.Package)
	f.PackageComment(packageDoc(srv))
	versionGuard(f)
	entryPoints(f, srv)
	// The tools are variables of their own (oa2mcp_tools*.go): the
	// definition lists them by name, in place of its own Tools field.
	def := srv.ServerDef
	def.Tools = nil
	// Discoverable operations are variables too (discoveryLiteral).
	def.Discovery = nil
	fields, err := structFields(reflect.ValueOf(def))
	if err != nil {
		return nil, fmt.Errorf("server definition: %w", err)
	}
	var tools []jen.Code
	for _, t := range srv.Tools {
		tools = append(tools, jen.Id(t.GoName))
	}
	fields = append(fields, field("Tools", jen.Index().Op("*").Qual(runtimePath, "Tool").Custom(multi, tools...)))
	if srv.Discovery != nil {
		d, err := discoveryLiteral(srv.Discovery)
		if err != nil {
			return nil, err
		}
		fields = append(fields, field("Discovery", d))
	}
	f.Comment("definition describes the server and its tools; package")
	f.Comment("github.com/oa2mcp/oa2mcp/runtime serves it.")
	f.Var().Id("definition").Op("=").Qual(runtimePath, "ServerDef").Custom(multi, fields...)
	return f, nil
}

// versionGuard renders the compile-time check that the generated code
// and the runtime agree on the contract.
func versionGuard(f *jen.File) {
	v := jen.Lit(oa2mcpimpl.MaxVersion)
	f.Const().Defs(
		jen.Comment("The generated code and package runtime must agree on their contract."),
		jen.Comment("If the next line does not compile (\"overflows\"), the runtime is older"),
		jen.Comment("than this code: go get github.com/oa2mcp/oa2mcp/runtime@latest."),
		jen.Id("_").Op("=").Qual(implPath, "EnforceVersion").Call(jen.Qual(implPath, "MaxVersion").Op("-").Add(v)),
		jen.Comment("If this one does not compile, this code is older than the runtime"),
		jen.Comment("serves: regenerate it with a newer oa2mcp."),
		jen.Id("_").Op("=").Qual(implPath, "EnforceVersion").Call(v.Clone().Op("-").Qual(implPath, "MinVersion")),
	)
	f.Line()
}

// entryPoints renders Options, Server, New, Main, MainWith and
// Definition.
func entryPoints(f *jen.File, srv *ir.Server) {
	f.Comment("Options configures the server; see [runtime.Options].")
	f.Type().Id("Options").Op("=").Qual(runtimePath, "Options")
	f.Line()
	f.Comment("Server is a " + srv.Name + " MCP server; see [runtime.Server].")
	f.Type().Id("Server").Op("=").Qual(runtimePath, "Server")
	f.Line()
	f.Comment("New returns the " + srv.Name + " MCP server configured by opts.")
	f.Func().Id("New").Params(jen.Id("opts").Id("Options")).Params(jen.Op("*").Id("Server"), jen.Error()).Block(
		jen.Return(jen.Qual(runtimePath, "NewServer").Call(jen.Op("&").Id("definition"), options(srv, jen.Id("opts")))),
	)
	f.Line()
	f.Comment("Main runs the server as a command: it parses args, serves over stdio or")
	f.Comment("Streamable HTTP, and returns the process exit code.")
	f.Func().Id("Main").Params(
		jen.Id("args").Index().String(),
		jen.Id("stdin").Qual("io", "Reader"),
		jen.List(jen.Id("stdout"), jen.Id("stderr")).Qual("io", "Writer"),
	).Int().Block(
		jen.Return(jen.Id("MainWith").Call(jen.Id("Options").Values(), jen.Id("args"), jen.Id("stdin"), jen.Id("stdout"), jen.Id("stderr"))),
	)
	f.Line()
	f.Comment("MainWith is Main with options for what flags cannot set (hand-written")
	f.Comment("tools, middleware, a shared handle store); flags win over opts.")
	f.Func().Id("MainWith").Params(
		jen.Id("opts").Id("Options"),
		jen.Id("args").Index().String(),
		jen.Id("stdin").Qual("io", "Reader"),
		jen.List(jen.Id("stdout"), jen.Id("stderr")).Qual("io", "Writer"),
	).Int().Block(
		jen.Return(jen.Qual(runtimePath, "Main").Call(jen.Op("&").Id("definition"), options(srv, jen.Id("opts")), jen.Id("args"), jen.Id("stdin"), jen.Id("stdout"), jen.Id("stderr"))),
	)
	f.Line()
	f.Comment("Definition returns the server's definition, shared by every server of")
	f.Comment("this package: read it, do not change it.")
	f.Func().Id("Definition").Params().Op("*").Qual(runtimePath, "ServerDef").Block(
		jen.Return(jen.Op("&").Id("definition")),
	)
	f.Line()
	if srv.Redis || srv.Metrics || srv.Extend != "" {
		withFeatures(f, srv)
	}
}

// options is the expression passing opts through withFeatures when the
// server was generated with optional features.
func options(srv *ir.Server, opts *jen.Statement) jen.Code {
	if srv.Redis || srv.Metrics || srv.Extend != "" {
		return jen.Id("withFeatures").Call(opts)
	}
	return opts
}

// withFeatures renders the function that wires the optional features the
// server was generated with into every Options.
func withFeatures(f *jen.File, srv *ir.Server) {
	var body []jen.Code
	if srv.Extend != "" {
		body = append(body,
			jen.Comment(srv.Extend+" is written by hand in this package: hand-written tools,"),
			jen.Comment("middleware, shared stores (server.extend in the override file)."),
			jen.Id("opts").Op("=").Id(srv.Extend).Call(jen.Id("opts")))
	}
	if srv.Redis {
		body = append(body, jen.If(jen.Id("opts").Dot("OpenHandleStore").Op("==").Nil()).Block(
			jen.Id("opts").Dot("OpenHandleStore").Op("=").Qual(runtimePath+"/redisstore", "Open")))
	}
	if srv.Metrics {
		body = append(body, jen.If(jen.Id("opts").Dot("Metrics").Op("==").Nil()).Block(
			jen.Id("opts").Dot("Metrics").Op("=").Qual(runtimePath+"/prommetrics", "New").Call(jen.Op("&").Id("definition"))))
	}
	body = append(body, jen.Return(jen.Id("opts")))
	f.Comment("withFeatures adds what this server was generated with to opts.")
	f.Func().Id("withFeatures").Params(jen.Id("opts").Id("Options")).Id("Options").Block(body...)
	f.Line()
}

// multi renders composite literals one field per line.
var multi = jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}

func field(name string, value jen.Code) jen.Code {
	return jen.Id(name).Op(":").Add(value)
}

// packageDoc is the generated package's documentation: a short manual.
func packageDoc(srv *ir.Server) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Package %s is an MCP server for %s, generated by oa2mcp.\n\n", srv.Package, srv.Title)
	fmt.Fprintf(&b, "It exposes %d tools. Run it with cmd/%s, or embed it: New returns a\n", len(srv.Tools), srv.Name)
	b.WriteString("server whose MCPServer and HTTPHandler methods plug into your own program.\n\n")
	if d := discoveryDoc(srv); d != nil {
		fmt.Fprintf(&b, "Discovery mode: %d more operations are reached through\n%s, %s and %s.\n\n", d.Operations, d.Search, d.Describe, d.Call)
	}
	b.WriteString("Environment:\n\n")
	fmt.Fprintf(&b, "\t%s_BASE_URL\tupstream base URL (default %q)\n", srv.EnvPrefix, srv.DefaultBaseURL)
	for _, s := range srv.Security {
		if s.UpstreamAuth != nil {
			continue
		}
		fmt.Fprintf(&b, "\t%s\t%s credential for scheme %q\n", s.EnvVar, s.Kind, s.Name)
		if s.PasswordEnv != "" {
			fmt.Fprintf(&b, "\t%s\tpassword for scheme %q\n", s.PasswordEnv, s.Name)
		}
	}
	for _, c := range upstreamAuthDocs(srv) {
		fmt.Fprintf(&b, "\t%s\t%s\n", c.Env, c.Short)
	}
	return strings.TrimRight(b.String(), "\n")
}
