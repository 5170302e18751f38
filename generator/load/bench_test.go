package load

import (
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// plainKinLoad is the baseline: what kin-openapi alone does with a file.
func plainKinLoad(t testing.TB, path string, swagger, origin bool) {
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

// BenchmarkLoad compares Load with a plain kin-openapi load of the same
// file in the same run: go test -run '^$' -bench Load ./generator/load.
// The goal is Load within 1.5x of "kin". Load runs kin without origin
// tracking and reads positions from the raw text; "kin+origins" is kept to
// show what origins alone would cost. The ratios are what matters on this
// noisy machine; see docs/benchmarks.md.
func BenchmarkLoad(b *testing.B) {
	for _, e := range []struct {
		file    string
		swagger bool
	}{{"kubernetes-2.0.json", true}, {"openai-3.1.yaml", false}, {"stripe-2018-3.0.yaml", false}} {
		path := corpus(b, e.file)
		b.Run(e.file+"/kin", func(b *testing.B) {
			for range b.N {
				plainKinLoad(b, path, e.swagger, false)
			}
		})
		b.Run(e.file+"/kin+origins", func(b *testing.B) {
			for range b.N {
				plainKinLoad(b, path, e.swagger, true)
			}
		})
		b.Run(e.file+"/Load", func(b *testing.B) {
			for range b.N {
				loadOK(b, path)
			}
		})
	}
}
