package oa2mcpimpl

import (
	"github.com/oa2mcp/oa2mcp/runtime"
	"github.com/oa2mcp/oa2mcp/runtime/internal/callerenv"
	"github.com/oa2mcp/oa2mcp/runtime/internal/errkind"
	"github.com/oa2mcp/oa2mcp/runtime/internal/handle"
	"github.com/oa2mcp/oa2mcp/runtime/internal/media"
	"github.com/oa2mcp/oa2mcp/runtime/internal/search"
	"github.com/oa2mcp/oa2mcp/runtime/internal/uritemplate"
)

// Rules the generator shares with the runtime, each kept once in a
// runtime/internal package (discovery names and areas, media types,
// handles, caller identity, error kinds, resource templates): the runtime
// serves with them, and the generator calls them here.

// The discovery tools' names.
const (
	SearchToolName   = search.SearchToolName
	DescribeToolName = search.DescribeToolName
	CallToolName     = search.CallToolName
)

// CheckResource reports why a resource declaration cannot be served by
// its tool (the rule NewServer binds with); nil when it can.
func CheckResource(r *runtime.Resource, t *runtime.Tool) error {
	_, _, err := uritemplate.Bind(r.URITemplate, uritemplate.Tool{Name: t.Name, InputSchema: t.InputSchema, Asks: len(t.Asks) > 0 || t.Confirm != ""})
	return err
}

// AreaKey is the folded name by which discovery finds an area.
func AreaKey(name string) string { return search.AreaKey(name) }

// MediaBase is a media type without parameters, lower-cased.
func MediaBase(mt string) string { return media.Base(mt) }

// IsJSONMedia reports whether a media type carries JSON.
func IsJSONMedia(mt string) bool { return media.IsJSON(mt) }

// SequenceMedia names the sequence form of a media type, if any.
func SequenceMedia(mt string) string { return media.Sequence(mt) }

// HandleExample is an example handle with prefix, well formed.
func HandleExample(prefix string) string { return handle.Example(prefix) }

// StdioCallerSetting names the environment settings that carry the
// caller's identity claims over stdio.
func StdioCallerSetting(envPrefix string, claims []string) string {
	return callerenv.Setting(envPrefix, claims)
}

// ErrorKindForStatus is the error kind of an upstream's non-2xx status.
func ErrorKindForStatus(code int) string { return errkind.ForStatus(code) }
