package oa2mcptest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// checkResult lists what is wrong with res for case c: the outcome and
// its kind, whether the upstream was reached, the text, the structured
// content against the output schema, and the paging fields.
func checkResult(def *runtime.ServerDef, c *Case, res *mcp.CallToolResult, reached bool) []string {
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	txt := text(res)
	if res.IsError != c.WantError {
		bad("isError=%v, want %v: %s", res.IsError, c.WantError, clip(txt))
		return out
	}
	if reached != c.WantUpstream {
		bad("upstream reached=%v, want %v", reached, c.WantUpstream)
	}
	for _, w := range c.WantText {
		if !strings.Contains(txt, w) {
			bad("text lacks %q: %s", w, clip(txt))
		}
	}
	if c.WantError {
		return append(out, checkError(c, res)...)
	}
	tool := findTool(def, c.Tool)
	out = append(out, checkStructured(tool, res)...)
	if c.WantPage != nil {
		out = append(out, checkPage(c.WantPage, res)...)
	}
	return out
}

// checkError checks an error result: its kind in _meta, and no
// structured content (strict clients check it against the output schema).
func checkError(c *Case, res *mcp.CallToolResult) []string {
	var out []string
	if res.StructuredContent != nil {
		out = append(out, "an error result carries structuredContent")
	}
	var info runtime.ErrorInfo
	b, _ := json.Marshal(res.Meta[runtime.ErrorMetaKey])
	if err := json.Unmarshal(b, &info); err != nil || info.Kind == "" {
		out = append(out, fmt.Sprintf("_meta[%q] has no error kind: %s", runtime.ErrorMetaKey, b))
	} else if c.WantKind != "" && info.Kind != c.WantKind {
		out = append(out, fmt.Sprintf("error kind %q, want %q: %s", info.Kind, c.WantKind, clip(text(res))))
	}
	return out
}

// checkStructured checks a success: a tool with an output schema returns
// structured content that matches it, and its text is the same JSON.
func checkStructured(tool *runtime.Tool, res *mcp.CallToolResult) []string {
	if tool == nil || strings.TrimSpace(tool.OutputSchema) == "" {
		return nil
	}
	if res.StructuredContent == nil {
		return []string{"the tool has an output schema but the result has no structuredContent"}
	}
	schema, err := oa2mcpimpl.CompileSchema(tool.OutputSchema)
	if err != nil {
		return []string{"output schema does not compile: " + err.Error()}
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return []string{"structuredContent does not encode: " + err.Error()}
	}
	v, err := oa2mcpimpl.DecodeJSON(string(b))
	if err != nil {
		return []string{"structuredContent is not JSON: " + err.Error()}
	}
	var out []string
	if err := schema.Validate(v); err != nil {
		out = append(out, "structuredContent breaks the output schema: "+err.Error())
	}
	if tv, err := oa2mcpimpl.DecodeJSON(text(res)); err != nil || !sameJSON(tv, v) {
		out = append(out, "the text is not the JSON of structuredContent")
	}
	return out
}

// checkPage checks the paging fields of a result.
func checkPage(want *Page, res *mcp.CallToolResult) []string {
	var got struct {
		Items      []any  `json:"items"`
		TotalCount *int   `json:"totalCount"`
		HasMore    *bool  `json:"hasMore"`
		NextPage   any    `json:"nextPage"`
		Note       string `json:"note"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &got); err != nil {
		return []string{"paged result is not a page: " + err.Error()}
	}
	var out []string
	if len(got.Items) != want.Items {
		out = append(out, fmt.Sprintf("page has %d items, want %d", len(got.Items), want.Items))
	}
	switch {
	case want.Total == NoTotal && got.TotalCount != nil:
		out = append(out, fmt.Sprintf("totalCount %d, but the upstream said no total", *got.TotalCount))
	case want.Total != NoTotal && (got.TotalCount == nil || *got.TotalCount != want.Total):
		out = append(out, fmt.Sprintf("totalCount %v, want %d", deref(got.TotalCount), want.Total))
	}
	if got.HasMore == nil || *got.HasMore != want.HasMore {
		out = append(out, fmt.Sprintf("hasMore %v, want %v", derefBool(got.HasMore), want.HasMore))
	}
	np, _ := got.NextPage.(map[string]any)
	nextNum, has := np[want.PageInput].(float64)
	next := int(nextNum)
	switch {
	case want.Next < 0 && has:
		out = append(out, fmt.Sprintf("nextPage %v on the last page", got.NextPage))
	case want.Next >= 0 && (!has || next != want.Next):
		out = append(out, fmt.Sprintf("nextPage %v, want %s=%d", got.NextPage, want.PageInput, want.Next))
	}
	if want.HasMore && want.Total != NoTotal && !strings.Contains(got.Note, fmt.Sprintf("of %d", want.Total)) {
		out = append(out, fmt.Sprintf("partial-data note %q does not give the total %d", got.Note, want.Total))
	}
	return out
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func derefBool(p *bool) any {
	if p == nil {
		return nil
	}
	return *p
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// clip keeps a result text short enough for a failure message.
func clip(s string) string { return oa2mcpimpl.Clip(s, 600) }
