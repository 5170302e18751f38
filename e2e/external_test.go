//go:build linux && e2e

package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// The tests with real external MCP clients (docs/external-clients.md):
// TestConformance runs the official conformance suite against the
// generated petstore server, TestInspector drives it with the MCP
// Inspector CLI. Both need Node 22 and the npm packages that
// scripts/install-deps.sh installs into .cache/node; without them they
// fail (never skip) and say so.

// TestExternalClients checks that the installed clients answer with the
// versions scripts/lib-node.sh pins.
func TestExternalClients(t *testing.T) {
	x := requireExternalTools(t)
	want := wantedVersions(t, x.root)
	for _, c := range []struct{ script, version string }{
		{x.conformance, want["CONFORMANCE"]},
		{x.inspector, want["INSPECTOR"]},
	} {
		res := x.runNode(t, time.Minute, c.script, "--version")
		got := strings.TrimSpace(plain(res.stdout))
		if res.code != 0 || !strings.Contains(got, c.version) {
			t.Errorf("%s --version: exit %d, %q; want %s\n%s", filepath.Base(c.script), res.code, got, c.version, installHint)
		}
	}
}

// TestConformanceBaseline enforces the baseline policy: entries name single
// checks (`scenario:check-id`) of scenarios TestConformance or
// TestConformanceFixture runs, appear
// once, and every group of entries has a reason comment right above it.
func TestConformanceBaseline(t *testing.T) {
	root := testenv.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, conformanceBaseline))
	if err != nil {
		t.Fatal(err)
	}
	// Scenarios run by TestConformance (the examples) and those the
	// fixture's classification runs (TestConformanceFixture).
	scenarios := map[string]bool{}
	for _, sc := range conformanceScenarios {
		scenarios[sc.name] = true
	}
	for name := range readScenarioClasses(t, root).Applicable {
		scenarios[name] = true
	}
	entry := regexp.MustCompile(`^  - ([a-z0-9-]+):([A-Za-z0-9$_-]+)$`)
	seen := map[string]bool{}
	section, reason := "", false
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			reason = false // a blank line ends a group
		case strings.HasPrefix(trimmed, "#"):
			reason = section != "" // comments above server: are the header
		case !strings.HasPrefix(line, " "):
			section = strings.TrimSuffix(trimmed, ":")
			if section != "server" || !strings.HasSuffix(trimmed, ":") {
				t.Errorf("%s:%d: %q: only a server: list belongs here (the suite's client mode is not run)", conformanceBaseline, n, line)
			}
			reason = false
		default:
			m := entry.FindStringSubmatch(line)
			switch {
			case m == nil:
				t.Errorf("%s:%d: %q is not an entry of the form `  - scenario:check-id` (whole scenarios are not baselined)",
					conformanceBaseline, n, line)
			case !scenarios[m[1]]:
				t.Errorf("%s:%d: scenario %q is run neither by TestConformance (conformanceScenarios) nor by TestConformanceFixture (%s)", conformanceBaseline, n, m[1], conformanceClassification)
			case seen[m[1]+":"+m[2]]:
				t.Errorf("%s:%d: %s:%s listed twice", conformanceBaseline, n, m[1], m[2])
			case !reason:
				t.Errorf("%s:%d: %s:%s has no reason: put a comment saying why right above its group", conformanceBaseline, n, m[1], m[2])
			}
			if m != nil {
				seen[m[1]+":"+m[2]] = true
			}
		}
	}
}
