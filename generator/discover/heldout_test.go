package discover_test

import (
	"crypto/sha256"
	"path/filepath"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// The held-out request set (testdata/discovery/requests, see its
// README.md): written before the ranking changes it measures and split
// by a fixed hash into a tuning half and a frozen half. The floors below
// are each half's figures measured after intent weighting and the
// generation-time vocabulary (tuning 0.60 and 0.89, frozen 0.54 and
// 0.80), less a margin of about one request: they catch a ranking change
// that makes discovery worse, on requests nobody tuned on above all. The
// targets of the search (recall@5 0.87 and recall@1 0.6 on the frozen
// half) are printed beside them. GitHub's REST API (1,221 operations,
// 38 requests) joined the set afterwards, written before any change it
// measures, at tuning 0.39 and 0.56, frozen 0.35 and 0.50; the floors
// are the seven APIs' figures then (tuning 0.56 and 0.82, frozen 0.50
// and 0.74), less the same margin. Okta, Gitea and Vault (340, 482 and
// 1,049 operations, 26 requests each) joined last, likewise written
// before any change they measure; the ten APIs measured tuning 0.48 and
// 0.75, frozen 0.44 and 0.65, and after the verbs, vocabulary and
// reading of docs/discovery.md ("Quality") tuning 0.54 and 0.84, frozen
// 0.46 and 0.70; the floors are those, less a margin of about two
// requests (the tuning half's recall@1 since reading the name after
// "called" and e-mail addresses and URLs as values: 0.57).
const (
	tuningFloorRecall1 = 0.55
	tuningFloorRecall5 = 0.82
	frozenFloorRecall1 = 0.44
	frozenFloorRecall5 = 0.68
	heldOutGoalRecall1 = 0.60
	heldOutGoalRecall5 = 0.87
)

// frozen reports whether a request belongs to the frozen half: the first
// byte of the SHA-256 of its query is odd.
func frozen(req evalRequest) bool {
	sum := sha256.Sum256([]byte(req.Query))
	return sum[0]&1 == 1
}

// TestSearchHeldOut prints recall@1 and recall@5 per spec and half of the
// held-out set and fails when either half falls below its floor.
func TestSearchHeldOut(t *testing.T) {
	root := testenv.RepoRoot(t)
	all, err := buildSet(t, filepath.Join(root, "testdata", "discovery", "requests"), testenv.CorpusDir(t), 6)
	if err != nil {
		t.Fatal(err)
	}
	halves := []struct {
		name           string
		keep           func(evalRequest) bool
		floor1, floor5 float64
	}{
		{"tuning", func(r evalRequest) bool { return !frozen(r) }, tuningFloorRecall1, tuningFloorRecall5},
		{"frozen", frozen, frozenFloorRecall1, frozenFloorRecall5},
	}
	requests := 0
	for _, half := range halves {
		var total recall
		for _, es := range all {
			r := es.runWhere(half.keep)
			t.Logf("%s %-13s %4d operations %3d requests  recall@1 %.2f  recall@5 %.2f  mean search %s  index %d bytes", half.name, es.name, len(es.def.Operations), r.requests, r.at1(), r.at5(), r.meanSearch().Round(10*time.Microsecond), len(es.def.Index))
			if half.name == "tuning" {
				for _, m := range r.misses {
					t.Logf("  %s", m)
				}
			}
			total.requests += r.requests
			total.first += r.first
			total.top5 += r.top5
		}
		requests += total.requests
		t.Logf("%s all           %3d requests  recall@1 %.2f  recall@5 %.2f (goal %.2f and %.2f)", half.name, total.requests, total.at1(), total.at5(), heldOutGoalRecall1, heldOutGoalRecall5)
		if total.at1() < half.floor1 || total.at5() < half.floor5 {
			t.Errorf("%s half: recall@1 %.2f, recall@5 %.2f; want at least %.2f and %.2f", half.name, total.at1(), total.at5(), half.floor1, half.floor5)
		}
	}
	if requests < 150 {
		t.Errorf("the held-out set has %d requests; want at least 150", requests)
	}
}
