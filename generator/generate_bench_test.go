package generator_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// BenchmarkGenerate is one whole in-process generation (load, mapping,
// call cases and their proof, emit) of corpus specs, the part of
// `oa2mcp generate` that profiles show; $OA2MCP_BENCH_SPECS (comma
// separated corpus paths) picks other specs. For a profile:
//
//	go test ./generator -run '^$' -bench Generate/kubernetes -cpuprofile /tmp/gen.pprof
func BenchmarkGenerate(b *testing.B) {
	specs := []string{"oai-petstore-3.0.yaml", "swagger-petstore-3.0.yaml", "go-admin-2.0.json", "stripe-2018-3.0.yaml", "kubernetes-2.0.json"}
	if env := os.Getenv("OA2MCP_BENCH_SPECS"); env != "" {
		specs = strings.Split(env, ",")
	}
	dir := testenv.CorpusDir(b)
	for _, s := range specs {
		path := filepath.Join(dir, s)
		b.Run(strings.TrimSuffix(filepath.Base(s), filepath.Ext(s)), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				doc, problems := load.Load(context.Background(), path, load.Options{})
				if problems.HasErrors() {
					b.Fatal(problems.Errors())
				}
				if _, problems := generator.Generate(doc, generator.Config{Name: "x", Package: "x"}); problems.HasErrors() {
					b.Fatal(problems.Errors())
				}
			}
		})
	}
}
