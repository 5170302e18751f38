package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// writeFile writes content to name in a new temporary folder.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMissingInputsExitTwo: an input file that cannot be read is an I/O
// error (exit 2, as documented), not a problem in the inputs (1).
func TestMissingInputsExitTwo(t *testing.T) {
	out := t.TempDir()
	missing := filepath.Join(out, "nope.yaml")
	cases := map[string][]string{
		"--spec":             {"generate", "--spec", missing, "--out", out},
		"--spec of lint":     {"lint", "--spec", missing},
		"--spec of init":     {"init", "--spec", missing},
		"--overrides":        {"generate", "--spec", spec(t, "features"), "--overrides", missing, "--out", out},
		"--overrides (lint)": {"lint", "--spec", spec(t, "features"), "--overrides", missing},
		"-c":                 {"generate", "-c", missing},
		"a folder":           {"generate", "--spec", out, "--out", out},
	}
	for name, args := range cases {
		code, _, stderr := run(t, args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", name, code, stderr)
		}
		if !strings.Contains(stderr, "oa2mcp: "+filepath.Dir(missing)) {
			t.Errorf("%s: the message does not start with the path:\n%s", name, stderr)
		}
	}
	_, _, stderr := run(t, "generate", "--spec", missing, "--out", out)
	if want := missing + ": cannot read the spec: no such file or directory; check the --spec path"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
}

const noOperations = `openapi: 3.1.0
info: {title: Webhooks only, version: "1"}
webhooks:
  newPet:
    post:
      responses: {"200": {description: ok}}
`

// TestNoOperationsWarns: a spec without operations gives a server without
// tools; every command says so instead of succeeding silently.
func TestNoOperationsWarns(t *testing.T) {
	specPath := writeFile(t, "hooks.yaml", noOperations)
	const want = "warning: the spec declares no operations"
	for _, args := range [][]string{
		{"generate", "--spec", specPath, "--out", filepath.Join(t.TempDir(), "srv")},
		{"lint", "--spec", specPath},
		{"init", "--spec", specPath},
	} {
		code, _, stderr := run(t, args...)
		if code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr lacks %q:\n%s", args[0], code, want, stderr)
		}
	}
	ov := writeFile(t, "ov.yaml", "version: 1\nselect: {include: [{tag: nothing}]}\n")
	if _, _, stderr := run(t, "lint", "--spec", spec(t, "features"), "--overrides", ov); !strings.Contains(stderr, "warning: none of the spec's 5 operations became a tool") {
		t.Errorf("overrides selecting nothing: no warning:\n%s", stderr)
	}
}

// TestOverrideTypeErrors: a value of the wrong type is reported by its
// key and the type wanted, never in Go terms, and with its siblings.
func TestOverrideTypeErrors(t *testing.T) {
	ov := writeFile(t, "ov.yaml", `version: 1
tools:
  - name: find_items
    operation: listItems
    output:
      list: {path: "", limit: many}
    annotations: {read_only: maybe}
  - name: get_item
    operation: getItems
`)
	code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--overrides", ov, "--out", t.TempDir())
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stderr)
	}
	for _, want := range []string{
		`ov.yaml:6:31: tools[0].output.list.limit must be an integer, not the string "many"; write a whole number, e.g. 20`,
		`ov.yaml:7:30: tools[0].annotations.read_only must be true or false, not the string "maybe"`,
		// A problem of meaning in the same file comes in the same run.
		`ov.yaml:9:5: unknown operation "getItems"; did you mean getItem?`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "Go struct") || strings.Contains(stderr, "of type int") {
		t.Errorf("a message names Go types:\n%s", stderr)
	}
}

// emptyListRE finds a message that ends in an empty list ("use one of: ").
var emptyListRE = regexp.MustCompile(`(?m)(one of|bind|fields there|use):\s*(;|$)`)

