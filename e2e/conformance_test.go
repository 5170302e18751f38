//go:build linux && e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// conformanceScenario is one scenario of the official MCP conformance suite
// (server mode) at one spec version; xmcpOnly scenarios need a tool with an
// x-mcp-header parameter and run only against servers that have one.
type conformanceScenario struct {
	name, spec string
	xmcpOnly   bool
}

// conformanceScenarios are the scenarios that need no fixture tools of the
// suite's own, so they say something about any generated server. See
// docs/external-clients.md.
var conformanceScenarios = []conformanceScenario{
	{"tools-list", "2026-07-28", false},
	{"server-stateless", "2026-07-28", false},
	{"http-header-validation", "2026-07-28", false},
	{"http-custom-header-server-validation", "2026-07-28", true},
	{"caching", "2026-07-28", false},
	{"dns-rebinding-protection", "2026-07-28", false},
	{"server-initialize", "2025-11-25", false},
	{"ping", "2025-11-25", false},
}

// conformanceBaseline is the expected-failures file, relative to the root.
const conformanceBaseline = "e2e/conformance-baseline.yml"

// conformanceCheck is one entry of the suite's checks.json.
type conformanceCheck struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Description  string `json:"description"`
	ErrorMessage string `json:"errorMessage"`
}

// TestConformance runs the official MCP conformance suite against the
// generated petstore server over Streamable HTTP, one scenario at a time,
// with e2e/conformance-baseline.yml as the expected failures. The suite
// exits non-zero on a failure the baseline does not list and on a baseline
// entry that now passes (stale), and either fails the subtest.
func TestConformance(t *testing.T) {
	x := requireExternalTools(t)
	bins := buildPetstore(t, x.root)
	servers := []struct {
		name, url string
		xmcp      bool
	}{
		{"petstore", startMCPServer(t, bins, startBackend(t, bins)), false},
		// The suite sends no token: development mode serves the scoped tools.
		{"aftersales", startAftersales(t, x.root, "--insecure-no-auth"), true},
	}
	baseline := filepath.Join(x.root, conformanceBaseline)
	for _, srv := range servers {
		for _, sc := range conformanceScenarios {
			if sc.xmcpOnly && !srv.xmcp {
				continue
			}
			runScenario(t, x, srv.name, srv.url, sc, baseline)
		}
	}
}

// runScenario runs one conformance scenario against one server and
// returns its checks.
func runScenario(t *testing.T, x *externalTools, server, mcpURL string, sc conformanceScenario, baseline string) []conformanceCheck {
	var checks []conformanceCheck
	t.Run(server+"/"+sc.name+"@"+sc.spec, func(t *testing.T) {
		out := t.TempDir()
		res := x.runNode(t, 2*time.Minute, x.conformance, "server",
			"--url", mcpURL, "--scenario", sc.name, "--spec-version", sc.spec,
			"--expected-failures", baseline, "--output-dir", out)
		text := plain(res.stdout + res.stderr)
		checks = readConformanceChecks(t, out)
		// An explicitly requested version outside a scenario's window
		// makes the suite skip it with exit 0: insist on real checks.
		if len(checks) == 0 {
			t.Fatalf("conformance %s at %s ran no check (exit %d):\n%s", sc.name, sc.spec, res.code, truncate(text, 6000))
		}
		t.Logf("%s at %s: %s in %s", sc.name, sc.spec, summarizeChecks(checks), res.elapsed.Round(time.Millisecond))
		for _, c := range checks {
			if c.Status == "FAILURE" || c.Status == "WARNING" {
				t.Logf("  %s %s: %s %s", c.Status, c.ID, c.Description, c.ErrorMessage)
			}
		}
		if res.code != 0 {
			t.Errorf("conformance %s at %s exited %d: a failure %s does not list, or an entry there that now passes (remove it)\n%s",
				sc.name, sc.spec, res.code, conformanceBaseline, truncate(baselineVerdict(text), 8000))
		}
	})
	return checks
}

// readConformanceChecks reads every checks.json the suite wrote under dir.
func readConformanceChecks(t *testing.T, dir string) []conformanceCheck {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	must(t, err)
	var all []conformanceCheck
	for _, f := range files {
		data, err := os.ReadFile(f)
		must(t, err)
		var checks []conformanceCheck
		if err := json.Unmarshal(data, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, checks...)
	}
	return all
}

func summarizeChecks(checks []conformanceCheck) string {
	count := map[string]int{}
	for _, c := range checks {
		count[c.Status]++
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	return strings.Join(parts, ", ")
}

// baselineVerdict is the suite's closing judgement against the baseline
// (expected, unexpected and stale entries), or all it printed when there is
// none (it crashed, say).
func baselineVerdict(text string) string {
	start := -1
	for _, marker := range []string{"Expected failures (in baseline)", "Unexpected failures", "Stale baseline entries"} {
		if i := strings.Index(text, marker); i >= 0 && (start < 0 || i < start) {
			start = i
		}
	}
	if start < 0 {
		return text
	}
	return text[start:]
}
