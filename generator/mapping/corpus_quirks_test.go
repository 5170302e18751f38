package mapping

import (
	"slices"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/load"
)

// quirksDoc holds operations shaped like ones found in the corpus: an
// OAuth page (Box), a path that stands for a run-time URL (DigitalOcean),
// a body whose schema requires properties without requestBody.required
// (Box, OpenAI), and a path key with a query (OpenAI).
func quirksDoc() *load.Document {
	obj := func(req ...string) *load.Schema {
		return &load.Schema{Type: "object", PropertyOrder: []string{"prompt", "tone"}, Required: req,
			Properties: map[string]*load.Schema{"prompt": {Type: "string"}, "tone": {Type: "string"}}}
	}
	ok := []*load.Response{{Status: "200", MediaType: "application/json", Schema: &load.Schema{Type: "object"}}}
	return &load.Document{Title: "Quirks", Operations: []*load.Operation{
		{ID: "authorize", Method: "GET", Path: "/authorize", RawPath: "/authorize",
			Responses: []*load.Response{{Status: "200", MediaType: "text/html"}, {Status: "302"}}},
		{ID: "upload", Method: "PUT", Path: "/<upload_url>", RawPath: "/<upload_url>", Responses: ok},
		{ID: "generate", Method: "POST", Path: "/generate", RawPath: "/generate", Responses: ok,
			RequestBody: &load.RequestBody{MediaType: "application/json", Schema: obj("prompt")}},
		{ID: "generateBeta", Method: "POST", Path: "/generate?beta=true", RawPath: "/generate?beta=true", Responses: ok,
			RequestBody: &load.RequestBody{MediaType: "application/json", Schema: obj()}},
	}}
}

func TestCorpusQuirks(t *testing.T) {
	srv, probs := Build(quirksDoc(), Config{})
	if probs.HasErrors() {
		t.Fatal(probs.Error())
	}
	var names []string
	for _, tool := range srv.Tools {
		names = append(names, tool.Name)
	}
	if want := []string{"generate", "generate_beta"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v (the web page and the run-time URL skipped)", names, want)
	}
	warnings := probs.Warnings().Error()
	for _, w := range []string{"GET /authorize: skipped: it answers with a web page", `PUT /<upload_url>: skipped: its path is not a URL path template ('<'`} {
		if !strings.Contains(warnings, w) {
			t.Errorf("warnings lack %q:\n%s", w, warnings)
		}
	}
	gen, beta := srv.Tools[0], srv.Tools[1]
	if body := gen.Op.Body; !body.Required || !strings.Contains(strings.Join(strings.Fields(gen.InputSchema), ""), `"required":["prompt"]`) {
		t.Errorf("a body whose schema requires prompt is not required: %+v %s", body, gen.InputSchema)
	}
	if f := gen.Op.Body.Fields; len(f) != 2 || !f[0].Required || f[1].Required {
		t.Errorf("body fields = %+v, want prompt required and tone optional", f)
	}
	if beta.Op.Path != "/generate?beta=true" || beta.Op.Body.Required {
		t.Errorf("beta op = %+v body %+v", beta.Op, beta.Op.Body)
	}
}
