//go:build go1.27 && goexperiment.jsonv2

package load

import "github.com/getkin/kin-openapi/openapi2"

// decodeSwagger decodes a Swagger 2.0 document with kin-openapi alone:
// under encoding/json v2 kin's decode follows v2's rules (case-sensitive
// names, repeated names refused), which swagger2_decode.go's split does
// not reproduce.
func decodeSwagger(data []byte, d2 *openapi2.T) error {
	return openapi2.UnmarshalFromData(data, d2)
}
