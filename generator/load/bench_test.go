package load

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// plainKinLoad is the baseline: what kin-openapi alone does with a file.
func plainKinLoad(t *testing.T, path string, swagger, origin bool) {
	t.Helper()
	kl := openapi3.NewLoader()
	kl.IsExternalRefsAllowed = true
	kl.IncludeOrigin = origin
	if !swagger {
		if _, err := kl.LoadFromFile(path); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d2 openapi2.T
	if err := openapi2.UnmarshalFromData(b, &d2); err != nil {
		t.Fatal(err)
	}
	if _, err := openapi2conv.ToV3WithLoader(&d2, kl, nil); err != nil {
		t.Fatal(err)
	}
}

// TestLoadTime compares Load with a plain kin-openapi load in the same
// run and fails beyond 1.5x of kin with origin tracking on (positions
// need it; its cost is kin's). The no-origin time is logged too.
func TestLoadTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test skipped in -short mode")
	}
	for _, e := range []struct {
		file    string
		swagger bool
	}{{"kubernetes-2.0.json", true}, {"openai-3.1.yaml", false}, {"stripe-2018-3.0.yaml", false}} {
		path := corpus(t, e.file)
		start := time.Now()
		plainKinLoad(t, path, e.swagger, false)
		bare := time.Since(start)
		start = time.Now()
		plainKinLoad(t, path, e.swagger, true)
		kin := time.Since(start)
		start = time.Now()
		loadOK(t, path)
		ours := time.Since(start)
		ratio := float64(ours) / float64(kin)
		t.Logf("%s: kin %v, kin+origins %v, Load %v, ratio %.2f (vs bare %.2f)", filepath.Base(path),
			bare.Round(time.Millisecond), kin.Round(time.Millisecond), ours.Round(time.Millisecond), ratio, float64(ours)/float64(bare))
		if ratio > 1.5 {
			t.Errorf("%s: Load takes %.2fx kin's time", e.file, ratio)
		}
	}
}
