package main

import (
	"os"
	"path/filepath"
)

// newModule writes a go.mod and go.sum into dir for generated servers: it
// requires the runtime (and its optional modules), replaced by this
// repository's copies, as internal/testenv.TempModule does for the tests,
// so a clean clone builds them from the module cache and the proxy alone.
// Run go commands there with goEnv: the repository's go.work would
// otherwise claim the folder.
func newModule(dir, module string) {
	check(os.MkdirAll(dir, 0o755))
	rt := filepath.Join(*rootDir, "runtime")
	gomod := "module " + module + "\n\ngo 1.26\n\nrequire (\n" +
		"\tgithub.com/modelcontextprotocol/go-sdk v1.8.0\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime v0.5.0\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/prommetrics v0.5.0\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/redisstore v0.5.0\n)\n\nreplace (\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime => " + rt + "\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/prommetrics => " + filepath.Join(rt, "prommetrics") + "\n" +
		"\tgithub.com/oa2mcp/oa2mcp/runtime/redisstore => " + filepath.Join(rt, "redisstore") + "\n)\n"
	var sum []byte
	for _, sub := range []string{"", "prommetrics", "redisstore"} {
		b, err := os.ReadFile(filepath.Join(rt, sub, "go.sum"))
		check(err)
		sum = append(sum, b...)
	}
	check(os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644))
	check(os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
}

// goEnv is the environment of go commands in a newModule folder: no
// workspace, and go.mod completed as needed.
func goEnv(extra ...string) []string {
	return append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, extra...)
}
