package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime/internal/plainjson"

// JSONMembers lists the members of one JSON object in document order,
// repeated keys kept, each value as its raw JSON text; ok is false for
// anything but a valid object (then ask encoding/json). The loader uses
// it to decode a large spec's independent parts on every CPU.
func JSONMembers(data []byte) (keys []string, values [][]byte, ok bool) {
	return plainjson.Members(data)
}

// AppendJSON appends v compactly as a json.Encoder with
// SetEscapeHTML(html) writes it, without the newline; ok is false, and
// dst unchanged, for anything but plain decoded values (maps, slices,
// strings, json.Number, bools, nil): then ask encoding/json. The
// generator encodes its schemas and synthesised arguments with it.
func AppendJSON(dst []byte, v any, html bool) (out []byte, ok bool) {
	return plainjson.Append(dst, v, html)
}
