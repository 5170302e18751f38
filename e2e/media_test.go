//go:build linux && e2e

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mediaPNG is a 1x1 PNG.
const mediaPNG = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82"

// mediaUpstream is the testdata/media API on 127.0.0.1: a photo, a WAV
// recording, a PDF, a CSV report, notes, a multipart dossier; pet 404 is
// not found.
func mediaUpstream(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/404/") {
			http.Error(w, `{"message":"no such pet"}`, http.StatusNotFound)
			return
		}
		answer := func(ct, body string) {
			w.Header().Set("Content-Type", ct)
			_, _ = w.Write([]byte(body))
		}
		switch p := r.URL.Path; {
		case strings.HasSuffix(p, "/photo"), strings.HasSuffix(p, "/logo"):
			answer("image/png", mediaPNG)
		case strings.HasSuffix(p, "/bark"):
			answer("audio/wav", "RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00D\xac\x00\x00\x88X\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00")
		case strings.HasSuffix(p, "/certificate"):
			answer("application/pdf", "%PDF-1.4\n\x00\xff")
		case strings.HasSuffix(p, "/reports/sales"):
			answer("text/csv", "id,amount\n1,12.50\n")
		case strings.HasSuffix(p, "/notes"):
			answer("text/plain", "Rex likes walks.")
		case strings.HasSuffix(p, "/dossier"):
			answer("multipart/mixed; boundary=b1", "--b1\r\nContent-Type: text/plain\r\n\r\nRex\r\n--b1\r\nContent-Type: image/png\r\n\r\n"+mediaPNG+"\r\n--b1--\r\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// buildMedia builds the generated server of the testdata/media golden case.
func buildMedia(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./testdata/media/want/cmd/media")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the media server: %v\n%s", err, truncate(string(out), 8000))
	}
	return filepath.Join(dir, "media")
}

// TestMediaServer drives the generated media server, a real process, with
// the go-sdk client over Streamable HTTP and stdio against a real
// upstream: each media type is MCP content of its kind, resource
// templates read through their tools, a missing pet is SEP-2164 not
// found, and completion offers the example pet id. Then the official
// conformance suite's resource-not-found and completion scenarios run.
func TestMediaServer(t *testing.T) {
	x := requireExternalTools(t)
	bin := buildMedia(t, x.root)
	up := mediaUpstream(t)
	mcpURL := startDaemon(t, "media MCP server", regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
		bin, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", up)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	transports := map[string]func() mcp.Transport{
		"http":  func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: mcpURL} },
		"stdio": func() mcp.Transport { return &mcp.CommandTransport{Command: exec.Command(bin, "--base-url", up)} },
	}
	for _, name := range []string{"http", "stdio"} {
		t.Run(name, func(t *testing.T) {
			cs, err := client.Connect(ctx, transports[name](), nil)
			must(t, err)
			defer cs.Close()
			for tool, want := range map[string]string{
				"get_pet_photo": "*mcp.ImageContent", "get_pet_bark": "*mcp.AudioContent", "get_pet_certificate": "*mcp.EmbeddedResource",
				"get_pet_notes": "*mcp.EmbeddedResource", "get_pet_dossier": "*mcp.ImageContent",
			} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"petId": 7}})
				must(t, err)
				if res.IsError || len(res.Content) < 2 || !hasContent(res.Content, want) {
					t.Errorf("%s: isError %v, content %s; want a summary and %s", tool, res.IsError, contentTypes(res.Content), want)
				}
			}
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "petmedia://pets/7/photo"})
			must(t, err)
			if c := rr.Contents[0]; c.MIMEType != "image/png" || string(c.Blob) != mediaPNG || c.URI != "petmedia://pets/7/photo" {
				t.Errorf("read photo: %q %d bytes at %q", c.MIMEType, len(c.Blob), c.URI)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "petmedia://pets/404/photo"}); err == nil || !strings.Contains(err.Error(), "Resource not found") {
				t.Errorf("read of a missing pet: %v, want Resource not found", err)
			}
			list, err := cs.ListResources(ctx, nil)
			must(t, err)
			if len(list.Resources) != 1 || list.Resources[0].URI != "petmedia://shop/logo" {
				t.Errorf("resources/list: %+v, want the logo", list.Resources)
			}
			cr, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "petmedia://pets/{petId}/photo"},
				Argument: mcp.CompleteParamsArgument{Name: "petId", Value: "4"}})
			must(t, err)
			if strings.Join(cr.Completion.Values, ",") != "42" {
				t.Errorf("completion of petId 4: %v, want the example 42", cr.Completion.Values)
			}
		})
	}
	baseline := filepath.Join(x.root, conformanceBaseline)
	for _, sc := range []conformanceScenario{{"sep-2164-resource-not-found", "2026-07-28", false}, {"completion-complete", "2026-07-28", false}, {"caching", "2026-07-28", false}} {
		runScenario(t, x, "media", mcpURL, sc, baseline)
	}
}

func hasContent(cs []mcp.Content, typ string) bool {
	return strings.Contains(contentTypes(cs), typ)
}

func contentTypes(cs []mcp.Content) string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%T", c))
	}
	return strings.Join(out, " ")
}
