//go:build race

package codec_test

// raceEnabled is set when the race detector is on. It changes allocation
// counts (sync.Pool drops items at random), so allocation tests skip.
const raceEnabled = true
