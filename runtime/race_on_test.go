//go:build race

package runtime

// raceDetector: built with -race, whose sync.Pool drops a quarter of
// what is put back, so allocation bounds allow for it.
const raceDetector = true
