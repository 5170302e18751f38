package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// TestSDKRefusalIsTheSDKs: the SDK is given the tools only when the
// server is first served, yet NewServer refuses exactly the tools the
// SDK's AddTool would panic on. Random input schemas (root types,
// properties with and without x-mcp-header, good and bad header names)
// are held to the SDK itself on a scratch server; a server NewServer
// accepts registers with the SDK without panicking. A failure is shrunk
// to its fewest properties.
func TestSDKRefusalIsTheSDKs(t *testing.T) {
	rng := rand.New(rand.NewPCG(testseed.Seed(t), 2))
	refused := 0
	for i := 0; i < 400; i++ {
		in := randomToolSchema(rng)
		if problem := sdkRefusalMismatch(in); problem != "" {
			in = shrinkToolSchema(in, func(c toolSchema) bool { return sdkRefusalMismatch(c) != "" })
			t.Fatalf("input schema %s: %s", in.json(), sdkRefusalMismatch(in))
		}
		if sdkPanics(in.tool()) != nil {
			refused++
		}
	}
	t.Logf("%d of 400 schemas refused", refused)
	// Both kinds of input must have been tried, or the test proves nothing.
	if refused == 0 || refused == 400 {
		t.Fatalf("%d of 400 schemas refused: the generator does not reach both outcomes", refused)
	}
}

// toolSchema is a random input schema: the root's type member as
// written (empty: none) and its properties.
type toolSchema struct {
	rootType string
	props    []toolProp
}

// toolProp is one property: its type and x-mcp-header member as written
// (empty: none).
type toolProp struct {
	name, typ, header string
}

func randomToolSchema(rng *rand.Rand) toolSchema {
	roots := []string{`"object"`, `"object"`, `"object"`, `"array"`, `"string"`, `["object","null"]`, ``, `"obj\u0065ct"`}
	types := []string{"string", "integer", "boolean", "number", "array", "object"}
	headers := []string{``, ``, `"X-Region"`, `"X-Region"`, `"X-Id"`, `"Bad Name"`, `""`, `7`, `"x-region"`}
	s := toolSchema{rootType: roots[rng.IntN(len(roots))]}
	for j := range rng.IntN(4) {
		s.props = append(s.props, toolProp{name: fmt.Sprintf("p%d", j), typ: types[rng.IntN(len(types))], header: headers[rng.IntN(len(headers))]})
	}
	return s
}

func (s toolSchema) json() string {
	var b strings.Builder
	b.WriteString("{")
	if s.rootType != "" {
		b.WriteString(`"type":` + s.rootType + `,`)
	}
	b.WriteString(`"properties":{`)
	for i, p := range s.props {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `%q:{"type":%q`, p.name, p.typ)
		if p.header != "" {
			b.WriteString(`,"x-mcp-header":` + p.header)
		}
		b.WriteString("}")
	}
	b.WriteString("}}")
	return b.String()
}

func (s toolSchema) tool() *Tool {
	return &Tool{Name: "t", InputSchema: s.json(), Op: &Operation{Method: "GET", Path: "/t"}}
}

// sdkPanics is what the SDK's AddTool panics with, given the tool as the
// server registers it.
func sdkPanics(ts *Tool) (p any) {
	defer func() { p = recover() }()
	mcp.NewServer(&mcp.Implementation{Name: "oracle"}, nil).AddTool(mcpTool(ts, registeredForm()), nil)
	return nil
}

// sdkRefusalMismatch says how NewServer and the SDK disagree on s.
func sdkRefusalMismatch(s toolSchema) string {
	ts := s.tool()
	want := sdkPanics(ts)
	srv, err := NewServer(&ServerDef{Name: "x", Tools: []*Tool{ts}}, Options{BaseURL: "http://127.0.0.1:1"})
	switch {
	case want != nil && err == nil:
		return fmt.Sprintf("NewServer accepts what the SDK refuses (%v)", want)
	case want == nil && err != nil:
		return fmt.Sprintf("NewServer refuses what the SDK accepts: %v", err)
	case err == nil:
		defer srv.Close()
		if p := registerPanics(srv); p != nil {
			return fmt.Sprintf("registering with the SDK panics: %v", p)
		}
	}
	return ""
}

func registerPanics(srv *Server) (p any) {
	defer func() { p = recover() }()
	srv.MCPServer()
	return nil
}

// shrinkToolSchema drops properties, then header annotations, while
// fails holds.
func shrinkToolSchema(s toolSchema, fails func(toolSchema) bool) toolSchema {
	for changed := true; changed; {
		changed = false
		for _, c := range smallerToolSchemas(s) {
			if fails(c) {
				s, changed = c, true
				break
			}
		}
	}
	return s
}

// smallerToolSchemas are s less one property, and s with one property's
// x-mcp-header removed.
func smallerToolSchemas(s toolSchema) []toolSchema {
	var out []toolSchema
	for i := range s.props {
		c := s
		c.props = append(append([]toolProp(nil), s.props[:i]...), s.props[i+1:]...)
		out = append(out, c)
	}
	for i, p := range s.props {
		if p.header != "" {
			c := s
			c.props = append([]toolProp(nil), s.props...)
			c.props[i].header = ""
			out = append(out, c)
		}
	}
	return out
}
