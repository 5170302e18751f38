package runtime

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
	"github.com/oa2mcp/oa2mcp/runtime/internal/testseed"
)

// mediaUpstream is a real HTTP upstream on 127.0.0.1 that answers every
// request with the response last set.
type mediaUpstream struct {
	mu          sync.Mutex
	contentType string
	body        []byte
	hits        int
}

func (m *mediaUpstream) set(ct string, body []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.contentType, m.body = ct, body
}

func (m *mediaUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	ct, body := m.contentType, m.body
	m.hits++
	m.mu.Unlock()
	if ct != "" {
		w.Header().Set("Content-Type", ct)
	} else {
		w.Header()["Content-Type"] = nil // no sniffing by net/http
	}
	_, _ = w.Write(body)
}

// mediaServer serves one tool, media, reading GET /files/{id} from up,
// with a read limit above the media caps so that the caps, not the read
// limit, decide.
func mediaServer(t testing.TB, up http.Handler) (*Server, *mcp.ClientSession) {
	t.Helper()
	hs := httptest.NewServer(up)
	t.Cleanup(hs.Close)
	spec := &ServerDef{Name: "media", EnvPrefix: "MEDIA", DefaultBaseURL: hs.URL, MaxResponseBytes: 2 << 20,
		Tools: []*Tool{{Name: "get_file", Description: "Get a file.", ReadOnly: true,
			InputSchema: objSchema(`"id":{"type":"string","pattern":"^[a-z0-9]+$"}`, "id"),
			Op: &Operation{Method: "GET", Path: "/files/{id}", ResponseMedia: "image/png",
				Params: []Param{{Name: "id", Arg: "id", In: InPath, Style: "simple", Required: true}}}}}}
	srv, err := NewServer(spec, Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return srv, connect(t, srv, "")
}

func callFile(t *testing.T, cs *mcp.ClientSession) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_file", Arguments: map[string]any{"id": "a1"}})
	if err != nil {
		t.Fatalf("protocol error: %v", err)
	}
	return res
}

var testPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")

var testWAV = []byte("RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00D\xac\x00\x00\x88X\x01\x00\x02\x00\x10\x00data\x00\x00\x00\x00")

// TestMediaContent: each media type becomes the MCP content of its kind,
// after a summary a model reads first.
func TestMediaContent(t *testing.T) {
	up := &mediaUpstream{}
	_, cs := mediaServer(t, up)
	pdf := []byte("%PDF-1.4\n\x00\xff\x01binary")
	for _, tc := range []struct {
		name, ct string
		body     []byte
		want     []string // content types after the summary
		summary  string
	}{
		{"png", "image/png", testPNG, []string{"image"}, "image/png, 70 bytes, from GET /files/{id}"},
		{"wav", "audio/wav", testWAV, []string{"audio"}, "audio/wav, 44 bytes, from GET /files/{id}"},
		{"pdf", "application/pdf", pdf, []string{"resource-blob"}, "application/pdf, 18 bytes"},
		{"csv", "text/csv; charset=utf-8", []byte("id,name\n1,Rex\n"), []string{"resource-text"}, "text/csv, 14 bytes"},
		{"plain", "text/plain", []byte("Rex is a good dog."), []string{"resource-text"}, "text/plain, 18 bytes"},
		{"unlabelled binary", "", pdf, []string{"resource-blob"}, "application/pdf, 18 bytes"},
		{"multipart", "multipart/mixed; boundary=XyZ", []byte("--XyZ\r\nContent-Type: text/plain\r\n\r\nMultiple content types test:\r\n--XyZ\r\nContent-Type: image/png\r\n\r\n" + string(testPNG) + "\r\n--XyZ\r\nContent-Type: application/json\r\n\r\n{\"test\":\"data\",\"value\":123}\r\n--XyZ--\r\n"),
			[]string{"resource-text", "image", "resource-text"}, "multipart/mixed, 3 parts (text/plain, 28 bytes; image/png, 70 bytes; application/json, 27 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up.set(tc.ct, tc.body)
			res := callFile(t, cs)
			if res.IsError {
				t.Fatalf("isError: %s", contentText(res))
			}
			lead, ok := res.Content[0].(*mcp.TextContent)
			if !ok || !strings.Contains(lead.Text, tc.summary) {
				t.Fatalf("first item %#v, want a summary with %q", res.Content[0], tc.summary)
			}
			if got := contentKinds(res.Content[1:]); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("content %v, want %v", got, tc.want)
			}
			if tc.name == "png" {
				img := res.Content[1].(*mcp.ImageContent)
				if !bytes.Equal(img.Data, testPNG) || img.MIMEType != "image/png" {
					t.Fatalf("image %q %d bytes, want the PNG sent", img.MIMEType, len(img.Data))
				}
			}
			if tc.name == "wav" && res.Content[1].(*mcp.AudioContent).MIMEType != "audio/wav" {
				t.Fatalf("audio type %q, want audio/wav as sent", res.Content[1].(*mcp.AudioContent).MIMEType)
			}
			for _, c := range res.Content[1:] {
				if er, ok := c.(*mcp.EmbeddedResource); ok && !strings.HasPrefix(er.Resource.URI, callScheme+"get_file/files/a1") {
					t.Fatalf("embedded resource URI %q does not name the call", er.Resource.URI)
				}
			}
		})
	}
}

