package discover_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/strictyaml"
	"github.com/oa2mcp/oa2mcp/internal/testenv"
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// The evaluation set (testdata/discovery/eval/*.yaml): requests as users
// phrase them, each with the operationIds that count as right. The
// targets: over all requests, the right operation first for 70% and
// among the first five for 90%. Each spec must also stay above a floor,
// well below the targets, so that one API's ranking cannot collapse
// unseen behind the others' (box.yaml, written after the ranking was
// tuned on the other four, sits near it: see docs/discovery.md).
const (
	wantRecall1      = 0.70
	wantRecall5      = 0.90
	specFloorRecall1 = 0.40
	specFloorRecall5 = 0.70
)

// evalSet is one file of the evaluation set.
type evalSet struct {
	// Spec is the corpus entry file.
	Spec     string        `yaml:"spec"`
	Requests []evalRequest `yaml:"requests"`
}

type evalRequest struct {
	Query string   `yaml:"query"`
	Want  []string `yaml:"want"`
}

// evalSpec is one evaluated spec: its set and discovery server.
type evalSpec struct {
	name     string
	set      evalSet
	def      *runtime.Discovery
	searcher *oa2mcpimpl.Searcher
}

// recall is how a spec's requests fared.
type recall struct {
	requests, first, top5 int
	misses                []string
	// took is the time of all the searches.
	took time.Duration
}

// meanSearch is the mean time of one search.
func (r recall) meanSearch() time.Duration { return r.took / time.Duration(max(r.requests, 1)) }

func (r recall) at1() float64 { return float64(r.first) / float64(max(r.requests, 1)) }
func (r recall) at5() float64 { return float64(r.top5) / float64(max(r.requests, 1)) }

var (
	specsOnce sync.Once
	specs     []*evalSpec
	specsErr  error
)

// loadSpecs reads the evaluation set and builds each spec's discovery
// server, once per test binary: Kubernetes takes a few seconds.
func loadSpecs(t testing.TB) []*evalSpec {
	t.Helper()
	root := testenv.RepoRoot(t)
	corpus := testenv.CorpusDir(t)
	specsOnce.Do(func() { specs, specsErr = buildSpecs(t, root, corpus) })
	if specsErr != nil {
		t.Fatal(specsErr)
	}
	return specs
}

func buildSpecs(t testing.TB, root, corpus string) ([]*evalSpec, error) {
	return buildSet(t, filepath.Join(root, "testdata", "discovery", "eval"), corpus, 4)
}

// buildSet builds the evaluated specs of every request file in dir,
// wanting at least min files.
func buildSet(t testing.TB, dir, corpus string, min int) ([]*evalSpec, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) < min {
		return nil, fmt.Errorf("want at least %d evaluation files in %s, found %d (%v)", min, dir, len(files), err)
	}
	var out []*evalSpec
	for _, f := range files {
		es, err := buildSpec(t, f, corpus)
		if err != nil {
			return nil, err
		}
		out = append(out, es)
	}
	return out, nil
}

func buildSpec(t testing.TB, file, corpus string) (*evalSpec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	es := &evalSpec{name: strings.TrimSuffix(filepath.Base(file), ".yaml")}
	if p := strictyaml.Decode(file, data, &es.set); p.HasErrors() {
		return nil, p.Errors()
	}
	doc, problems := load.Load(context.Background(), specFile(t, es.set.Spec, corpus), load.Options{})
	if problems.HasErrors() {
		return nil, fmt.Errorf("%s: %v", es.set.Spec, problems.Errors())
	}
	srv, problems := mapping.Build(doc, mapping.Config{Name: es.name, Discover: true})
	if problems.HasErrors() {
		return nil, fmt.Errorf("%s: %v", es.set.Spec, problems.Errors())
	}
	es.def = srv.Discovery
	if es.searcher, err = oa2mcpimpl.NewSearcher(es.def); err != nil {
		return nil, err
	}
	return es, es.check()
}

// specFile is the file of a request set's spec: a corpus entry, or a
// file an npm package ("npm:") or a Go module ("gomod:") ships.
func specFile(t testing.TB, spec, corpus string) string {
	if pkgPath, ok := strings.CutPrefix(spec, "npm:"); ok {
		// A spec an npm package ships, installed by scripts/install-deps.sh.
		return testenv.NpmFile(t, pkgPath)
	}
	if modPath, ok := strings.CutPrefix(spec, "gomod:"); ok {
		// A spec a Go module ships, downloaded by scripts/install-deps.sh.
		return testenv.GoModFile(t, modPath)
	}
	return filepath.Join(corpus, spec)
}

// check refuses a request whose wanted ids the spec does not have: a
// typo would count as a miss forever.
func (es *evalSpec) check() error {
	ids := map[string]bool{}
	for _, op := range es.def.Operations {
		ids[op.Tool.Op.OperationID] = true
	}
	for _, r := range es.set.Requests {
		if len(r.Want) == 0 {
			return fmt.Errorf("%s: %q wants nothing", es.name, r.Query)
		}
		for _, id := range r.Want {
			if !ids[id] {
				return fmt.Errorf("%s: %q wants %s, which the spec has no operation for", es.name, r.Query, id)
			}
		}
	}
	return nil
}

