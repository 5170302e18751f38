package runtime

import (
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"
)

// The SDK is given the tools on first use, not in NewServer: a server
// that is only called directly (CallTool, a generator's proof of its
// call cases) never pays for the SDK re-encoding every tool's schemas
// three times, which was 30% of what generating a small API allocated
// in process. What the SDK would refuse (it panics) is still found in
// NewServer, as an error.

// sdkTool is a tool and its handler as the SDK will hold them.
type sdkTool struct {
	tool    *Tool
	handler mcp.ToolHandler
}

// addMCPTool records a tool for the SDK in registeredForm; the other
// forms' entries replace it in tools/list (profileMiddleware).
func (s *Server) addMCPTool(ts *Tool, h mcp.ToolHandler) error {
	if err := sdkRefusal(ts, h); err != nil {
		return err
	}
	s.advertised = append(s.advertised, ts)
	s.unregistered = append(s.unregistered, sdkTool{ts, h})
	return nil
}

// sdk is the go-sdk server with every tool registered: every way of
// serving reaches the SDK through it.
func (s *Server) sdk() *mcp.Server {
	s.sdkOnce.Do(func() {
		for _, t := range s.unregistered {
			s.mcp.AddTool(mcpTool(t.tool, registeredForm()), t.handler)
		}
		s.unregistered = nil
	})
	return s.mcp
}

// sdkRefusal is what would make the SDK's AddTool panic on ts: an input
// schema whose root is not of type "object", or x-mcp-header annotations
// it does not accept. For the latter the SDK's own rules run, on a
// scratch server, so only tools with such annotations pay for them. A
// root not plainly of type "object" is checked again in the form the SDK
// is given, which may differ (a nullable root, say).
func sdkRefusal(ts *Tool, h mcp.ToolHandler) (err error) {
	if schema := strings.TrimSpace(ts.InputSchema); schema != "" && rootIsObject([]byte(schema)) != nil {
		if err := rootIsObject([]byte(advertiseSchema(schema, registeredForm(), false))); err != nil {
			return err
		}
	}
	if !strings.Contains(ts.InputSchema, mcpHeaderKey) {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the MCP SDK refuses the tool: %v", r)
		}
	}()
	mcp.NewServer(&mcp.Implementation{Name: "check"}, nil).AddTool(mcpTool(ts, registeredForm()), h)
	return nil
}

// rootIsObject says what is wrong unless a JSON schema's type member
// (the last, as encoding/json keeps) is exactly the string "object": the
// SDK's rule for input schemas.
func rootIsObject(schema []byte) error {
	keys, vals, ok := plainjson.Members(schema)
	if !ok {
		return errors.New("the input schema is not a JSON object")
	}
	object := false
	for i, k := range keys {
		if k == "type" {
			v, ok := plainjson.Decode(string(vals[i]))
			object = ok && v == "object"
		}
	}
	if !object {
		return errors.New(`the input schema must have type "object" at its root`)
	}
	return nil
}