// TestMediaRefused: a body that lies about being an image, or a cut
// multipart body, is an error in the tool's terms.
func TestMediaRefused(t *testing.T) {
	up := &mediaUpstream{}
	_, cs := mediaServer(t, up)
	for _, tc := range []struct{ name, ct, body, want string }{
		{"html labelled png", "image/png", "<html><body>Login</body></html>", "whose bytes are text"},
		{"json labelled audio", "audio/wav", `{"error":"not found"}`, "whose bytes are text"},
		{"cut multipart", "multipart/mixed; boundary=b", "--b\r\nContent-Type: text/plain\r\n\r\nhalf", "incomplete or malformed"},
		{"multipart without boundary", "multipart/mixed", "--b\r\n\r\nx\r\n--b--\r\n", "incomplete or malformed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up.set(tc.ct, []byte(tc.body))
			res := callFile(t, cs)
			if !res.IsError || !strings.Contains(contentText(res), tc.want) || !strings.Contains(contentText(res), "get_file") {
				t.Fatalf("result %v %q, want isError naming get_file and saying %q", res.IsError, contentText(res), tc.want)
			}
		})
	}
}

// TestMediaOverCap: an item over its media cap is stored and linked,
// never inlined, and resources/read returns exactly the bytes sent.
func TestMediaOverCap(t *testing.T) {
	up := &mediaUpstream{}
	_, cs := mediaServer(t, up)
	big := append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte{0, 0xff}, maxBlobBytes)...)
	up.set("application/pdf", big)
	res := callFile(t, cs)
	if res.IsError {
		t.Fatalf("isError: %s", contentText(res))
	}
	link, ok := res.Content[1].(*mcp.ResourceLink)
	if !ok || len(res.Content) != 2 {
		t.Fatalf("content %v, want the summary and a link", contentKinds(res.Content))
	}
	if !strings.Contains(contentText(res), "over the 256 KiB this server returns inline") {
		t.Fatalf("summary %q does not say the item is linked", contentText(res))
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: link.URI})
	if err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0]; !bytes.Equal(got.Blob, big) || got.MIMEType != "application/pdf" {
		t.Fatalf("read back %q %d bytes, want the %d bytes sent", got.MIMEType, len(got.Blob), len(big))
	}
}

// TestMediaFastPathOff: a tool declaring media answers through the SDK.
func TestMediaFastPathOff(t *testing.T) {
	srv, _ := mediaServer(t, &mediaUpstream{})
	if fastTool(srv.tools["get_file"]) {
		t.Fatal("a tool declaring image/png takes the fast path")
	}
}

