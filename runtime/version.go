package runtime

// EnforceVersion lets generated code assert at compile time that it and
// this package agree on the contract (the definition types and entry
// points). Generated code holds two constants, one per side:
//
//	_ = runtime.EnforceVersion(runtime.MaxVersion - N) // runtime too old
//	_ = runtime.EnforceVersion(N - runtime.MinVersion) // generated code too old
//
// where N is the contract version the generator wrote. A mismatch makes
// one of them negative, a compile error ("constant -1 overflows
// runtime.EnforceVersion") on the line whose comment says which side to
// upgrade.
type EnforceVersion uint

const (
	// MaxVersion is the newest contract version this package serves.
	MaxVersion = 1
	// MinVersion is the oldest contract version this package serves.
	MinVersion = 1
)
