// Package kinbase is the benchmarks' baseline: what kin-openapi alone
// does with a document, timed against oa2mcp in process (bench/suite) and
// as a whole process (bench/kinload).
package kinbase

import (
	"net/url"
	"os"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// Load loads path as the corpus README measured it: openapi3.NewLoader
// with external refs allowed, or for Swagger 2.0 unmarshal, then convert
// with the same loader so relative $refs resolve. origin sets
// IncludeOrigin (positions, which oa2mcp's loader needs).
func Load(path string, swagger, origin bool) error {
	kl := openapi3.NewLoader()
	kl.IsExternalRefsAllowed = true
	kl.IncludeOrigin = origin
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