// run searches every request of the spec.
func (es *evalSpec) run() recall { return es.runWhere(func(evalRequest) bool { return true }) }

// runWhere searches the requests of the spec that keep selects.
func (es *evalSpec) runWhere(keep func(evalRequest) bool) recall {
	var r recall
	for _, req := range es.set.Requests {
		if !keep(req) {
			continue
		}
		r.requests++
		start := time.Now()
		hits := es.searcher.Search(req.Query, 5)
		r.took += time.Since(start)
		rank := -1
		var got []string
		for i, h := range hits {
			id := h.Operation.Tool.Op.OperationID
			got = append(got, id)
			if rank < 0 && contains(req.Want, id) {
				rank = i
			}
		}
		switch {
		case rank == 0:
			r.first++
			r.top5++
		case rank > 0:
			r.top5++
			r.misses = append(r.misses, fmt.Sprintf("%q: rank %d, want %v, got %v", req.Query, rank+1, req.Want, got))
		default:
			r.misses = append(r.misses, fmt.Sprintf("%q: not in top 5, want %v, got %v", req.Query, req.Want, got))
		}
	}
	return r
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSearchQuality fails when the search misses the targets, over all
// requests or for any one spec.
func TestSearchQuality(t *testing.T) {
	var total recall
	requests := 0
	for _, es := range loadSpecs(t) {
		r := es.run()
		t.Logf("%-13s %3d operations %3d requests  recall@1 %.2f  recall@5 %.2f", es.name, len(es.def.Operations), r.requests, r.at1(), r.at5())
		for _, m := range r.misses {
			t.Logf("  %s", m)
		}
		if r.at1() < specFloorRecall1 || r.at5() < specFloorRecall5 {
			t.Errorf("%s: recall@1 %.2f, recall@5 %.2f; want at least %.2f and %.2f", es.name, r.at1(), r.at5(), specFloorRecall1, specFloorRecall5)
		}
		total.requests += r.requests
		total.first += r.first
		total.top5 += r.top5
		requests += len(es.set.Requests)
	}
	if requests < 60 {
		t.Errorf("the evaluation set has %d requests; want at least 60", requests)
	}
	t.Logf("all           %3d requests  recall@1 %.2f  recall@5 %.2f", total.requests, total.at1(), total.at5())
	if total.at1() < wantRecall1 || total.at5() < wantRecall5 {
		t.Errorf("overall recall@1 %.2f, recall@5 %.2f; want at least %.2f and %.2f", total.at1(), total.at5(), wantRecall1, wantRecall5)
	}
}

// BenchmarkSearch measures one search per spec and prints the spec's
// recall@1 and recall@5 and its mean search time.
func BenchmarkSearch(b *testing.B) {
	for _, es := range loadSpecs(b) {
		r := es.run()
		b.Run(es.name, func(b *testing.B) {
			queries := make([]string, len(es.set.Requests))
			for i, req := range es.set.Requests {
				queries[i] = req.Query
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				es.searcher.Search(queries[i%len(queries)], 5)
			}
			b.ReportMetric(r.at1(), "recall@1")
			b.ReportMetric(r.at5(), "recall@5")
		})
		fmt.Printf("%s: %d operations, recall@1 %.2f, recall@5 %.2f\n", es.name, len(es.def.Operations), r.at1(), r.at5())
	}
}

// TestSearchLatency keeps searches of the largest spec fast: the median
// request under 5 ms and the slowest under 25 ms, each the best of five
// runs.
func TestSearchLatency(t *testing.T) {
	all := loadSpecs(t)
	sort.Slice(all, func(i, j int) bool { return len(all[i].def.Operations) > len(all[j].def.Operations) })
	es := all[0]
	if len(es.def.Operations) < 1000 {
		t.Fatalf("largest evaluated spec %s has %d operations; want one of at least 1,000", es.name, len(es.def.Operations))
	}
	// Each request's time is its best of five runs (the others waited for
	// the CPU); the median must stay under 5 ms and the slowest under
	// 25 ms, so that a loaded machine running other packages at once does
	// not fail a search that is fast.
	times := make([]time.Duration, 0, len(es.set.Requests))
	for _, req := range es.set.Requests {
		best := time.Hour
		for range 5 {
			start := time.Now()
			es.searcher.Search(req.Query, 20)
			best = min(best, time.Since(start))
		}
		times = append(times, best)
	}
	slices.Sort(times)
	median, worst := times[len(times)/2], times[len(times)-1]
	t.Logf("%s (%d operations): median search %s, slowest %s", es.name, len(es.def.Operations), median, worst)
	if median > 5*time.Millisecond || worst > 25*time.Millisecond {
		t.Errorf("searches of %s took %s (median) and %s (slowest); want under 5 ms and 25 ms", es.name, median, worst)
	}
}
