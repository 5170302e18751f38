//go:build !race

package fastpath

// raceDetector: built without -race (see race_on_test.go).
const raceDetector = false