// TestNoEmptyListInMessages: asking for an input of a tool that has none
// says so rather than listing nothing.
func TestNoEmptyListInMessages(t *testing.T) {
	ov := writeFile(t, "ov.yaml", `version: 1
tools:
  - name: list_notes
    operation: listItems
    input:
      colour: {description: The colour.}
`)
	noInputs := writeFile(t, "api.yaml", `openapi: 3.0.3
info: {title: Tiny, version: "1"}
paths:
  /items:
    get:
      operationId: listItems
      responses: {"200": {description: ok}}
`)
	code, _, stderr := run(t, "lint", "--spec", noInputs, "--overrides", ov)
	if code != 1 || !strings.Contains(stderr, `tool "list_notes" has no input "colour"; declare it with type: to add it; the tool has no other inputs`) {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
	if emptyListRE.MatchString(stderr) {
		t.Errorf("a message ends in an empty list:\n%s", stderr)
	}
}

// TestLintFindingsCarryPositions: findings point at the override entry of
// the tool they concern, or at the spec operation a default tool maps.
func TestLintFindingsCarryPositions(t *testing.T) {
	ov := writeFile(t, "ov.yaml", `version: 1
select: {unused: keep}
tools:
  - name: items
    operation: replaceItem
    input:
      price: {description: The price.}
`)
	code, stdout, stderr := run(t, "lint", "--spec", spec(t, "features"), "--overrides", ov)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		ov + ":4:5: items: warning: the name does not start with a verb",
		ov + ":7:7: items.price: warning: the description of input \"price\" gives neither a format nor an example value",
		spec(t, "features") + ":55:5: delete_item: ",
		spec(t, "features") + ":30:11: get_item.session: ",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, line := range strings.Split(stdout, "\n") {
		if strings.Contains(line, "[") && !strings.HasPrefix(line, spec(t, "features")) && !strings.HasPrefix(line, ov) {
			t.Errorf("finding without a position: %s", line)
		}
	}
	_, stdout, _ = run(t, "lint", "--spec", spec(t, "features"), "--overrides", ov, "--format", "json")
	var rep struct {
		Findings []struct {
			Tool, File   string
			Line, Column int
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.File == "" || (f.Tool != "" && f.Line == 0) {
			t.Errorf("JSON finding without a position: %+v", f)
		}
	}
	_, _, stderr = run(t, "generate", "--spec", spec(t, "features"), "--overrides", ov, "--out", t.TempDir())
	if !strings.Contains(stderr, "lint: "+spec(t, "features")+":55:5: delete_item: ") {
		t.Errorf("generate's lint summary lacks positions:\n%s", stderr)
	}
}

// TestGeneratedReadmeRenders: every Markdown table of the generated
// README is contiguous: a table row after a blank line must start a new
// table (a header followed by its |---| rule).
func TestGeneratedReadmeRenders(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop")
	if code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", out, "--name", "shop"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	readme, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(readme), "\n")
	for i := 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "|") && strings.TrimSpace(lines[i-1]) == "" &&
			(i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "|---")) {
			t.Errorf("README.md:%d: a table row after a blank line, so the table is split:\n%s", i+1, lines[i])
		}
	}
	if !strings.Contains(string(readme), "| `SHOP_API_KEY_AUTH` |") || !strings.Contains(string(readme), "| `SHOP_STATE_KEY` |") {
		t.Errorf("the environment table lacks its rows:\n%s", readme)
	}
}

