//go:build race

package fastpath

// raceDetector: built with -race, whose sync.Pool drops a quarter of
// what is put back, so allocation bounds allow for it.
const raceDetector = true
