package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"

// JSONMembers lists the members of one JSON object in document order,
// repeated keys kept, each value as its raw JSON text; ok is false for
// anything but a valid object (then ask encoding/json). The loader uses
// it to decode a large spec's independent parts on every CPU.
func JSONMembers(data []byte) (keys []string, values [][]byte, ok bool) {
	return plainjson.Members(data)
}