// TestMediaSeeded: random upstream answers (media type, size around the
// caps, random bytes, lying Content-Type, cut multipart) give valid MCP
// content of the right type, every inline item within its cap, or an
// isError naming the tool; the server serves on.
func TestMediaSeeded(t *testing.T) {
	seed := testseed.Seed(t)
	r := rand.New(rand.NewPCG(seed, 22))
	up := &mediaUpstream{}
	_, cs := mediaServer(t, up)
	for i := range 60 {
		ct, body := randomMedia(r)
		up.set(ct, body)
		res := callFile(t, cs)
		if msg := checkMediaResult(res, ct, body); msg != "" {
			t.Fatalf("seed %d, case %d: Content-Type %q, %d bytes (head %q): %s", seed, i, ct, len(body), body[:min(len(body), 40)], msg)
		}
	}
	up.set("image/png", testPNG)
	if res := callFile(t, cs); res.IsError {
		t.Fatalf("seed %d: the server does not serve on: %s", seed, contentText(res))
	}
}

// checkMediaResult is the invariant of TestMediaSeeded; "" when it holds.
func checkMediaResult(res *mcp.CallToolResult, ct string, body []byte) string {
	if res.IsError {
		if !strings.Contains(contentText(res), "get_file") {
			return "isError that does not name the tool: " + contentText(res)
		}
		return ""
	}
	if len(res.Content) == 0 {
		return "no content"
	}
	if _, ok := res.Content[0].(*mcp.TextContent); !ok {
		return "the first item is no summary text"
	}
	base := media.Base(ct)
	for _, c := range res.Content[1:] {
		p, inline := contentPart(c)
		switch x := c.(type) {
		case *mcp.ImageContent:
			if !strings.HasPrefix(x.MIMEType, "image/") {
				return "image content of type " + x.MIMEType
			}
		case *mcp.AudioContent:
			if !strings.HasPrefix(x.MIMEType, "audio/") {
				return "audio content of type " + x.MIMEType
			}
		case *mcp.EmbeddedResource:
			if x.Resource.MIMEType == "" || x.Resource.URI == "" {
				return "embedded resource without type or URI"
			}
			if strings.HasPrefix(x.Resource.MIMEType, "image/") || strings.HasPrefix(x.Resource.MIMEType, "audio/") {
				return "an image or audio as an embedded resource"
			}
		case *mcp.ResourceLink:
			if !strings.HasPrefix(x.URI, resultScheme) || x.Size == nil || *x.Size <= int64(maxMediaBytes(classOf(mediaPart{mediaType: x.MIMEType}))) {
				return fmt.Sprintf("link %q of %v bytes", x.URI, x.Size)
			}
		case *mcp.TextContent:
			if !strings.HasPrefix(base, "text/") && base != "" && !media.IsJSON(base) {
				return "a text item for " + base
			}
		}
		if inline && len(p.data) > maxMediaBytes(classOf(p)) {
			return fmt.Sprintf("%s inline with %d bytes, over its cap", p.mediaType, len(p.data))
		}
	}
	if !strings.HasPrefix(base, "multipart/") && len(res.Content) == 2 {
		if p, ok := contentPart(res.Content[1]); ok && !bytes.Equal(p.data, body) {
			return "the item does not carry the bytes sent"
		}
		_, image := res.Content[1].(*mcp.ImageContent)
		_, link := res.Content[1].(*mcp.ResourceLink)
		if strings.HasPrefix(base, "image/") && !image && !(link && len(body) > maxImageBytes) {
			return "an image/* body is not image content"
		}
	}
	return ""
}

