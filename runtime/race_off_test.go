//go:build !race

package runtime

// raceDetector: built without -race (see race_on_test.go).
const raceDetector = false
