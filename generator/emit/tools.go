package emit

import (
	"strings"

	"github.com/dave/jennifer/jen"
	"github.com/oa2mcp/oa2mcp/generator/ir"
)

// toolsFile renders one file of tool definitions.
func toolsFile(srv *ir.Server, tools []ir.Tool) *jen.File {
	f := newFile(srv, srv.Package)
	for _, t := range tools {
		f.Comment(t.GoName + " is the " + t.Name + " tool.")
		f.Comment("")
		for _, line := range t.Doc {
			if line == "" {
				f.Comment("")
				continue
			}
			f.Comment(line)
		}
		f.Var().Id(t.GoName).Op("=").Op("&").Id("toolSpec").Custom(multi, toolFields(t)...)
		f.Line()
	}
	return f
}

func toolFields(t ir.Tool) []jen.Code {
	fields := []jen.Code{
		field("Name", jen.Lit(t.Name)),
		field("Title", jen.Lit(t.Title)),
		field("Description", jen.Lit(t.Description)),
		field("InputSchema", rawString(t.InputSchema)),
	}
	for _, hint := range []struct {
		name string
		on   bool
	}{{"ReadOnly", t.ReadOnly}, {"Destructive", t.Destructive}, {"Idempotent", t.Idempotent}, {"OpenWorld", t.OpenWorld}} {
		if hint.on {
			fields = append(fields, field(hint.name, jen.True()))
		}
	}
	return append(fields, field("Op", jen.Op("&").Id("operation").Custom(multi, callFields(t.Call)...)))
}

func callFields(c ir.Call) []jen.Code {
	fields := []jen.Code{
		field("Method", jen.Lit(c.Method)),
		field("Path", jen.Lit(c.Path)),
	}
	if len(c.Params) > 0 {
		var params []jen.Code
		for _, p := range c.Params {
			params = append(params, paramLiteral(p))
		}
		fields = append(fields, field("Params", jen.Index().Id("param").Custom(multi, params...)))
	}
	if c.Body != nil {
		fields = append(fields, field("Body", jen.Op("&").Id("body").Custom(multi, bodyFields(c.Body)...)))
	}
	if len(c.Security) > 0 {
		var alts []jen.Code
		for _, alt := range c.Security {
			var names []jen.Code
			for _, n := range alt {
				names = append(names, jen.Lit(n))
			}
			alts = append(alts, jen.Values(names...))
		}
		fields = append(fields, field("Security", jen.Index().Index().String().Values(alts...)))
	}
	return fields
}

var locationConst = map[string]string{"path": "inPath", "query": "inQuery", "header": "inHeader", "cookie": "inCookie"}

func paramLiteral(p ir.Param) jen.Code {
	vals := []jen.Code{
		field("Name", jen.Lit(p.Name)),
		field("Arg", jen.Lit(p.Arg)),
		field("In", jen.Id(locationConst[p.In])),
		field("Style", jen.Lit(p.Style)),
	}
	if p.Explode {
		vals = append(vals, field("Explode", jen.True()))
	}
	if p.AllowReserved {
		vals = append(vals, field("AllowReserved", jen.True()))
	}
	if p.Required {
		vals = append(vals, field("Required", jen.True()))
	}
	return jen.Values(vals...)
}

func bodyFields(b *ir.Body) []jen.Code {
	fields := []jen.Code{field("MediaType", jen.Lit(b.MediaType))}
	if b.Required {
		fields = append(fields, field("Required", jen.True()))
	}
	if b.Arg != "" {
		fields = append(fields, field("Arg", jen.Lit(b.Arg)))
	}
	if len(b.Fields) > 0 {
		var fs []jen.Code
		for _, bf := range b.Fields {
			fs = append(fs, jen.Values(field("Name", jen.Lit(bf.Name)), field("Arg", jen.Lit(bf.Arg))))
		}
		fields = append(fields, field("Fields", jen.Index().Id("bodyField").Custom(multi, fs...)))
	}
	return fields
}

// rawString renders s as a raw string literal, which keeps JSON schemas
// readable in the generated code, unless s holds a backquote or a
// carriage return, which a raw literal cannot carry.
func rawString(s string) jen.Code {
	if strings.ContainsAny(s, "`\r") {
		return jen.Lit(s)
	}
	return jen.Op("`" + s + "`")
}
