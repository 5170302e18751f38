package main

import (
	"path/filepath"

	"github.com/oa2mcp/oa2mcp/internal/testenv"
)

// newModule writes a go.mod and go.sum into dir for generated servers,
// with this repository's runtime (testenv.WriteModule), so a clean clone
// builds them from the module cache and the proxy alone. Run go commands
// there with goEnv: the repository's go.work would otherwise claim the
// folder.
func newModule(dir, module string) {
	check(testenv.WriteModule(dir, module, filepath.Join(*rootDir, "runtime")))
}

// goEnv is the environment of go commands in a newModule folder: no
// workspace, and go.mod completed as needed.
func goEnv(extra ...string) []string {
	return append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, extra...)
}
