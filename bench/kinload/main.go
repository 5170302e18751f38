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
	"net/url"
	"os"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

func main() {
	swagger := flag.Bool("swagger", false, "the document is Swagger 2.0")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: kinload [-swagger] SPEC")
		os.Exit(2)
	}
	if err := load(flag.Arg(0), *swagger); err != nil {
		fmt.Fprintln(os.Stderr, "kinload:", err)
		os.Exit(1)
	}
}

// load is the baseline load of path.
func load(path string, swagger bool) error {
	kl := openapi3.NewLoader()
	kl.IsExternalRefsAllowed = true
	if !swagger {
		_, err := kl.LoadFromFile(path)
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var d2 openapi2.T
	if err := openapi2.UnmarshalFromData(b, &d2); err != nil {
		return err
	}
	_, err = openapi2conv.ToV3WithLoader(&d2, kl, &url.URL{Path: path})
	return err
}
