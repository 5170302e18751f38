// Command kinload loads one OpenAPI document with kin-openapi alone and
// exits: the whole-process baseline the benchmark suite times `oa2mcp
// generate` against (docs/benchmarks.md). It does what the suite's
// in-process baseline does: openapi3.NewLoader with external refs
// allowed and LoadFromFile, or for Swagger 2.0 (-swagger)
// openapi2.UnmarshalFromData and openapi2conv.ToV3WithLoader.
//
//	kinload [-swagger] SPEC
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/oa2mcp/oa2mcp/bench/internal/kinbase"
)

func main() {
	swagger := flag.Bool("swagger", false, "the document is Swagger 2.0")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: kinload [-swagger] SPEC")
		os.Exit(2)
	}
	if err := kinbase.Load(flag.Arg(0), *swagger, false); err != nil {
		fmt.Fprintln(os.Stderr, "kinload:", err)
		os.Exit(1)
	}
}
