package load

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// kinReads reports whether kin-openapi, on its own, decodes the document
// at path (every $ref resolved) and whether it finds it valid (examples aside: their checking is about data,
// not about the document's structure the tolerant pass rewrites). A Swagger
// 2.0 document is validated as its OpenAPI 3 conversion.
func kinReads(t *testing.T, path string) (decodes, valid bool, why string) {
	t.Helper()
	ctx := context.Background()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kl := openapi3.NewLoader()
	kl.IsExternalRefsAllowed = true
	var doc *openapi3.T
	info, _ := sniffJSON(data)
	if !looksJSON(data) {
		info, _ = sniffYAML(data)
	}
	if info.version == "2.0" {
		var d2 openapi2.T
		if err = openapi2.UnmarshalFromData(data, &d2); err == nil {
			doc, err = openapi2conv.ToV3WithLoader(&d2, kl, &url.URL{Path: filepath.ToSlash(path)})
		}
	} else {
		doc, err = kl.LoadFromFile(path)
	}
	if err != nil {
		return false, false, err.Error()
	}
	if err = doc.Validate(ctx, openapi3.DisableExamplesValidation()); err != nil {
		return true, false, err.Error()
	}
	return true, true, ""
}

// assertUntouched loads path and fails when the tolerant pass changed a
// byte of any file the load read, or, for a valid document, reported a
// repair (an invalid one may get warnings about what makes it invalid).
func assertUntouched(t *testing.T, path string, valid bool) {
	t.Helper()
	if msg := untouched(path, valid); msg != "" {
		t.Errorf("%s: %s", path, msg)
	}
}

// isRepairWarning tells a warning of the tolerant pass by its wording:
// every repair says how it read the defect ("read as ...", "ignored",
// "replaced by ...").
func isRepairWarning(text string) bool {
	for _, s := range []string{"read as", "ignored", "replaced by"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}

// firstDifference shows the line where b first differs from a.
func firstDifference(a, b []byte) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	line := bytes.Count(a[:n], []byte("\n")) + 1
	return "line " + strconv.Itoa(line) + ": " + quote(lineAt(a, n)) + " became " + quote(lineAt(b, n))
}

func lineAt(data []byte, off int) string {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data) - off
	}
	return string(data[start : off+end])
}

// TestTolerantPassChangesNoValidCorpusDocument is the differential test:
// for every corpus document kin-openapi validates by itself, loading
// through the tolerant pass changes no byte of any of its files. So for
// those kin decodes but finds invalid for reasons of meaning (duplicate
// operation ids, conflicting paths), which no repair is about.
func TestTolerantPassChangesNoValidCorpusDocument(t *testing.T) {
	dir := testenv.CorpusDir(t)
	valid, decoded := 0, 0
	for _, e := range testenv.Corpus() {
		path := filepath.Join(dir, e.Path)
		decodes, ok, why := kinReads(t, path)
		switch {
		case !decodes:
			t.Logf("%s: kin-openapi cannot decode it, so repairs are allowed: %.160s", e.Name, why)
			continue
		case ok:
			valid++
		default:
			decoded++
			t.Logf("%s: decoded but not valid for kin-openapi (%.100s); checked all the same", e.Name, why)
		}
		t.Run(e.Name, func(t *testing.T) { assertUntouched(t, path, ok) })
	}
	t.Logf("%d of %d corpus documents valid for kin-openapi and %d more decoded, each loaded untouched", valid, len(testenv.Corpus()), decoded)
	if valid == 0 {
		t.Fatal("no corpus document is valid for kin-openapi: the differential test compared nothing")
	}
}

// TestTolerantPassChangesNoValidTestdata runs the same check over the
// golden documents written to look like defects without being any.
func TestTolerantPassChangesNoValidTestdata(t *testing.T) {
	path := filepath.Join(testenv.RepoRoot(t), "testdata", "geojson", "openapi.yaml")
	if _, ok, why := kinReads(t, path); !ok {
		t.Fatalf("testdata/geojson is meant to be valid: %s", why)
	}
	assertUntouched(t, path, true)
}
