package oa2mcpimpl

import "github.com/oa2mcp/oa2mcp/runtime/internal/contractversion"

// EnforceVersion lets generated code assert at compile time that it and
// the runtime agree on the contract (the definition types and entry
// points). Generated code holds two constants, one per side:
//
//	_ = oa2mcpimpl.EnforceVersion(oa2mcpimpl.MaxVersion - N) // runtime too old
//	_ = oa2mcpimpl.EnforceVersion(N - oa2mcpimpl.MinVersion) // generated code too old
//
// where N is the contract version the generator wrote. A mismatch makes
// one of them negative, a compile error ("constant -1 overflows
// oa2mcpimpl.EnforceVersion") on the line whose comment says which side to
// upgrade.
type EnforceVersion uint

// Contract versions:
//   - 1: the definition types up to the flat runtime package;
//   - 2: this door package (generated code asserts the guard here and
//     reaches shared rules through it), and the fields Binding.Items,
//     Binding.Required, Action.Output, ServerDef.RedirectHosts,
//     ServerDef.Resources, Discovery.Areas, SecurityScheme.UpstreamAuth,
//     Operation.SecurityScopes, Operation.ResponseMedia and
//     Tool.DisconnectsAccount.
//
// Code of version 1 asserts the guard through package runtime, which
// keeps it (runtime.EnforceVersion, MaxVersion, MinVersion) so that such
// code fails on its "regenerate" line rather than on a missing name.
const (
	// MaxVersion is the newest contract version the runtime serves.
	MaxVersion = contractversion.Max
	// MinVersion is the oldest contract version the runtime serves.
	MinVersion = contractversion.Min
)
