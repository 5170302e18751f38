package runtime

import "github.com/oa2mcp/oa2mcp/runtime/internal/contractversion"

// EnforceVersion is the compile-time contract guard that code generated
// before the door package asserts (contract version 1): against this
// runtime its "generated code too old; regenerate" line stops compiling,
// as it should. Code generated now asserts oa2mcpimpl.EnforceVersion.
type EnforceVersion uint

// MaxVersion and MinVersion are the contract versions the runtime
// serves, for the guard of version 1 code (see oa2mcpimpl.MaxVersion).
const (
	MaxVersion = contractversion.Max
	MinVersion = contractversion.Min
)
