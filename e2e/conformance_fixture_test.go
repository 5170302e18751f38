//go:build linux && e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"
)

// conformanceClassification is the file that classifies every server
// scenario of the suite, relative to the root.
const conformanceClassification = "e2e/conformance-scenarios.yml"

// servedVersions are the protocol versions the generated server serves
// over Streamable HTTP, newest first.
var servedVersions = []string{"2026-07-28", "2025-11-25"}

// scenarioClasses is e2e/conformance-scenarios.yml.
type scenarioClasses struct {
	// Applicable maps a scenario to "all" or a list of versions.
	Applicable map[string]any `yaml:"applicable"`
	// NotApplicable maps a scenario, or scenario@version, to its reason.
	NotApplicable map[string]string `yaml:"not_applicable"`
}

// suiteScenario is one server scenario as the suite lists it.
type suiteScenario struct {
	name     string
	versions []string // its window, or "extension"
}

// scenarioTally is what one run of one scenario at one version gave.
type scenarioTally struct{ passed, failed, allowed int }

// TestConformanceFixture runs every scenario that e2e/conformance-scenarios.yml
// calls applicable against the generated conformance fixture server
// (examples/conformance and its real backend), over Streamable HTTP, at
// each served version of the scenario's window, one server process per
// version, with e2e/conformance-baseline.yml as the allowed failures, and
// logs the table scenario x version -> checks passed/failed/allowed.
func TestConformanceFixture(t *testing.T) {
	x := requireExternalTools(t)
	listed := listServerScenarios(t, x)
	classes := readScenarioClasses(t, x.root)
	plan := planScenarios(t, listed, classes)
	bins := buildConformanceFixture(t, x.root)
	baseline := filepath.Join(x.root, conformanceBaseline)
	allowed := readBaseline(t, baseline)
	table := map[string]map[string]scenarioTally{}
	for _, v := range servedVersions {
		backend := startDaemon(t, "conformance backend", regexp.MustCompile(`conformance backend listening on (http://127\.0\.0\.1:\d+/\S*)`),
			bins.backend, "--addr", "127.0.0.1:0")
		// The suite reads tool schemas whole (json-schema-2020-12 checks
		// their 2020-12 keywords), as the complete profile shows them; its
		// client name would get the portable one.
		url := startDaemon(t, "conformance MCP server "+v, regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+/mcp)`),
			bins.server, "--transport", "http", "--addr", "127.0.0.1:0", "--base-url", backend, "--schema-profile", "complete")
		for _, sc := range plan[v] {
			checks := runScenario(t, x, "conformance", url, conformanceScenario{name: sc, spec: v}, baseline)
			if table[sc] == nil {
				table[sc] = map[string]scenarioTally{}
			}
			table[sc][v] = tallyChecks(sc, checks, allowed)
		}
	}
	t.Logf("conformance fixture, scenario x version -> checks passed/failed/allowed:\n%s", renderTable(table))
}

// listServerScenarios runs `conformance list --server`.
func listServerScenarios(t *testing.T, x *externalTools) []suiteScenario {
	t.Helper()
	res := x.runNode(t, time.Minute, x.conformance, "list", "--server")
	if res.code != 0 {
		t.Fatalf("conformance list --server exited %d:\n%s", res.code, truncate(res.stdout+res.stderr, 4000))
	}
	line := regexp.MustCompile(`(?m)^\s+- ([a-z0-9-]+) \[([^\]]*)\]`)
	var out []suiteScenario
	for _, m := range line.FindAllStringSubmatch(plain(res.stdout), -1) {
		out = append(out, suiteScenario{name: m[1], versions: strings.Split(m[2], ",")})
	}
	if len(out) < 10 {
		t.Fatalf("conformance list --server listed %d scenarios; the output format changed?\n%s", len(out), truncate(res.stdout, 4000))
	}
	return out
}

func readScenarioClasses(t *testing.T, root string) scenarioClasses {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, conformanceClassification))
	must(t, err)
	var c scenarioClasses
	if err := yaml.UnmarshalWithOptions(data, &c, yaml.Strict()); err != nil {
		t.Fatalf("%s: %v", conformanceClassification, err)
	}
	return c
}

// planScenarios checks the classification against the suite's list (every
// scenario classified exactly once, no unknown names, a reason for every
// version left out) and returns the scenarios to run per version.
func planScenarios(t *testing.T, listed []suiteScenario, c scenarioClasses) map[string][]string {
	t.Helper()
	var problems []string
	known := map[string]bool{}
	plan := map[string][]string{}
	for _, sc := range listed {
		known[sc.name] = true
		apply, isApplicable := c.Applicable[sc.name]
		_, excluded := c.NotApplicable[sc.name]
		switch {
		case isApplicable && excluded:
			problems = append(problems, fmt.Sprintf("%s is both applicable and not applicable", sc.name))
		case !isApplicable && !excluded:
			problems = append(problems, fmt.Sprintf("%s [%s] is not classified: add it under applicable or, with the reason, under not_applicable", sc.name, strings.Join(sc.versions, ",")))
		case isApplicable:
			for _, v := range servedVersions {
				if !contains(sc.versions, v) {
					continue
				}
				switch {
				case appliesAt(apply, v):
					plan[v] = append(plan[v], sc.name)
				case c.NotApplicable[sc.name+"@"+v] == "":
					problems = append(problems, fmt.Sprintf("%s is left out at %s without a reason: add %s@%s under not_applicable", sc.name, v, sc.name, v))
				}
			}
		}
	}
	for name := range c.Applicable {
		if !known[name] {
			problems = append(problems, fmt.Sprintf("applicable %s is not a scenario of the suite: remove it", name))
		}
	}
	for key, reason := range c.NotApplicable {
		if !known[strings.SplitN(key, "@", 2)[0]] {
			problems = append(problems, fmt.Sprintf("not_applicable %s is not a scenario of the suite: remove it", key))
		}
		if strings.TrimSpace(reason) == "" {
			problems = append(problems, fmt.Sprintf("not_applicable %s has no reason", key))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		t.Fatalf("%s does not match the suite:\n  %s", conformanceClassification, strings.Join(problems, "\n  "))
	}
	return plan
}

// appliesAt reads an applicable entry: "all" or a list of versions.
func appliesAt(apply any, version string) bool {
	switch a := apply.(type) {
	case string:
		return a == "all"
	case []any:
		for _, v := range a {
			if fmt.Sprint(v) == version {
				return true
			}
		}
	}
	return false
}

// readBaseline reads the server entries of the expected-failures file.
func readBaseline(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	var b struct {
		Server []string `yaml:"server"`
	}
	if err := yaml.Unmarshal(data, &b); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]bool{}
	for _, e := range b.Server {
		out[e] = true
	}
	return out
}

// tallyChecks counts a scenario's checks: failures (and warnings, which
// the suite counts as failures) the baseline lists are allowed.
func tallyChecks(scenario string, checks []conformanceCheck, allowed map[string]bool) scenarioTally {
	var n scenarioTally
	for _, c := range checks {
		switch c.Status {
		case "SUCCESS":
			n.passed++
		case "FAILURE", "WARNING":
			if allowed[scenario] || allowed[scenario+":"+c.ID] {
				n.allowed++
			} else {
				n.failed++
			}
		}
	}
	return n
}

// renderTable is the table of tallies, one row per scenario.
func renderTable(table map[string]map[string]scenarioTally) string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-48s", "scenario")
	for _, v := range servedVersions {
		fmt.Fprintf(&b, " %-14s", v)
	}
	b.WriteString("\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%-48s", n)
		for _, v := range servedVersions {
			cell := "-"
			if c, ok := table[n][v]; ok {
				cell = fmt.Sprintf("%d/%d/%d", c.passed, c.failed, c.allowed)
			}
			fmt.Fprintf(&b, " %-14s", cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// fixtureBins are the generated conformance fixture server and its backend.
type fixtureBins struct{ server, backend string }

// buildConformanceFixture builds cmd/conformance and cmd/conformance-backend
// of the committed example with one go build.
func buildConformanceFixture(t *testing.T, root string) fixtureBins {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator),
		"./examples/conformance/cmd/conformance", "./examples/conformance/cmd/conformance-backend")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build of the conformance fixture: %v\n%s", err, truncate(string(out), 8000))
	}
	return fixtureBins{server: filepath.Join(dir, "conformance"), backend: filepath.Join(dir, "conformance-backend")}
}
