package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/oa2mcp/oa2mcp/generator"
	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/lint"
	"github.com/oa2mcp/oa2mcp/generator/load"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/generator/write"
	"github.com/oa2mcp/oa2mcp/overrides"
)

func newGenerateCmd() *cobra.Command {
	var s settings
	var configPath string
	cmd := &cobra.Command{
		Use:   "generate --spec FILE --out DIR [flags] | generate -c oa2mcp.yaml",
		Short: "Generate a Go MCP server from an OpenAPI document",
		Long: `Generate reads an OpenAPI 3.0/3.1 or Swagger 2.0 document and writes a Go
package with an MCP server for it, plus a runnable main under cmd/NAME.

Exit codes: 0 ok, 1 problems in the inputs (or drift with --check), 2 usage or I/O error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configPath != "" {
				if err := mergeConfig(cmd, &s, configPath); err != nil {
					return err
				}
			}
			if err := s.validate(); err != nil {
				return err
			}
			return runGenerate(cmd.Context(), &s, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&configPath, "config", "c", "", "read settings from an oa2mcp.yaml file (version: 1); flags win")
	f.StringVar(&s.spec, "spec", "", "OpenAPI document (YAML or JSON)")
	f.StringVar(&s.overrides, "overrides", "", "override file shaping the tools")
	f.StringVar(&s.out, "out", "", "output folder for the generated package")
	f.StringVar(&s.pkg, "package", "", "Go package name (default: derived from --name)")
	f.StringVar(&s.name, "name", "", "server name, also cmd/NAME (default: derived from the spec title)")
	f.StringVar(&s.toolPrefix, "tool-prefix", "", "prefix for every tool name, e.g. petstore")
	f.StringSliceVar(&s.allowRemote, "allow-remote-refs", nil, "hosts whose http(s) $refs may be fetched (default: none)")
	f.BoolVar(&s.check, "check", false, "compare with the output folder instead of writing; exit 1 on drift")
	f.BoolVarP(&s.verbose, "verbose", "v", false, "print each stage with its timing on stderr")
	f.BoolVar(&s.metrics, "metrics", false, "serve Prometheus metrics at /metrics (adds github.com/prometheus/client_golang to the generated code)")
	f.BoolVar(&s.discover, "discover", false, "serve the operations no task tool uses through three tools (search_operations, describe_operation, call_operation) instead of one tool each; see docs/discovery.md")
	f.IntVar(&s.bounds.Tools, "max-tools", mapping.DefaultMaxTools, "without an override file, a spec whose default mapping lists more tools is served through discovery instead; -1: no bound (see docs/discovery.md)")
	f.IntVar(&s.bounds.ListTokens, "max-tokens", mapping.DefaultMaxListTokens, "the same bound on the tools/list token estimate (bytes/4); -1: no bound")
	f.BoolVar(&s.noCallTests, "no-call-tests", false, "do not generate oa2mcp_calls_test.go and testdata/oa2mcp_calls.json (the per-tool call cases)")
	f.StringVar(&s.runtimeDir, "runtime-dir", "", "folder of the oa2mcp runtime module: the go.mod written for an output outside any module replaces github.com/oa2mcp/oa2mcp/runtime with it")
	return cmd
}

// mergeConfig fills settings from the config file where no flag was given.
func mergeConfig(cmd *cobra.Command, s *settings, path string) error {
	if err := checkReadable(path, "the config file", "-c"); err != nil {
		return err
	}
	cfg, problems := readConfig(path)
	printProblems(cmd.ErrOrStderr(), problems)
	if problems.HasErrors() {
		return &exitError{code: exitProblems, err: fmt.Errorf("%d problem(s) in %s", len(problems.Errors()), path)}
	}
	set := func(flag string, dst *string, v string) {
		if !cmd.Flags().Changed(flag) {
			*dst = v
		}
	}
	set("spec", &s.spec, cfg.Spec)
	set("overrides", &s.overrides, cfg.Overrides)
	set("out", &s.out, cfg.Out)
	set("package", &s.pkg, cfg.Package)
	set("name", &s.name, cfg.Name)
	set("tool-prefix", &s.toolPrefix, cfg.ToolPrefix)
	set("runtime-dir", &s.runtimeDir, cfg.RuntimeDir)
	if !cmd.Flags().Changed("allow-remote-refs") {
		s.allowRemote = cfg.AllowRemoteRefs
	}
	if !cmd.Flags().Changed("no-call-tests") {
		s.noCallTests = cfg.NoCallTests
	}
	if !cmd.Flags().Changed("metrics") {
		s.metrics = cfg.Metrics
	}
	if !cmd.Flags().Changed("discover") {
		s.discover = cfg.Discover
	}
	if !cmd.Flags().Changed("max-tools") && cfg.MaxTools != 0 {
		s.bounds.Tools = cfg.MaxTools
	}
	if !cmd.Flags().Changed("max-tokens") && cfg.MaxTokens != 0 {
		s.bounds.ListTokens = cfg.MaxTokens
	}
	return nil
}

// runGenerate loads, generates and writes (or checks) one server.
func runGenerate(ctx context.Context, s *settings, stdout, stderr io.Writer) error {
	if err := checkInputFiles(s); err != nil {
		return err
	}
	prog := newProgress(stderr, s.verbose)
	if !s.check {
		// lint's patterns compile on the core the loader leaves idle
		go lint.Prepare()
	}
	doc, ov, problems := loadInputs(ctx, s)
	prog.stage("load", loadDetail(s.spec, doc))
	if problems.HasErrors() {
		return reportProblems(stderr, append(problems, restProblems(doc, ov, s)...))
	}
	cfg, mod, err := buildConfig(s)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	cfg.Overrides = ov
	cfg.NoCallTests = s.noCallTests
	cfg.Metrics = s.metrics
	cfg.Discover = s.discover
	cfg.Bounds = s.bounds
	srv, genProblems := generator.Draft(doc, cfg)
	problems = append(problems, genProblems...)
	if problems.HasErrors() {
		return reportProblems(stderr, problems)
	}
	// The model is linted while it is proven, rendered and written: all
	// of them only read it, and each alone leaves a core idle part of the
	// time.
	var report *lint.Report
	linted := make(chan struct{})
	go func() {
		defer close(linted)
		if !s.check {
			report = lintModel(srv, lintSources(s, doc, ov))
		}
	}()
	res, problems := generator.ProveAndRender(doc, srv, problems)
	if problems.HasErrors() {
		<-linted
		return reportProblems(stderr, problems)
	}
	if cfg.GoMod != "" && !s.check {
		fmt.Fprintf(stderr, "note: %s lies in no Go module, so it gets a go.mod with module %s; write your repository's module path there to publish it (generate follows it), and run go mod tidy there before the first build\n", s.out, cfg.GoMod)
	}
	if s.runtimeDir != "" && cfg.GoMod == "" && !mod.replacesRuntime {
		fmt.Fprintf(stderr, "warning: --runtime-dir has no effect: %s lies in an existing Go module, whose go.mod you maintain; add \"replace github.com/oa2mcp/oa2mcp/runtime => %s\" there\n", s.out, s.runtimeDir)
	}
	if prog.on { // listSize encodes every tool
		prog.stage("generate", fmt.Sprintf("%s, %d files", listSize(res.Server), len(res.Files)))
	}
	noteLarge(stderr, s, res.Server)
	warnEmpty(&problems, doc, res.Server)
	printProblems(stderr, problems)
	err = writeResult(s, res, stdout, stderr) // while lint may still run: it only reads the model
	prog.stage("write", "")
	<-linted
	if err == nil && !s.check {
		printLintSummary(stderr, report)
		prog.stage("lint", "")
	}
	prog.total()
	return err
}

// loadInputs loads the spec and the overrides (the file, else the spec's
// x-oa2mcp-* extensions), collecting the problems of both, so one run
// reports everything wrong with either input.
func loadInputs(ctx context.Context, s *settings) (*load.Document, *overrides.File, diag.List) {
	if ctx == nil {
		ctx = context.Background()
	}
	doc, problems := load.Load(ctx, s.spec, load.Options{AllowRemoteHosts: s.allowRemote})
	ov, ovProblems := readOverrides(s.overrides, doc)
	return doc, ov, append(problems, ovProblems...)
}

// readOverrides reads the override file, or else the x-oa2mcp-*
// extensions of the spec; nil when there are neither.
func readOverrides(path string, doc *load.Document) (*overrides.File, diag.List) {
	if path != "" {
		return overrides.ReadFile(path)
	}
	if doc == nil {
		return nil, nil
	}
	return overrides.FromExtensions(doc.File, doc.Extensions, diag.Position{File: doc.File})
}

// restProblems reports the problems of the rest of an override file that
// has errors (generator.RestProblems), so one run lists them all.
func restProblems(doc *load.Document, ov *overrides.File, s *settings) diag.List {
	return generator.RestProblems(doc, mapping.Config{Name: s.name, Package: s.pkg, ToolPrefix: s.toolPrefix, Overrides: ov})
}

func reportProblems(stderr io.Writer, problems diag.List) error {
	printProblems(stderr, problems)
	return &exitError{code: exitProblems, err: fmt.Errorf("%d error(s); nothing was written", len(problems.Errors()))}
}

// buildConfig derives the generator configuration from the settings and
// the output folder's place among Go modules, which it also returns.
func buildConfig(s *settings) (mapping.Config, moduleInfo, error) {
	name := s.name
	mod, err := findModule(s.out, moduleFallback(name, s.out))
	if err != nil {
		return mapping.Config{}, mod, err
	}
	outAbs, err := filepath.Abs(s.out)
	if err != nil {
		return mapping.Config{}, mod, err
	}
	specAbs, err := filepath.Abs(s.spec)
	if err != nil {
		return mapping.Config{}, mod, err
	}
	source, err := filepath.Rel(outAbs, specAbs)
	if err != nil {
		source = filepath.Base(specAbs)
	}
	runtimeDir, err := replacePath(outAbs, s.runtimeDir)
	if err != nil {
		return mapping.Config{}, mod, err
	}
	return mapping.Config{
		Name: name, Package: s.pkg, ImportPath: mod.importPath, GoMod: mod.newModule,
		Source: filepath.ToSlash(source), ToolPrefix: s.toolPrefix, RuntimeDir: runtimeDir,
	}, mod, nil
}

// replacePath turns the --runtime-dir folder into the path a replace
// directive in outAbs/go.mod takes: relative to the output folder and
// starting with ./ or ../, as go.mod requires of local paths.
func replacePath(outAbs, dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
		return "", fmt.Errorf("--runtime-dir %s: no go.mod there; give the runtime/ folder of an oa2mcp checkout", dir)
	}
	rel, err := filepath.Rel(outAbs, abs)
	if err != nil {
		return filepath.ToSlash(abs), nil
	}
	rel = filepath.ToSlash(rel)
	if !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	return rel, nil
}

// moduleFallback is the module path of a go.mod generated for an output
// folder outside any module: example/ and the server name, else the
// folder's name. A bare path ("srv") is one the Go standard library may
// claim (an output folder named "errors" would import the standard
// package); Go reserves the first element "example" for users' own
// modules, so the path never collides and works until the user writes
// their repository's path into go.mod, which oa2mcp then follows.
func moduleFallback(name, out string) string {
	elem := name
	if elem == "" {
		if abs, err := filepath.Abs(out); err == nil {
			elem = filepath.Base(abs)
		}
	}
	return "example/" + modulePathElem(elem)
}

// writeResult writes the files, or in check mode reports drift; either
// way it says which generated files a hand-written one kept out.
func writeResult(s *settings, res *generator.Result, stdout, stderr io.Writer) error {
	changes, unowned, err := write.PlanUnowned(s.out, res.Files)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	defer noteUnowned(stderr, s.out, unowned)
	if s.check {
		if len(changes) == 0 {
			fmt.Fprintf(stdout, "%s is up to date (%d files)\n", s.out, len(res.Files))
			return nil
		}
		printDrift(stdout, s.out, changes)
		return &exitError{code: exitProblems, err: fmt.Errorf("%s is out of date: %d file(s) differ; run oa2mcp generate", s.out, len(changes))}
	}
	if err := write.Apply(s.out, changes); err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	tools := fmt.Sprintf("%d tools", len(res.Server.Tools))
	if d := res.Server.Discovery; d != nil {
		tools += fmt.Sprintf(" and %d operations for discovery", len(d.Operations))
	}
	fmt.Fprintf(stdout, "generated %s into %s: %d file(s) written, %d unchanged\n",
		tools, s.out, len(changes), len(res.Files)-countWrites(changes))
	return nil
}

func countWrites(changes []write.Change) int {
	n := 0
	for _, c := range changes {
		if c.Kind != write.Delete {
			n++
		}
	}
	return n
}

// printDrift lists the changes --check found, with a unified diff.
func printDrift(w io.Writer, dir string, changes []write.Change) {
	for _, c := range changes {
		fmt.Fprint(w, write.UnifiedDiff(filepath.ToSlash(filepath.Join(dir, c.Path)), c))
	}
}
