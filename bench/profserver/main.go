// Command profserver is the examples/petstore server with a CPU profile:
// the server side of a bench/run.sh mode, which the bench process cannot
// profile itself. The profile covers the whole life of the process and
// is written when it exits (end of input on stdio, or SIGINT/SIGTERM).
//
//	go build -o /tmp/profserver ./bench/profserver
//	OA2MCP_CPUPROFILE=/tmp/server.pprof /tmp/bench -server /tmp/profserver -backend BACKEND -modes stdio -n 6000
//	go tool pprof -top /tmp/profserver /tmp/server.pprof
package main

import (
	"os"
	"runtime/pprof"

	"github.com/oa2mcp/oa2mcp/examples/petstore"
)

func main() {
	if path := os.Getenv("OA2MCP_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			panic(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			panic(err)
		}
		code := petstore.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		pprof.StopCPUProfile()
		f.Close()
		os.Exit(code)
	}
	os.Exit(petstore.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
