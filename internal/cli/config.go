package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/oa2mcp/oa2mcp/generator/diag"
	"github.com/oa2mcp/oa2mcp/generator/mapping"
	"github.com/oa2mcp/oa2mcp/internal/strictyaml"
)

// fileConfig is the oa2mcp.yaml configuration file (version 1). It holds
// the same settings as the generate flags; flags given on the command
// line win. Relative paths are relative to the file's own folder.
type fileConfig struct {
	Version         int      `yaml:"version"`
	Spec            string   `yaml:"spec"`
	Overrides       string   `yaml:"overrides"`
	Out             string   `yaml:"out"`
	Package         string   `yaml:"package"`
	Name            string   `yaml:"name"`
	ToolPrefix      string   `yaml:"tool_prefix"`
	AllowRemoteRefs []string `yaml:"allow_remote_refs"`
	// NoCallTests turns off the generated oa2mcp_calls_test.go.
	NoCallTests bool `yaml:"no_call_tests"`
	// Metrics adds Prometheus metrics at /metrics to the generated server.
	Metrics bool `yaml:"metrics"`
	// Discover serves the operations no task tool uses through the three
	// discovery tools (search_operations, describe_operation,
	// call_operation) instead of one tool each.
	Discover bool `yaml:"discover"`
	// MaxTools and MaxTokens bound the tools/list of a default mapping
	// (no override file): past either, its operations are served through
	// the discovery tools. 0 or absent: 128 tools, 50000 tokens; -1: no
	// bound.
	MaxTools  int `yaml:"max_tools"`
	MaxTokens int `yaml:"max_tokens"`
	// RuntimeDir is the folder of the runtime module, for a replace
	// directive in a generated go.mod.
	RuntimeDir string `yaml:"runtime_dir"`
}

// readConfig reads and checks a configuration file.
func readConfig(path string) (*fileConfig, diag.List) {
	data, err := os.ReadFile(path)
	if err != nil {
		var l diag.List
		l.Errorf(diag.Position{File: path}, "check the -c path", "cannot read config: %v", err)
		return nil, l
	}
	var cfg fileConfig
	problems := strictyaml.Decode(path, data, &cfg)
	if problems.HasErrors() {
		return nil, problems
	}
	if cfg.Version != 1 {
		problems.Errorf(diag.Position{File: path, Line: 1, Column: 1}, "start the file with \"version: 1\"",
			"unsupported config version %d", cfg.Version)
		return nil, problems
	}
	dir := filepath.Dir(path)
	for _, p := range []*string{&cfg.Spec, &cfg.Overrides, &cfg.Out, &cfg.RuntimeDir} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return &cfg, problems
}

// settings are the resolved generate settings.
type settings struct {
	spec, overrides, out, pkg, name, toolPrefix string
	// runtimeDir is the runtime module's folder for a generated go.mod.
	runtimeDir  string
	allowRemote []string
	check       bool
	// verbose prints per-stage progress and timings on stderr.
	verbose bool
	// noCallTests leaves out the generated call cases.
	noCallTests bool
	// metrics adds the Prometheus /metrics endpoint.
	metrics bool
	// discover serves unused operations through the discovery tools.
	discover bool
	// bounds limit a default mapping's tools/list (--max-tools,
	// --max-tokens).
	bounds mapping.Bounds
}

// validate reports missing required settings.
func (s *settings) validate() error {
	switch {
	case s.spec == "":
		return usageErr("--spec is required (or spec: in the -c config file)")
	case s.out == "":
		return usageErr("--out is required (or out: in the -c config file)")
	}
	if s.pkg != "" && !isGoIdent(s.pkg) {
		return usageErr("--package %q is not a valid Go package name; use lower-case letters and digits", s.pkg)
	}
	return nil
}

func isGoIdent(s string) bool {
	for i, r := range s {
		ok := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return s != ""
}

func printProblems(w interface{ Write([]byte) (int, error) }, problems diag.List) {
	problems.Sort()
	for _, p := range problems {
		fmt.Fprintln(w, p.String())
	}
}
