// Package contractversion holds the contract versions the runtime serves,
// once, for the guard of the door package and for the older guard that
// package runtime keeps for code generated before the door existed.
package contractversion

const (
	// Max is the newest contract version the runtime serves.
	Max = 2
	// Min is the oldest contract version the runtime serves.
	Min = 2
)
