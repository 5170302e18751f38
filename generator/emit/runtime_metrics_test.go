package emit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator/ir"
)

func TestRuntimeMetricsFile(t *testing.T) {
	for _, on := range []bool{false, true} {
		srv := &ir.Server{Name: "x", Package: "x", Metrics: on}
		files := map[string][]byte{}
		if err := addRuntime(srv, files); err != nil {
			t.Fatal(err)
		}
		src, ok := files["oa2mcp_runtime_metrics_prometheus.go"]
		if ok != on {
			t.Fatalf("Metrics=%v: metrics file copied=%v", on, ok)
		}
		for name, f := range files {
			if bytes.Contains(f, []byte("//go:build")) {
				t.Errorf("%s keeps a build constraint", name)
			}
			if !on && bytes.Contains(f, []byte("prometheus/client_golang")) {
				t.Errorf("%s imports client_golang without Metrics", name)
			}
		}
		if on && !strings.Contains(string(src), "func init() { newMetricsSink = newPrometheusSink }") {
			t.Errorf("metrics file content:\n%s", src)
		}
	}
	if !hasBuildTag([]byte("//go:build oa2mcp_prometheus && !js\n\npackage rt\n"), metricsTag) || hasBuildTag([]byte("package rt\n// oa2mcp_prometheus\n"), metricsTag) {
		t.Error("hasBuildTag")
	}
}
