package oa2mcpimpl

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

const (
	// MaxVersion is the newest contract version the runtime serves.
	MaxVersion = 1
	// MinVersion is the oldest contract version the runtime serves.
	MinVersion = 1
)