// randomMedia draws an upstream answer: a media type (some lying, some
// missing), a size around one of the caps, random or textual bytes, and
// multipart bodies whole or cut.
func randomMedia(r *rand.Rand) (string, []byte) {
	types := []string{"image/png", "image/jpeg", "audio/wav", "audio/mpeg", "application/pdf", "application/zip",
		"text/csv", "text/plain; charset=utf-8", "application/xml", "", "IMAGE/PNG", "image/png; x=\"", "multipart/mixed; boundary=zz"}
	ct := types[r.IntN(len(types))]
	caps := []int{maxBlobBytes, maxTextBytes, maxImageBytes, 64}
	size := max(1, caps[r.IntN(len(caps))]+r.IntN(9)-4)
	body := make([]byte, size)
	switch r.IntN(3) {
	case 0: // random bytes
		for i := range body {
			body[i] = byte(r.IntN(256))
		}
	case 1: // text
		for i := range body {
			body[i] = byte('a' + r.IntN(26))
		}
	default: // a real image, padded
		copy(body, testPNG)
	}
	if strings.HasPrefix(ct, "multipart/") {
		part := "--zz\r\nContent-Type: " + types[r.IntN(5)] + "\r\n\r\n" + string(body[:min(len(body), 4096)]) + "\r\n"
		full := part + part + "--zz--\r\n"
		return ct, []byte(full[:len(full)-r.IntN(2)*r.IntN(len(full))])
	}
	return ct, body
}

// contentKinds names content items: text, image, audio, resource-text,
// resource-blob, link.
func contentKinds(cs []mcp.Content) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		switch x := c.(type) {
		case *mcp.TextContent:
			out[i] = "text"
		case *mcp.ImageContent:
			out[i] = "image"
		case *mcp.AudioContent:
			out[i] = "audio"
		case *mcp.EmbeddedResource:
			out[i] = "resource-text"
			if x.Resource.Blob != nil {
				out[i] = "resource-blob"
			}
		case *mcp.ResourceLink:
			out[i] = "link"
		default:
			out[i] = fmt.Sprintf("%T", c)
		}
	}
	return out
}

// contentText joins the text items of a result.
func contentText(res *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// TestStepMediaInOrder: a task tool whose steps answer JSON, an image and
// a PDF returns the merged JSON, then each step's media after its
// summary, in step order.
func TestStepMediaInOrder(t *testing.T) {
	pdf := []byte("%PDF-1.4\n\x00\xff")
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/photo":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write(testPNG)
		case "/certificate":
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = w.Write(pdf)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"name":"Rex"}`))
		}
	}))
	t.Cleanup(hs.Close)
	step := func(id, path, media string) Step {
		return Step{ID: id, Op: Operation{Method: "GET", Path: path, ResponseMedia: media}}
	}
	spec := &ServerDef{Name: "media", EnvPrefix: "MEDIA", DefaultBaseURL: hs.URL,
		Tools: []*Tool{{Name: "pet_file", Description: "Everything on a pet.", ReadOnly: true, InputSchema: objSchema(``),
			Steps: []Step{step("pet", "/pet", ""), step("photo", "/photo", "image/png"), step("certificate", "/certificate", "application/pdf")}}}}
	srv, err := NewServer(spec, Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if fastTool(srv.tools["pet_file"]) {
		t.Fatal("a task tool with media steps takes the fast path")
	}
	cs := connect(t, srv, "")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "pet_file", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %s", err, contentText(res))
	}
	if got := strings.Join(contentKinds(res.Content), ","); got != "text,text,image,text,resource-blob" {
		t.Fatalf("content %s, want the JSON, then the photo and the certificate with their summaries", got)
	}
	if !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"Rex"`) || !strings.Contains(res.Content[1].(*mcp.TextContent).Text, "image/png, 70 bytes, from GET /photo") {
		t.Fatalf("texts %q / %q", res.Content[0].(*mcp.TextContent).Text, res.Content[1].(*mcp.TextContent).Text)
	}
}

// BenchmarkMediaCall: one tools/call returning a 512 KiB image (base64 on
// the wire) through the in-memory transport, against a real upstream.
func BenchmarkMediaCall(b *testing.B) {
	up := &mediaUpstream{}
	img := append(append([]byte(nil), testPNG...), bytes.Repeat([]byte{0x5a}, 512<<10)...)
	up.set("image/png", img)
	_, cs := mediaServer(b, up)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_file", Arguments: map[string]any{"id": "a1"}})
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}
