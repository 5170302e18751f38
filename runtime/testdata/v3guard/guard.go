// Package v3guard is the version guard of code generated for a contract
// version newer than this runtime serves; TestVersionGuards builds it and
// wants the error on the "runtime is older" line.
package v3guard

import "github.com/oa2mcp/oa2mcp/runtime/oa2mcpimpl"

const (
	// If the next line does not compile ("overflows"), the runtime is older
	// than this code: go get github.com/oa2mcp/oa2mcp/runtime@latest.
	_ = oa2mcpimpl.EnforceVersion(oa2mcpimpl.MaxVersion - 3)
	// If this one does not compile, this code is older than the runtime
	// serves: regenerate it with a newer oa2mcp.
	_ = oa2mcpimpl.EnforceVersion(3 - oa2mcpimpl.MinVersion)
)
