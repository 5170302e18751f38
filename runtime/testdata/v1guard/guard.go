// Package v1guard is the version guard of code generated for contract
// version 1 (before the door package), as it was written; TestVersionGuards
// builds it and wants the error on the "regenerate" line.
package v1guard

import "github.com/oa2mcp/oa2mcp/runtime"

const (
	// If the next line does not compile ("overflows"), the runtime is older
	// than this code: go get github.com/oa2mcp/oa2mcp/runtime@latest.
	_ = runtime.EnforceVersion(runtime.MaxVersion - 1)
	// If this one does not compile, this code is older than the runtime
	// serves: regenerate it with a newer oa2mcp.
	_ = runtime.EnforceVersion(1 - runtime.MinVersion)
)
