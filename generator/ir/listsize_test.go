package ir

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/runtime/oa2mcptest"
)

// referenceListBytes is ListBytes as it was written, through json.Marshal.
func referenceListBytes(tools []Tool) int {
	type listedTool struct {
		Name         string          `json:"name"`
		Title        string          `json:"title,omitempty"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		Annotations  map[string]any  `json:"annotations"`
	}
	listed := make([]listedTool, 0, len(tools))
	for _, t := range tools {
		listed = append(listed, listedTool{
			Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: RawSchema(t.InputSchema, `{}`), OutputSchema: RawSchema(t.OutputSchema, ""),
			Annotations: map[string]any{"title": t.Title, "readOnlyHint": t.ReadOnly, "destructiveHint": t.Destructive,
				"idempotentHint": t.Idempotent, "openWorldHint": t.OpenWorld},
		})
	}
	b, err := json.Marshal(map[string]any{"tools": listed})
	if err != nil {
		panic(err)
	}
	return len(b)
}

// sizePieces are what random texts and schemas are made of: what
// json.Marshal escapes or drops, and plain text.
var sizePieces = []string{"a", "Pet", " ", "\n", "\t", "\"", "\\", "<", ">", "&", "\u2028", "\u2029", "é", "日本",
	"\x01", "\x7f", "\xff", "\xe2\x80", "\b", "\f", "\r"}

func randomSizeText(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(6) {
		sb.WriteString(sizePieces[r.IntN(len(sizePieces))])
	}
	return sb.String()
}

// randomSizeSchema is valid JSON with white space and escapes, or now
// and then something that is not JSON at all.
func randomSizeSchema(r *rand.Rand, depth int) string {
	sp := []string{"", " ", "\n  ", "\t"}[r.IntN(4)]
	switch k := r.IntN(7); {
	case k == 0 && depth == 2:
		return []string{"", "{", "not json", `{"a":}`}[r.IntN(4)]
	case k <= 1 || depth == 0:
		b, _ := json.Marshal(randomSizeText(r))
		s := string(b)
		if r.IntN(2) == 0 { // unescaped HTML and line separators, as schemas in the IR hold them
			s = strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&", `\u2028`, "\u2028", `\u2029`, "\u2029").Replace(s)
		}
		return s
	case k == 2:
		return []string{"true", "null", "12", "-0.5e3"}[r.IntN(4)]
	case k == 3:
		return "[" + sp + randomSizeSchema(r, depth-1) + sp + "," + randomSizeSchema(r, depth-1) + "]"
	}
	key, _ := json.Marshal(randomSizeText(r))
	return "{" + sp + string(key) + sp + ":" + sp + randomSizeSchema(r, depth-1) + sp + "}"
}

// TestListBytesMatchesMarshal: on seeded random tools (names,
// descriptions and schemas with everything json.Marshal escapes or
// compacts, schemas that are not JSON) the counted size is what
// json.Marshal writes.
func TestListBytesMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(oa2mcptest.Seed(t), 1))
	for range 3000 {
		tools := make([]Tool, r.IntN(4))
		for i := range tools {
			tt := &tools[i].Tool
			tt.Name, tt.Title, tt.Description = randomSizeText(r), randomSizeText(r), randomSizeText(r)
			tt.InputSchema, tt.OutputSchema = randomSizeSchema(r, 2), randomSizeSchema(r, 2)
			tt.ReadOnly, tt.Destructive, tt.Idempotent, tt.OpenWorld = r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0, r.IntN(2) == 0
		}
		if got, want := ListBytes(tools), referenceListBytes(tools); got != want {
			for len(tools) > 1 && ListBytes(tools[:1]) == referenceListBytes(tools[:1]) {
				tools = tools[1:]
			}
			t.Fatalf("ListBytes = %d, json.Marshal writes %d, for %+v", got, want, tools[0].Tool)
		}
	}
}
