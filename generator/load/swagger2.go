package load

import (
	"encoding/json"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// parseError is a file kin-openapi could not decode.
type parseError struct {
	file string // URL key in the file set
	err  error
}

func (e *parseError) Error() string { return e.err.Error() }
func (e *parseError) Unwrap() error { return e.err }

// loadSwagger decodes a Swagger 2.0 entry file and converts it to
// OpenAPI 3 with openapi2conv, resolving external $refs through kl.
func (l *loader) loadSwagger(kl *openapi3.Loader) (*openapi3.T, error) {
	var d2 openapi2.T
	if err := decodeSwagger(l.files.entryData(), &d2); err != nil {
		return nil, &parseError{file: l.files.entryURL().String(), err: err}
	}
	t, err := openapi2conv.ToV3WithLoader(&d2, kl, l.files.entryURL())
	if err != nil {
		return nil, err
	}
	fixV2Parameters(t, &d2)
	return t, nil
}

// fixV2Parameters repairs parameters that a Swagger 2.0 file $refs from
// another file: the OpenAPI 3 loader decodes them as v3 parameters, so
// their v2 "type"/"items"/... land in Extensions and the schema is lost.
// They are re-decoded as v2 parameters and converted properly.
func fixV2Parameters(t *openapi3.T, d2 *openapi2.T) {
	for _, item := range t.Paths.Map() {
		fixV2ParamList(item.Parameters, d2)
		for _, op := range item.Operations() {
			fixV2ParamList(op.Parameters, d2)
		}
	}
}

func fixV2ParamList(params openapi3.Parameters, d2 *openapi2.T) {
	for _, ref := range params {
		p := ref.Value
		if p == nil || p.Schema != nil || p.Content != nil || len(p.Extensions) == 0 {
			continue
		}
		if schema, style, explode := v2ParamSchema(p, d2); schema != nil {
			p.Schema = schema
			if p.Style == "" {
				p.Style = style
			}
			if p.Explode == nil {
				p.Explode = explode
			}
		}
	}
}

// v2ParamSchema rebuilds the schema of a v3 parameter holding v2 fields.
func v2ParamSchema(p *openapi3.Parameter, d2 *openapi2.T) (*openapi3.SchemaRef, string, *bool) {
	raw := map[string]any{}
	for k, v := range p.Extensions {
		raw[k] = v
	}
	raw["name"], raw["in"] = p.Name, p.In
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, "", nil
	}
	var p2 openapi2.Parameter
	if err := json.Unmarshal(b, &p2); err != nil || p2.Type == nil {
		return nil, "", nil
	}
	v3, _, _, err := openapi2conv.ToV3Parameter(&openapi3.Components{}, &p2, d2.Consumes)
	if err != nil || v3 == nil || v3.Value == nil {
		return nil, "", nil
	}
	for k := range p.Extensions {
		if k != "collectionFormat" && !isExtensionKey(k) {
			delete(p.Extensions, k)
		}
	}
	return v3.Value.Schema, v3.Value.Style, v3.Value.Explode
}

func isExtensionKey(k string) bool { return len(k) > 2 && k[:2] == "x-" }