// TestModulePathOutsideModule: an output folder in no module gets a
// go.mod whose module path no standard package can shadow, and the main
// imports that path.
func TestModulePathOutsideModule(t *testing.T) {
	out := filepath.Join(t.TempDir(), "errors")
	code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	gomod, _ := os.ReadFile(filepath.Join(out, "go.mod"))
	if !strings.HasPrefix(string(gomod), "module example/errors\n") {
		t.Errorf("go.mod: %s", gomod)
	}
	mains, _ := filepath.Glob(filepath.Join(out, "cmd", "*", "main.go"))
	if len(mains) != 1 {
		t.Fatalf("mains: %v", mains)
	}
	if main, _ := os.ReadFile(mains[0]); !strings.Contains(string(main), `"example/errors"`) {
		t.Errorf("the main does not import the module path:\n%s", main)
	}
	if !strings.Contains(stderr, "note: "+out+" lies in no Go module, so it gets a go.mod with module example/errors") {
		t.Errorf("no note about the new module:\n%s", stderr)
	}
	for in, want := range map[string]string{"My Server": "my-server", "shop": "shop", "..": "mcpserver", "Ünïcode_x": "n-code_x"} {
		if got := modulePathElem(in); got != want {
			t.Errorf("modulePathElem(%q) = %q, want %q", in, got, want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("go 1.26\n"), 0o644)
	if code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", filepath.Join(dir, "srv")); code != 2 || !strings.Contains(stderr, "no module line") {
		t.Errorf("go.mod without module line: exit %d:\n%s", code, stderr)
	}
}

// TestRuntimeDirWarnsOnlyWhenItCannotApply: --runtime-dir writes the
// replace into a go.mod it generates; regenerating there needs no
// warning, while a module whose go.mod lacks the replace gets one.
func TestRuntimeDirWarnsOnlyWhenItCannotApply(t *testing.T) {
	rt := filepath.Join(testenv.RepoRoot(t), "runtime")
	out := filepath.Join(t.TempDir(), "srv")
	for i := 0; i < 2; i++ {
		code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", out, "--runtime-dir", rt)
		if code != 0 || strings.Contains(stderr, "has no effect") {
			t.Errorf("run %d: exit %d, stderr:\n%s", i+1, code, stderr)
		}
	}
	if gomod, _ := os.ReadFile(filepath.Join(out, "go.mod")); !strings.Contains(string(gomod), "replace github.com/oa2mcp/oa2mcp/runtime => ") {
		t.Errorf("go.mod lacks the replace:\n%s", gomod)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/svc\n\ngo 1.26\n"), 0o644)
	_, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", filepath.Join(dir, "srv"), "--runtime-dir", rt)
	if !strings.Contains(stderr, "--runtime-dir has no effect") {
		t.Errorf("no warning for a module without the replace:\n%s", stderr)
	}
}

// TestGeneratedFilesPointOnlyAtUserFiles: nothing generated refers to
// this repository's docs/, which the user does not have.
func TestGeneratedFilesPointOnlyAtUserFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "shop")
	if code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--out", out, "--name", "shop"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	_, draft, _ := run(t, "init", "--spec", spec(t, "features"))
	files := snapshot(t, out)
	files["init draft"] = draft
	docsRE := regexp.MustCompile(`(^|[\s(\x60"'])(\.\./)*docs/`)
	for name, content := range files {
		if m := docsRE.FindString(content); m != "" {
			t.Errorf("%s points at docs/, which the user does not have", name)
		}
	}
}

// TestInitWritesAndSummarises: init writes a draft that generates, says
// what it holds and how it lints, and refuses to overwrite.
func TestInitWritesAndSummarises(t *testing.T) {
	out := filepath.Join(t.TempDir(), "overrides.yaml")
	code, _, stderr := run(t, "init", "--spec", spec(t, "features"), "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"wrote " + out + ": 5 operations in ", "lint: ", " 0 error(s)", "next: resolve the TODOs, then oa2mcp lint --spec "} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code, _, stderr := run(t, "generate", "--spec", spec(t, "features"), "--overrides", out, "--out", t.TempDir()); code != 0 {
		t.Errorf("the draft does not generate: exit %d:\n%s", code, stderr)
	}
	if code, _, _ := run(t, "init", "--spec", spec(t, "features"), "--out", out); code != 2 {
		t.Errorf("overwriting without --force: exit %d, want 2", code)
	}
	code, _, stderr = run(t, "init", "--spec", spec(t, "features"), "--out", out, "--force", "--max-tools", "1")
	if code != 0 || !strings.Contains(stderr, "in 1 tools, ") {
		t.Errorf("--max-tools 1: exit %d:\n%s", code, stderr)
	}
}

// TestFlagValueErrors: a flag value of the wrong kind is a usage error
// that names the flag and what it takes, not the Go parser that refused it.
func TestFlagValueErrors(t *testing.T) {
	for args, want := range map[string]string{
		"lint --spec x --max-tools many":            `--max-tools "many": not a valid value; use a whole number, e.g. --max-tools 40`,
		"generate --metrics=maybe --spec x --out y": `--metrics "maybe": not a valid value; use true or false`,
	} {
		code, _, stderr := run(t, strings.Fields(args)...)
		if code != 2 || !strings.Contains(stderr, want) || strings.Contains(stderr, "strconv") {
			t.Errorf("%s: exit %d:\n%s", args, code, stderr)
		}
	}
}
