package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/uritemplate"
)

// Tools served as resources (ServerDef.Resources). resources/read of a
// URI that matches a declared template calls the template's tool with
// the URI's variables as arguments: the same validation, access checks,
// limits, logging and error mapping as tools/call. Only URIs that match a
// template exactly, with every variable one clean path segment, reach the
// upstream; anything else is "Resource not found" (-32602 with the URI in
// data, SEP-2164), as is an upstream 404.

// maxResourceURI bounds the URI a read may name.
const maxResourceURI = 2048

// boundResource is a Resource ready to serve.
type boundResource struct {
	spec *Resource
	tmpl *uritemplate.Template
	bt   *boundTool
	// vars are the tool input properties the variables fill, by name.
	vars map[string]*uritemplate.Var
}

// addResources binds and registers the definition's resources.
func (s *Server) addResources(defs []Resource) error {
	for i := range defs {
		r := &defs[i]
		br, err := s.bindResource(r)
		if err != nil {
			return fmt.Errorf("resource %q: %w", r.URITemplate, err)
		}
		s.resources = append(s.resources, br)
		if len(br.tmpl.Vars) == 0 {
			s.mcp.AddResource(&mcp.Resource{URI: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}, br.read(s))
			continue
		}
		s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: r.URITemplate, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType}, br.read(s))
	}
	return nil
}

// bindResource binds a resource to its tool (resourceVars).
func (s *Server) bindResource(r *Resource) (*boundResource, error) {
	bt := s.tools[r.Tool]
	if bt == nil {
		return nil, fmt.Errorf("tool %q is not defined", r.Tool)
	}
	tmpl, vars, err := resourceVars(r, bt.spec)
	if err != nil {
		return nil, err
	}
	return &boundResource{spec: r, tmpl: tmpl, bt: bt, vars: vars}, nil
}

// resourceVars binds r to t (uritemplate.Bind); the door's
// CheckResource (oa2mcpimpl) converts the tool the same way.
func resourceVars(r *Resource, t *Tool) (*uritemplate.Template, map[string]*uritemplate.Var, error) {
	return uritemplate.Bind(r.URITemplate, uritemplate.Tool{Name: t.Name, InputSchema: t.InputSchema, Asks: len(t.Asks) > 0 || t.Confirm != ""})
}

// read is the resources/read handler of br.
func (br *boundResource) read(s *Server) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		args, err := br.arguments(uri)
		if err != nil {
			return nil, err
		}
		raw, _ := json.Marshal(args)
		in := callIn{raw: raw}
		if req.Extra != nil {
			in.hdr, in.ti = req.Extra.Header, req.Extra.TokenInfo
		}
		res, err := s.handle(ctx, br.bt, in)
		if err != nil {
			return nil, err
		}
		if res.IsError {
			return nil, readError(uri, res)
		}
		contents, err := s.resourceContents(ctx, req, uri, res)
		if err != nil {
			return nil, err
		}
		// The upstream answer may depend on the caller or the server's
		// credentials: no shared cache may keep it.
		return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{CacheScope: "private"}, Contents: contents}, nil
	}
}

// arguments are the tool arguments a URI names; a URI that does not
// match the template, or whose variables are no clean values, is not
// found. The tool validates the values against its input schema.
func (br *boundResource) arguments(uri string) (map[string]any, error) {
	if len(uri) > maxResourceURI {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	vals, ok := br.tmpl.Match(uri)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	args := make(map[string]any, len(vals))
	for name, v := range vals {
		args[name] = br.vars[name].Value(v)
	}
	return args, nil
}

// readError is the JSON-RPC error of a read whose tool call failed: not
// found as SEP-2164 says, invalid arguments as invalid params, anything
// else an internal error with the tool's message.
func readError(uri string, res *mcp.CallToolResult) error {
	msg := contentSummary(res)
	data, _ := json.Marshal(map[string]string{"uri": uri})
	switch errorKindOf(res) {
	case KindNotFound:
		return mcp.ResourceNotFoundError(uri)
	case KindInvalidInput:
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "Resource not found: " + msg, Data: data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg, Data: data}
}

// contentSummary joins the text items of a result.
func contentSummary(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " ")
}

// resourceContents turns a tool result into resource contents, all under
// the URI read: structured JSON as application/json text; media items as
// text or blobs with their types (the summary text item is for models
// and is left out); a linked large item or result as what its link
// serves.
func (s *Server) resourceContents(ctx context.Context, req *mcp.ReadResourceRequest, uri string, res *mcp.CallToolResult) ([]*mcp.ResourceContents, error) {
	var out []*mcp.ResourceContents
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.ResourceLink:
			rr, err := s.readResult(ctx, &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: x.URI}, Extra: req.Extra})
			if err != nil {
				return nil, err
			}
			for _, rc := range rr.Contents {
				cp := *rc
				cp.URI = uri
				out = append(out, &cp)
			}
		default:
			if p, ok := contentPart(c); ok {
				rc := partContents(p)
				rc.URI = uri
				out = append(out, rc)
			}
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, err
		}
		return []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
	}
	return []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: contentSummary(res)}}, nil
}

// partContents is a media part as resource contents: text for text
// media, else a blob.
func partContents(p mediaPart) *mcp.ResourceContents {
	if classOf(p) == classText {
		return &mcp.ResourceContents{MIMEType: p.mediaType, Text: string(p.data)}
	}
	return &mcp.ResourceContents{MIMEType: p.mediaType, Blob: p.data}
}

// screenReads keeps resources/read errors encodable: go-sdk v1.8.0's
// ResourceNotFoundError writes the URI with Go quoting (%q), which is no
// JSON for control characters or invalid UTF-8 ("\x0f"), and a response
// that does not encode ends the connection (on stdio, the server). Such
// data is rewritten as JSON; an overlong URI is not echoed whole.
func (s *Server) screenReads(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		var je *jsonrpc.Error
		if method != "resources/read" || !errors.As(err, &je) || len(je.Data) == 0 || json.Valid(je.Data) && len(je.Data) <= maxResourceURI+64 {
			return res, err
		}
		uri := ""
		if rr, ok := req.(*mcp.ReadResourceRequest); ok && rr.Params != nil {
			uri = strings.ToValidUTF8(cutUTF8(rr.Params.URI, 256), "\uFFFD")
		}
		data, _ := json.Marshal(map[string]string{"uri": uri})
		return nil, &jsonrpc.Error{Code: je.Code, Message: je.Message, Data: data}
	}
}
