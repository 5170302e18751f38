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
	if t.Call.Method != "" {
		fields = append(fields, field("Op", opLiteral(t.Call)))
	}
	if len(t.Steps) > 0 {
		fields = append(fields, field("Steps", stepsLiteral(t.Steps)))
	}
	if len(t.Actions) > 0 {
		var acts []jen.Code
		for _, a := range t.Actions {
			vals := []jen.Code{field("Name", jen.Lit(a.Name)), field("Steps", stepsLiteral(a.Steps))}
			if len(a.Required) > 0 {
				vals = append(vals, field("Required", stringSlice(a.Required)))
			}
			acts = append(acts, jen.Custom(multi, vals...))
		}
		fields = append(fields, field("Actions", jen.Index().Op("*").Id("action").Custom(multi, acts...)))
	}
	if t.Output != nil {
		fields = append(fields, field("Output", outputLiteral(t.Output)))
	}
	if t.OutputSchema != "" {
		fields = append(fields, field("OutputSchema", rawString(t.OutputSchema)))
	}
	return append(fields, accessFields(t)...)
}

// accessFields renders the state and access settings of a tool.
func accessFields(t ir.Tool) []jen.Code {
	var fields []jen.Code
	if len(t.HandleInputs) > 0 {
		var ins []jen.Code
		for _, h := range t.HandleInputs {
			ins = append(ins, jen.Values(field("Arg", jen.Lit(h.Arg)), field("Type", jen.Lit(h.Type))))
		}
		fields = append(fields, field("HandleInputs", jen.Index().Id("handleInput").Custom(multi, ins...)))
	}
	if c := t.CreatesHandle; c != nil {
		fields = append(fields, field("CreatesHandle", jen.Op("&").Id("handleOutput").Custom(multi,
			field("Type", jen.Lit(c.Type)), field("From", jen.Lit(c.From)), field("Field", jen.Lit(c.Field)))))
	}
	if u := t.UpdatesHandle; u != nil {
		vals := []jen.Code{field("Type", jen.Lit(u.Type)), field("Arg", jen.Lit(u.Arg))}
		if len(u.Append) > 0 {
			vals = append(vals, field("Append", bindingsLiteral(u.Append)))
		}
		if len(u.Set) > 0 {
			vals = append(vals, field("Set", bindingsLiteral(u.Set)))
		}
		fields = append(fields, field("UpdatesHandle", jen.Op("&").Id("handleUpdate").Custom(multi, vals...)))
	}
	if t.ConsumesHandle != "" {
		fields = append(fields, field("ConsumesHandle", jen.Lit(t.ConsumesHandle)))
	}
	if len(t.Asks) > 0 {
		var asks []jen.Code
		for _, a := range t.Asks {
			asks = append(asks, jen.Custom(multi, field("Arg", jen.Lit(a.Arg)), field("Message", jen.Lit(a.Message)), field("Schema", jen.Lit(a.Schema))))
		}
		fields = append(fields, field("Asks", jen.Index().Id("askInput").Custom(multi, asks...)))
	}
	if t.Confirm != "" {
		fields = append(fields, field("Confirm", jen.Lit(t.Confirm)))
	}
	if len(t.Scopes) > 0 {
		fields = append(fields, field("Scopes", stringSlice(t.Scopes)))
	}
	if t.RateLimit != nil {
		fields = append(fields, field("RateLimit", rateLimitLiteral(t.RateLimit)))
	}
	return fields
}

func rateLimitLiteral(r *ir.RateLimit) jen.Code {
	return jen.Op("&").Id("rateLimit").Values(field("PerMinute", jen.Lit(r.PerMinute)), field("Burst", jen.Lit(r.Burst)))
}

func opLiteral(c ir.Call) jen.Code {
	return jen.Op("&").Id("operation").Custom(multi, callFields(c)...)
}

func stepsLiteral(steps []ir.Step) jen.Code {
	var out []jen.Code
	for _, s := range steps {
		vals := []jen.Code{field("ID", jen.Lit(s.ID)), field("Op", opLiteral(s.Call))}
		if len(s.Args) > 0 {
			vals = append(vals, field("Args", bindingsLiteral(s.Args)))
		}
		if s.Optional {
			vals = append(vals, field("Optional", jen.True()))
		}
		if s.When != "" {
			vals = append(vals, field("When", jen.Lit(s.When)))
		}
		if len(s.After) > 0 {
			vals = append(vals, field("After", stringSlice(s.After)))
		}
		out = append(out, jen.Custom(multi, vals...))
	}
	return jen.Index().Op("*").Id("step").Custom(multi, out...)
}

func bindingsLiteral(bs []ir.Binding) jen.Code {
	var out []jen.Code
	for _, b := range bs {
		vals := []jen.Code{field("Arg", jen.Lit(b.Arg))}
		switch {
		case len(b.Fields) > 0:
			vals = append(vals, field("Fields", bindingsLiteral(b.Fields)))
		case b.Expr != "":
			vals = append(vals, field("Expr", jen.Lit(b.Expr)))
		default:
			vals = append(vals, field("Const", jen.Lit(b.Const)))
		}
		out = append(out, jen.Values(vals...))
	}
	return jen.Index().Id("binding").Custom(multi, out...)
}

func outputLiteral(o *ir.Output) jen.Code {
	var vals []jen.Code
	if len(o.Pick) > 0 {
		vals = append(vals, field("Pick", picksLiteral(o.Pick)))
	}
	if o.Limit > 0 {
		vals = append(vals, field("ListPath", jen.Lit(o.ListPath)), field("Limit", jen.Lit(o.Limit)))
	}
	if o.PageInput != "" {
		vals = append(vals, field("PageInput", jen.Lit(o.PageInput)))
	}
	if len(o.Hints) > 0 {
		vals = append(vals, field("Hints", picksLiteral(o.Hints)))
	}
	return jen.Op("&").Id("outputShape").Custom(multi, vals...)
}

func picksLiteral(ps []ir.Pick) jen.Code {
	var out []jen.Code
	for _, p := range ps {
		out = append(out, jen.Values(field("Name", jen.Lit(p.Name)), field("Path", jen.Lit(p.Path))))
	}
	return jen.Index().Id("pick").Custom(multi, out...)
}

func stringSlice(list []string) jen.Code {
	var out []jen.Code
	for _, s := range list {
		out = append(out, jen.Lit(s))
	}
	return jen.Index().String().Values(out...)
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
	if c.IdempotencyKeyHeader != "" {
		fields = append(fields, field("IdempotencyKeyHeader", jen.Lit(c.IdempotencyKeyHeader)))
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
