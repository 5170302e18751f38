//go:build !go1.27 || !goexperiment.jsonv2

package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"

	"github.com/oa2mcp/oa2mcp/generator/internal/workers"
	"github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"
)

// kin-openapi decodes every Swagger 2.0 object twice, once for its
// fields and once more into a map for its extensions, at every level,
// so a large API's decode is most of its load (Kubernetes: 0.7 s of a
// 0.9 s load). The members of the document's big maps are independent
// documents of their own, so they are decoded on every CPU, each by
// kin's own UnmarshalJSON; the rest of the document goes through kin's
// T.UnmarshalJSON without them. The result is the value kin's
// openapi2.UnmarshalFromData gives (TestSplitDecodeMatchesKin).
//
// This file mirrors kin's own build constraint for encoding/json v1
// (openapi2/marsh_jsonv1.go): v1 is the decoder whose key matching and
// repeated-key rules the split reproduces.

// errNotSplit is a big map the split leaves to kin's own decode.
var errNotSplit = errors.New("not split")

// splitMaps are the top-level members decoded member by member.
var splitMaps = [...]string{"paths", "definitions", "parameters", "responses"}

// decodeSwagger decodes a Swagger 2.0 document as
// openapi2.UnmarshalFromData does. Anything the split cannot reproduce
// for certain (YAML, invalid JSON, a repeated or case-folded big-map
// key, any decode error) goes to kin's own decode, so the value and
// every error message are kin's.
func decodeSwagger(data []byte, d2 *openapi2.T) error {
	if splitDecode(data, d2) {
		return nil
	}
	*d2 = openapi2.T{}
	return openapi2.UnmarshalFromData(data, d2)
}

// splitDecode decodes data into d2 by members; false means it could not
// and d2 holds nothing meaningful.
func splitDecode(data []byte, d2 *openapi2.T) bool {
	members, ok := topMembers(data)
	if !ok {
		return false
	}
	rest, big, ok := separateBigMaps(members)
	if !ok {
		return false
	}
	if err := openapi2.UnmarshalFromData(objectOf(rest), d2); err != nil {
		return false
	}
	var errs [len(splitMaps)]error
	d2.Paths, errs[0] = decodeMembers[openapi2.PathItem](big[0])
	d2.Definitions, errs[1] = decodeMembers[openapi2.SchemaRef](big[1])
	d2.Parameters, errs[2] = decodeMembers[openapi2.Parameter](big[2])
	d2.Responses, errs[3] = decodeMembers[openapi2.Response](big[3])
	return errors.Join(errs[:]...) == nil
}

// member is one name and value of a JSON object, in document order.
type member struct {
	key string
	raw []byte
}

// topMembers lists the members of data when it is one valid JSON object.
func topMembers(data []byte) ([]member, bool) {
	keys, values, ok := oa2mcpimpl.JSONMembers(data)
	members := make([]member, len(keys))
	for i, k := range keys {
		members[i] = member{k, values[i]}
	}
	return members, ok
}

// separateBigMaps takes the splitMaps members out of the top-level
// members, in splitMaps order (nil when absent). It refuses a document
// that names one twice (encoding/json merges the two into one map) or
// under another case (encoding/json matches field names without case,
// and kin would also keep that key as an extension).
func separateBigMaps(members []member) (rest []member, big [len(splitMaps)][]byte, ok bool) {
	for _, m := range members {
		i, exact := bigMapIndex(m.key)
		switch {
		case i < 0:
			rest = append(rest, m)
		case !exact || big[i] != nil:
			return nil, big, false
		default:
			big[i] = m.raw
		}
	}
	return rest, big, true
}

// bigMapIndex is key's place in splitMaps (-1: none), and whether it is
// spelt exactly so.
func bigMapIndex(key string) (int, bool) {
	for i, name := range splitMaps {
		if strings.EqualFold(key, name) {
			return i, key == name
		}
	}
	return -1, false
}

// objectOf writes members back as one JSON object.
func objectOf(members []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(m.key) // a string always encodes
		b.Write(key)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// decodeMembers decodes the JSON object raw into a map of V, each
// member on its own worker, as encoding/json decodes a map field: a
// later repeated key wins, null gives a nil map, {} an empty one, and
// nil (the member is absent) leaves the map nil.
func decodeMembers[V any](raw []byte) (map[string]*V, error) {
	if raw == nil {
		return nil, nil
	}
	keys, raws, ok := oa2mcpimpl.JSONMembers(raw)
	if !ok {
		if string(raw) == "null" {
			return nil, nil
		}
		return nil, errNotSplit // not an object, or nested too deep: kin decides
	}
	values := make([]*V, len(keys))
	errs := make([]error, len(keys))
	workers.ForEach(len(keys), func(i int) {
		errs[i] = json.Unmarshal(raws[i], &values[i])
	})
	out := make(map[string]*V, len(keys))
	for i, k := range keys {
		out[k] = values[i] // in document order: a repeated key's last value wins
	}
	return out, errors.Join(errs...)
}
